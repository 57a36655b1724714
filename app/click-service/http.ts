// Transport: one keep-alive pool per service origin, explicit timeouts, bounded body reads,
// and every connection made through the destination guard. It reports what happened on the
// wire in its own words; deciding what a status means is client.ts's job.
import { Pool, type Dispatcher } from "undici";
import { DestinationRefused, guardedLookup, type DestinationPolicy } from "./destination";

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
// requests; the connect timeout and the destination policy are pool-level settings, hence
// part of the key.
const pools = new Map<string, Pool>();
const policyIds = new WeakMap<DestinationPolicy, number>();
let policiesSeen = 0;

function policyId(policy: DestinationPolicy): number {
  let id = policyIds.get(policy);
  if (id === undefined) {
    // Stryker disable next-line UpdateOperator: the ids only need to differ, and counting down they do
    id = ++policiesSeen;
    policyIds.set(policy, id);
  }
  return id;
}

/** A pool no one else uses, for a caller that closes it when done (see singleUse in client.ts). */
export function openPool(origin: string, connectTimeoutMs: number, policy: DestinationPolicy): Pool {
  return new Pool(origin, {
    connections: 16,
    keepAliveTimeout: 30_000,
    connect: { timeout: connectTimeoutMs, lookup: guardedLookup(origin, policy) },
  });
}

export function poolFor(origin: string, connectTimeoutMs: number, policy: DestinationPolicy): Pool {
  const key = `${origin} ${connectTimeoutMs} ${policyId(policy)}`;
  let pool = pools.get(key);
  if (!pool || pool.closed || pool.destroyed) {
    pool = openPool(origin, connectTimeoutMs, policy);
    pools.set(key, pool);
  }
  return pool;
}

/** For tests and shutdown: closes every pool; later calls open fresh ones. */
export async function closeClickServicePools(): Promise<void> {
  const open = [...pools.values()];
  // Stryker disable next-line CallExpression: a closed pool left in the map is replaced on its key's next use (poolFor checks closed and destroyed), and closing it again waits for it or finds it closed
  pools.clear();
  await Promise.all(
    open.map((pool) =>
      pool.close().catch(
        // Stryker disable next-line ArrowFunction: undici's close fails only for a pool already destroyed, which destroying again leaves as it is
        () => pool.destroy(),
      ),
    ),
  );
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
  | { kind: "client"; detail: string }
  | { kind: "destination"; detail: string };

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

export async function exchange(
  dispatcher: Dispatcher,
  request: WireRequest,
  timeouts: TimeoutOptions,
): Promise<WireOutcome> {
  try {
    const response = await dispatcher.request({
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
      // Stryker disable next-line CallExpression: returning from the for await destroys the body as well
      body.destroy();
      return { text: Buffer.concat(chunks).toString("utf8"), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { text: Buffer.concat(chunks).toString("utf8"), truncated: false };
}

// What the merchant and the order log read: our words, chosen by error code. Library and OS
// messages are left out: they name addresses and ports, which would turn the settings page
// into a probe of the network the app runs in.
const CONNECTION_WORDS: Record<string, string> = {
  ECONNREFUSED: "the connection was refused",
  ECONNRESET: "the connection was closed before the service answered",
  UND_ERR_SOCKET: "the connection was closed before the service answered",
  EPIPE: "the connection was closed before the service answered",
  ENOTFOUND: "the service's host name does not resolve",
  EAI_AGAIN: "the service's host name could not be resolved just now",
  EHOSTUNREACH: "the service's host cannot be reached",
  ENETUNREACH: "the service's host cannot be reached",
  UND_ERR_CONNECT_TIMEOUT: "no connection to the service within the time allowed",
  UND_ERR_HEADERS_TIMEOUT: "the service did not answer within the time allowed",
  UND_ERR_BODY_TIMEOUT: "the service stopped sending its answer",
};

/** What a failed exchange was, in the app's words; exported for its tests (each OS and undici code). */
export function classifyError(error: unknown): WireOutcome {
  if (error instanceof DestinationRefused) return { kind: "destination", detail: error.message };
  // Stryker disable next-line StringLiteral: a code-less error reads alike under any text that is no code of the tables and holds no CERT, TLS or SSL
  const code = typeof error === "object" && error && "code" in error ? String(error.code) : "";
  const sent = !UNSENT_CODES.has(code);
  // Stryker disable next-line StringLiteral: never read, every timeout code has its words
  if (TIMEOUT_CODES.has(code)) return { kind: "timeout", detail: CONNECTION_WORDS[code] ?? "timed out", sent };
  if (CLIENT_CODES.has(code)) return { kind: "client", detail: "the app could not send the request" };
  if (/CERT|TLS|SSL/.test(code))
    return { kind: "connection", detail: "the service's TLS certificate was not accepted", sent };
  // Refused, reset, DNS and socket errors: the service may well answer the next attempt.
  return { kind: "connection", detail: CONNECTION_WORDS[code] ?? "the connection to the service failed", sent };
}
