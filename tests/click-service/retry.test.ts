// The retry loop on its own, with sleep, random and the clock injected: exact delays, exact
// attempt counts, the deadline at its boundary. The client's use of it against a real server is
// in client-retries.test.ts.
import { describe, expect, it } from "vitest";
import {
  DEFAULT_RETRY,
  parseRetryAfter,
  retryDelay,
  withRetries,
  type AttemptVerdict,
  type RetryOptions,
} from "../../app/click-service/retry";

const NOW = Date.parse("2026-01-01T00:00:00Z");

function options(overrides: Partial<RetryOptions> = {}): RetryOptions & { slept: number[] } {
  const slept: number[] = [];
  return {
    ...DEFAULT_RETRY,
    sleep: async (ms) => void slept.push(ms),
    random: () => 0.5,
    now: () => NOW,
    slept,
    ...overrides,
  };
}

/** An attempt that fails `failures` times (asking for `retryAfter`), then succeeds. */
function failing(failures: number, retryAfter?: string) {
  const seen: number[] = [];
  const attempt = async (n: number): Promise<AttemptVerdict<string>> => {
    seen.push(n);
    return n > failures ? { done: true, value: `ok@${n}` } : { done: false, value: `failed@${n}`, retryAfter };
  };
  return { attempt, seen };
}

describe("the defaults", () => {
  it("are three attempts, 200 ms base, 5 s ceiling, Retry-After honoured up to 30 s", () => {
    expect(DEFAULT_RETRY).toMatchObject({
      maxAttempts: 3,
      baseDelayMs: 200,
      maxDelayMs: 5_000,
      maxRetryAfterMs: 30_000,
    });
  });

  it("sleep for real: the default sleep resolves after the timer it sets", async () => {
    await expect(DEFAULT_RETRY.sleep(0)).resolves.toBeUndefined();
  });
});

describe("withRetries", () => {
  it("returns the first success without sleeping", async () => {
    const o = options();
    const { attempt, seen } = failing(0);
    expect(await withRetries(attempt, o)).toEqual({ value: "ok@1", attempts: 1 });
    expect(seen).toEqual([1]);
    expect(o.slept).toEqual([]);
  });

  it("numbers the attempts, sleeps the jittered backoff between them, and stops at maxAttempts", async () => {
    const o = options({ maxAttempts: 4 });
    const { attempt, seen } = failing(10);
    expect(await withRetries(attempt, o)).toEqual({ value: "failed@4", attempts: 4 });
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(o.slept).toEqual([100, 200, 400]);
  });

  it("makes one attempt when maxAttempts is below one, and a whole number of them when fractional", async () => {
    for (const [maxAttempts, made] of [
      [0, 1],
      [-2, 1],
      [1, 1],
      [2.9, 2],
    ]) {
      const { attempt } = failing(10);
      expect((await withRetries(attempt, options({ maxAttempts }))).attempts).toBe(made);
    }
  });

  it("starts no retry that would land exactly at the deadline, and one that lands a millisecond before it", async () => {
    // The first retry waits 100 ms (random 0.5 of 200 ms).
    const atDeadline = options();
    const first = failing(1);
    expect(await withRetries(first.attempt, atDeadline, new Date(NOW + 100))).toEqual({
      value: "failed@1",
      attempts: 1,
    });
    expect(atDeadline.slept).toEqual([]);

    const beforeDeadline = options();
    const second = failing(1);
    expect(await withRetries(second.attempt, beforeDeadline, new Date(NOW + 101))).toEqual({
      value: "ok@2",
      attempts: 2,
    });
    expect(beforeDeadline.slept).toEqual([100]);
  });

  it("waits what the server asked for, capped", async () => {
    const o = options({ maxRetryAfterMs: 3_000 });
    const { attempt } = failing(2, "2");
    await withRetries(attempt, o);
    expect(o.slept).toEqual([2_000, 2_000]);
    const capped = options({ maxRetryAfterMs: 1_500 });
    await withRetries(failing(1, "2").attempt, capped);
    expect(capped.slept).toEqual([1_500]);
  });
});

describe("retryDelay", () => {
  it("is full jitter under baseDelayMs * 2^(n-1), capped at maxDelayMs, in whole milliseconds", () => {
    const o = options({ baseDelayMs: 200, maxDelayMs: 1_000, random: () => 0.999 });
    expect([1, 2, 3, 4, 5].map((n) => retryDelay(n, undefined, o))).toEqual([199, 399, 799, 999, 999]);
    expect(retryDelay(3, undefined, options({ random: () => 0 }))).toBe(0);
    expect(retryDelay(1, undefined, options({ baseDelayMs: 3, random: () => 0.5 }))).toBe(1);
  });

  it("takes the server's Retry-After up to maxRetryAfterMs, exactly at the cap too", () => {
    const o = options({ maxRetryAfterMs: 5_000 });
    expect(retryDelay(1, "4", o)).toBe(4_000);
    expect(retryDelay(1, "5", o)).toBe(5_000);
    expect(retryDelay(1, "6", o)).toBe(5_000);
    expect(retryDelay(2, "0", o)).toBe(0);
  });

  it("falls back to the backoff when Retry-After is unusable", () => {
    const o = options();
    expect(retryDelay(2, "5s", o)).toBe(200);
    expect(retryDelay(2, "soon", o)).toBe(200);
  });
});

describe("parseRetryAfter", () => {
  it("reads delta-seconds, surrounding spaces allowed", () => {
    expect(parseRetryAfter("5", NOW)).toBe(5_000);
    expect(parseRetryAfter(" 5 ", NOW)).toBe(5_000);
    expect(parseRetryAfter("0", NOW)).toBe(0);
    expect(parseRetryAfter("120", NOW)).toBe(120_000);
  });

  it("reads an HTTP date as the time left until it, and a past one as no wait", () => {
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:07 GMT", NOW)).toBe(7_000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", NOW)).toBe(0);
  });

  it("ignores anything else: units, signs, fractions, bare ISO times, words", () => {
    for (const value of [undefined, "", "5s", "s5", "-1", "+5", "1.5", "2026-01-01T00:00:07Z", "soon", "Fooday"])
      expect(parseRetryAfter(value, NOW), String(value)).toBeUndefined();
  });
});
