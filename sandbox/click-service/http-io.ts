// Request reading and response writing shared by all routes. Bodies are read with a hard
// size limit and strict UTF-8, so no input can exhaust memory or reach a handler half-decoded.
import type { IncomingMessage, ServerResponse } from "node:http";

export const MAX_BODY_BYTES = 64 * 1024;
// After a 413 the rest of the body is read and thrown away, but only up to this much; beyond
// it the connection is cut. Closing at once instead would race the client's upload and hand
// it EPIPE/ECONNRESET rather than the 413.
const MAX_DISCARD_BYTES = 16 * 1024 * 1024;

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = status === 204 ? "" : JSON.stringify(body);
  res.writeHead(status, {
    ...(status === 204
      ? {}
      : { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) }),
    "cache-control": "no-store",
    ...headers,
  });
  res.end(text);
}

export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error: message }, headers);
}

export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const mediaType = header.split(";")[0]!.trim().toLowerCase();
  return mediaType === "application/json";
}

export type BodyRead = { ok: true; text: string } | { ok: false; status: 400 | 413; message: string };

export function readBody(req: IncomingMessage): Promise<BodyRead> {
  const tooLarge: BodyRead = {
    ok: false,
    status: 413,
    message: `request body must not exceed ${MAX_BODY_BYTES} bytes`,
  };
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
    discardRest(req, 0);
    return Promise.resolve(tooLarge);
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.off("data", onData);
        req.off("end", onEnd);
        discardRest(req, size);
        resolve(tooLarge);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      try {
        resolve({ ok: true, text: new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks)) });
      } catch {
        resolve({ ok: false, status: 400, message: "request body must be valid UTF-8" });
      }
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", () => resolve({ ok: false, status: 400, message: "request body could not be read" }));
  });
}

function discardRest(req: IncomingMessage, alreadyRead: number): void {
  let discarded = alreadyRead;
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > MAX_DISCARD_BYTES) req.socket.destroy();
  });
  req.resume();
}

/** Parses a JSON object body; anything else is a 400 with a message saying what was wrong. */
export function parseJsonObject(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: "request body must be valid JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, message: "request body must be a JSON object" };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** Reads a JSON object body, answering 415/413/400 itself; returns undefined when it did. */
export async function readJsonObject(
  req: IncomingMessage,
  res: ServerResponse,
): Promise<{ body: Record<string, unknown>; rawBody: string } | undefined> {
  if (!isJsonContentType(req.headers["content-type"])) {
    discardRest(req, 0);
    sendError(res, 415, "Content-Type must be application/json");
    return undefined;
  }
  const body = await readBody(req);
  if (!body.ok) {
    sendError(res, body.status, body.message);
    return undefined;
  }
  const parsed = parseJsonObject(body.text);
  if (!parsed.ok) {
    sendError(res, 400, parsed.message);
    return undefined;
  }
  return { body: parsed.value, rawBody: body.text };
}

/** Own property only: a body of {"__proto__": ...} must not smuggle values in. */
export function field(body: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(body, name) ? body[name] : undefined;
}
