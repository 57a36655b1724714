// Bounded retries with exponential backoff and full jitter. Pure apart from the injected
// sleep/random/now, so tests can drive it without waiting.

export interface RetryOptions {
  /** Total attempts including the first. Default 3. */
  maxAttempts: number;
  /** Backoff ceiling for attempt n is baseDelayMs * 2^(n-1), capped by maxDelayMs. Default 200 ms. */
  baseDelayMs: number;
  /** Default 5 s. */
  maxDelayMs: number;
  /** A server's Retry-After is honoured up to this much. Default 30 s. */
  maxRetryAfterMs: number;
  sleep: (ms: number) => Promise<void>;
  /** In [0, 1). */
  random: () => number;
  now: () => number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 30_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
  now: Date.now,
};

/** What one attempt tells the loop: done, or worth another try (optionally not before a delay). */
export type AttemptVerdict<T> = { done: true; value: T } | { done: false; value: T; retryAfter?: string };

export async function withRetries<T>(
  attempt: (attemptNumber: number) => Promise<AttemptVerdict<T>>,
  options: RetryOptions,
  deadline?: Date,
): Promise<{ value: T; attempts: number }> {
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts));
  for (let n = 1; ; n++) {
    const verdict = await attempt(n);
    if (verdict.done || n >= maxAttempts) return { value: verdict.value, attempts: n };
    const delay = retryDelay(n, verdict.retryAfter, options);
    // The deadline is the click's end of life: a retry landing after it can only get a 404.
    if (deadline && options.now() + delay >= deadline.getTime()) return { value: verdict.value, attempts: n };
    await options.sleep(delay);
  }
}

export function retryDelay(attemptNumber: number, retryAfter: string | undefined, options: RetryOptions): number {
  const fromServer = parseRetryAfter(retryAfter, options.now());
  if (fromServer !== undefined) return Math.min(fromServer, options.maxRetryAfterMs);
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attemptNumber - 1));
  return Math.floor(options.random() * ceiling);
}

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 10.2.3); anything else is ignored. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Every HTTP date format spells out day and month names; Date.parse alone would take "-1".
  if (!/[A-Za-z]{3}/.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
