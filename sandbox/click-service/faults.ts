// Fault injection: the next N calls to a path misbehave the way real networks and services do,
// so the client's retry and timeout handling can be tested against a real socket. A fault
// strikes either before the call is handled (nothing recorded) or, with `after`, once the call
// has been handled and recorded: the answer is then lost or late, which no client can tell
// apart from a failure before the service.

export interface Fault {
  path: string;
  method?: string;
  remaining: number;
  delayMs: number;
  status?: number;
  retryAfter?: string;
  drop: boolean;
  error?: string;
  /** Handle the call first (a verification is recorded), then drop or hold its answer. */
  after: boolean;
}

export type ParsedFault = { ok: true; fault: Fault } | { ok: false; message: string };

const MAX_DELAY_MS = 120_000;

export function parseFault(body: Record<string, unknown>): ParsedFault {
  const { path, method, times = 1, delay_ms = 0, status, retry_after, drop = false, error, after = false } = body;
  if (typeof path !== "string" || !path.startsWith("/")) return bad("path must be a string starting with /");
  if (method !== undefined && typeof method !== "string") return bad("method must be a string");
  if (!Number.isInteger(times) || (times as number) < 1) return bad("times must be a positive integer");
  if (!Number.isInteger(delay_ms) || (delay_ms as number) < 0 || (delay_ms as number) > MAX_DELAY_MS) {
    return bad(`delay_ms must be an integer between 0 and ${MAX_DELAY_MS}`);
  }
  if (status !== undefined && (!Number.isInteger(status) || (status as number) < 200 || (status as number) > 599)) {
    return bad("status must be an integer between 200 and 599");
  }
  if (retry_after !== undefined && typeof retry_after !== "string" && typeof retry_after !== "number") {
    return bad("retry_after must be a string or a number");
  }
  if (typeof drop !== "boolean") return bad("drop must be a boolean");
  if (error !== undefined && typeof error !== "string") return bad("error must be a string");
  if (typeof after !== "boolean") return bad("after must be a boolean");
  // The handler's answer is already written by then; only losing or delaying it makes sense.
  if (after && status !== undefined) return bad("after works with drop or delay_ms, not with status");
  if (!drop && status === undefined && delay_ms === 0)
    return bad("a fault needs at least one of status, drop, delay_ms");
  return {
    ok: true,
    fault: {
      path,
      ...(method === undefined ? {} : { method: (method as string).toUpperCase() }),
      remaining: times as number,
      delayMs: delay_ms as number,
      ...(status === undefined ? {} : { status: status as number }),
      ...(retry_after === undefined ? {} : { retryAfter: String(retry_after) }),
      drop,
      ...(error === undefined ? {} : { error: error as string }),
      after,
    },
  };
}

/** Takes one use of the oldest fault that matches; spent faults disappear. */
export function takeFault(faults: Fault[], method: string, path: string): Fault | undefined {
  const index = faults.findIndex((f) => f.path === path && (f.method === undefined || f.method === method));
  if (index < 0) return undefined;
  const fault = faults[index]!;
  fault.remaining -= 1;
  if (fault.remaining <= 0) faults.splice(index, 1);
  return fault;
}

function bad(message: string): ParsedFault {
  return { ok: false, message };
}
