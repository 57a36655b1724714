// Transport: one keep-alive pool per service origin, explicit timeouts, bounded body reads.
// It reports what happened on the wire; deciding what a status means is client.ts's job.
import { Pool } from "undici";

export interface TimeoutOptions {
  /** TCP + TLS connect. Default 5 s: a healthy service accepts well within that. */
  connectTimeoutMs: number;
  /** From request sent to response headers. Default 10 s: the service does one lookup/compare. */
  headersTimeoutMs: number;
  /** Longest silence between body chunks. Default 10 s. */
  bodyTimeoutMs: number;
  /** Larger responses are cut off. Default 1 MiB, far above any contract response. */
  maxResponseBytes: number;
}

export const DEFAULT_TIMEOUTS: TimeoutOptions = {
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 10_000,
  maxResponseBytes: 1024 * 1024,
};

// Pools are shared by every client of an origin so that connections are reused across
// requests; the connect timeout is a pool-level setting, hence part of the key.
const pools = new Map<string, Pool>();

export function poolFor(origin: string, connectTimeoutMs: number): Pool {
  const key = `${origin} ${connectTimeoutMs}`;
  let pool = pools.get(key);
  if (!pool || pool.closed || pool.destroyed) {
    pool = new Pool(origin, {
      connections: 16,
      keepAliveTimeout: 30_000,
      connect: { timeout: connectTimeoutMs },
    });
    pools.set(key, pool);
  }
  return pool;
}

/** For tests and shutdown: closes every pool; later calls open fresh ones. */
export async function closeClickServicePools(): Promise<void> {
  const open = [...pools.values()];
  pools.clear();
  await Promise.all(open.map((pool) => pool.close().catch(() => pool.destroy())));
}

export interface WireRequest {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Aborts the exchange (the caller's job lost its lease, or is stopping). */
  signal?: AbortSignal;
}

export type WireOutcome =
  | { kind: "response"; status: number; retryAfter: string | undefined; text: string; truncated: boolean }
  | { kind: "timeout"; detail: string; sent: boolean }
  | { kind: "connection"; detail: string; sent: boolean }
  | { kind: "client"; detail: string };

const TIMEOUT_CODES = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);
// Failures before a connection existed: not one byte of the request reached the service.
const UNSENT_CODES = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
]);
// Failures of the client object itself, not of the network: retrying would fail the same way.
const CLIENT_CODES = new Set(["UND_ERR_INVALID_ARG", "UND_ERR_DESTROYED", "UND_ERR_CLOSED", "UND_ERR_NOT_SUPPORTED"]);

export async function exchange(pool: Pool, request: WireRequest, timeouts: TimeoutOptions): Promise<WireOutcome> {
  try {
    const response = await pool.request({
      method: request.method,
      path: request.path,
      headers: request.headers,
      body: request.body,
      headersTimeout: timeouts.headersTimeoutMs,
      bodyTimeout: timeouts.bodyTimeoutMs,
      signal: request.signal,
    });
    const { text, truncated } = await readBounded(response.body, timeouts.maxResponseBytes);
    const retryAfter = response.headers["retry-after"];
    return {
      kind: "response",
      status: response.statusCode,
      retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      text,
      truncated,
    };
  } catch (error) {
    if (request.signal?.aborted) return { kind: "client", detail: `aborted: ${String(request.signal.reason)}` };
    return classifyError(error);
  }
}

async function readBounded(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  limit: number,
): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size + chunk.length > limit) {
      chunks.push(chunk.subarray(0, limit - size));
      body.destroy();
      return { text: Buffer.concat(chunks).toString("utf8"), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { text: Buffer.concat(chunks).toString("utf8"), truncated: false };
}

function classifyError(error: unknown): WireOutcome {
  const code = typeof error === "object" && error && "code" in error ? String(error.code) : "";
  const detail = [code, error instanceof Error ? error.message : String(error)].filter(Boolean).join(": ");
  const sent = !UNSENT_CODES.has(code);
  if (TIMEOUT_CODES.has(code)) return { kind: "timeout", detail, sent };
  if (CLIENT_CODES.has(code)) return { kind: "client", detail };
  // Refused, reset, DNS and socket errors: the service may well answer the next attempt.
  return { kind: "connection", detail, sent };
}
