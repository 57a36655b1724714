import type { IncomingMessage } from "node:http";

/**
 * The request body as text, or null when it is longer than `maxBytes`. A declared length over
 * the cap is refused before a byte is read; a body without one is read only up to the cap.
 */
export async function readCapped(request: Request, maxBytes: number): Promise<string | null> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await request.body?.cancel().catch(() => {});
    return null;
  }
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A Node request's body came to an end before it was whole: the client went away. */
export class BodyCutShort extends Error {}

/**
 * readCapped for a Node request. Past the cap it stops reading and answers null, leaving the
 * socket open so the refusal can still be sent (with `connection: close`, which ends the rest).
 */
export function readCappedNode(request: IncomingMessage, maxBytes: number): Promise<string | null> {
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (outcome: () => void) => {
      request.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size <= maxBytes) return void chunks.push(chunk);
      request.pause();
      finish(() => resolve(null));
    };
    const onEnd = () => finish(() => resolve(Buffer.concat(chunks).toString("utf8")));
    const onError = (error: Error) => finish(() => reject(error));
    const onClose = () => finish(() => reject(new BodyCutShort("the client closed the request before its body ended")));
    request.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}
