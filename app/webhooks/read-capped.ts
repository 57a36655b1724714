import type { IncomingMessage } from "node:http";
import { BodyBudgetExhausted, type BodyHold } from "./body-budget";

/** Counts a body's bytes against its cap and, when given one, a shared budget (body-budget.ts). */
class BodyMeter {
  #size = 0;
  #reserved = 0;

  /** Whether the declared length alone passes the cap: such a body is refused without being read. */
  static declaredOverCap(declared: number, maxBytes: number): boolean {
    return Number.isFinite(declared) && declared > maxBytes;
  }

  constructor(
    private readonly maxBytes: number,
    private readonly hold: BodyHold | undefined,
    declared: number,
  ) {
    // The declared length is reserved before a byte is read: a body the budget cannot hold is
    // refused without being read.
    if (Number.isFinite(declared) && declared > 0) this.#reserve(declared);
  }

  /** Counts a chunk: false when the body has passed its cap; throws when the budget is spent. */
  add(bytes: number): boolean {
    this.#size += bytes;
    if (this.#size > this.maxBytes) return false;
    if (this.#size > this.#reserved) this.#reserve(this.#size);
    return true;
  }

  #reserve(upTo: number): void {
    if (this.hold && !this.hold.take(upTo - this.#reserved)) throw new BodyBudgetExhausted();
    this.#reserved = upTo;
  }
}

/**
 * The request body as text, or null when it is longer than `maxBytes`. A declared length over
 * the cap is refused before a byte is read; a body without one is read only up to the cap.
 * With a hold, its bytes are reserved in a shared budget; BodyBudgetExhausted when it is spent.
 */
export async function readCapped(request: Request, maxBytes: number, hold?: BodyHold): Promise<string | null> {
  const declared = Number(request.headers.get("content-length"));
  if (BodyMeter.declaredOverCap(declared, maxBytes)) {
    await request.body?.cancel().catch(() => {});
    return null;
  }
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  try {
    const meter = new BodyMeter(maxBytes, hold, declared);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!meter.add(value.byteLength)) {
        await reader.cancel().catch(() => {});
        return null;
      }
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A Node request's body came to an end before it was whole: the client went away. */
export class BodyCutShort extends Error {}

/**
 * readCapped for a Node request. Past the cap (or the budget) it stops reading, leaving the
 * socket open so the refusal can still be sent (with `connection: close`, which ends the rest).
 */
export function readCappedNode(request: IncomingMessage, maxBytes: number, hold?: BodyHold): Promise<string | null> {
  const declared = Number(request.headers["content-length"]);
  if (BodyMeter.declaredOverCap(declared, maxBytes)) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    let meter: BodyMeter;
    try {
      meter = new BodyMeter(maxBytes, hold, declared);
    } catch (error) {
      return reject(error);
    }
    const chunks: Buffer[] = [];
    const finish = (outcome: () => void) => {
      request.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      let within: boolean;
      try {
        within = meter.add(chunk.byteLength);
      } catch (error) {
        request.pause();
        return finish(() => reject(error));
      }
      if (within) return void chunks.push(chunk);
      request.pause();
      finish(() => resolve(null));
    };
    const onEnd = () => finish(() => resolve(Buffer.concat(chunks).toString("utf8")));
    const onError = (error: Error) => finish(() => reject(error));
    const onClose = () => finish(() => reject(new BodyCutShort("the client closed the request before its body ended")));
    request.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}
