import type { IncomingMessage } from "node:http";
import { BodyBudgetExhausted, type BodyHold } from "./body-budget";

// A body refused is left unread, never cancelled: cancelling a request's body destroys its
// socket, and the refusal would never be written. The caller answers with `connection: close`,
// which ends the connection, and whatever the client was still sending, once the answer is out.

/** Counts a body's bytes against its cap and, when given one, a shared budget (body-budget.ts), as they arrive. */
class BodyMeter {
  #size = 0;

  /** Whether the declared length alone passes the cap: such a body is refused without being read. */
  static declaredOverCap(declared: number, maxBytes: number): boolean {
    return Number.isFinite(declared) && declared > maxBytes;
  }

  constructor(
    private readonly maxBytes: number,
    private readonly hold: BodyHold | undefined,
  ) {}

  /** Counts a chunk: false when the body has passed its cap; throws when the budget is spent. */
  add(bytes: number): boolean {
    this.#size += bytes;
    if (this.#size > this.maxBytes) return false;
    if (this.hold && !this.hold.take(bytes)) throw new BodyBudgetExhausted();
    return true;
  }
}

/** A body did not arrive whole within its hold's deadline. */
export class BodyTimedOut extends Error {
  constructor(readonly deadlineMs: number) {
    super(`the body did not arrive within ${deadlineMs} ms`);
  }
}

/**
 * The request body as text, or null when it is longer than `maxBytes`. A declared length over
 * the cap is refused before a byte is read; a body without one is read only up to the cap.
 * With a hold, its bytes are held in a shared budget as they arrive (BodyBudgetExhausted when
 * they do not fit), and it must arrive whole within the hold's deadline (BodyTimedOut). Past
 * the cap, the budget or the deadline, the rest of the body is left unread: answer with
 * `connection: close`.
 */
export async function readCapped(request: Request, maxBytes: number, hold?: BodyHold): Promise<string | null> {
  const declared = Number(request.headers.get("content-length"));
  if (BodyMeter.declaredOverCap(declared, maxBytes)) return null;
  if (!request.body) return "";
  const reader = request.body.getReader();
  let late = false;
  // Releasing the reader rejects the read that waits for bytes, and leaves the socket be.
  const timer = hold
    ? setTimeout(() => {
        late = true;
        reader.releaseLock();
      }, hold.deadlineMs)
    : undefined;
  const meter = new BodyMeter(maxBytes, hold);
  const chunks: Uint8Array[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return Buffer.concat(chunks).toString("utf8");
      if (!meter.add(value.byteLength)) return null;
      chunks.push(value);
    }
  } catch (error) {
    if (late) throw new BodyTimedOut(hold!.deadlineMs);
    throw error;
  } finally {
    clearTimeout(timer);
    if (!late) reader.releaseLock();
  }
}

/** A Node request's body came to an end before it was whole: the client went away. */
export class BodyCutShort extends Error {}

/**
 * readCapped for a Node request. Past the cap, the budget or the deadline it stops reading,
 * leaving the socket open so the refusal can still be sent (with `connection: close`, which
 * ends the rest).
 */
export function readCappedNode(request: IncomingMessage, maxBytes: number, hold?: BodyHold): Promise<string | null> {
  const declared = Number(request.headers["content-length"]);
  if (BodyMeter.declaredOverCap(declared, maxBytes)) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const meter = new BodyMeter(maxBytes, hold);
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const finish = (outcome: () => void) => {
      clearTimeout(timer);
      request.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      outcome();
    };
    const stop = (error: Error) => {
      request.pause();
      finish(() => reject(error));
    };
    const onData = (chunk: Buffer) => {
      let within: boolean;
      try {
        within = meter.add(chunk.byteLength);
      } catch (error) {
        return stop(error as Error);
      }
      if (within) return void chunks.push(chunk);
      request.pause();
      finish(() => resolve(null));
    };
    const onEnd = () => finish(() => resolve(Buffer.concat(chunks).toString("utf8")));
    const cutShort = () => new BodyCutShort("the client closed the request before its body ended");
    // Node reports a client gone mid-body as an "aborted" error (ECONNRESET): not the app's error.
    const onError = (error: NodeJS.ErrnoException) =>
      finish(() => reject(error.code === "ECONNRESET" ? cutShort() : error));
    const onClose = () => finish(() => reject(cutShort()));
    if (hold) timer = setTimeout(() => stop(new BodyTimedOut(hold.deadlineMs)), hold.deadlineMs);
    request.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}
