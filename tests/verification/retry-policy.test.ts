import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { backoffDelay } from "../../app/queue/backoff";
import { MAX_ATTEMPTS } from "../../app/queue/job-states";
import { clickDeadline, GAVE_UP_ON_LIFETIME, nextAttempt } from "../../app/verification/retry-policy";

const NOW = new Date("2026-11-21T10:00:00Z");
const half = () => 0.5;

describe("backoff", () => {
  it("is full jitter under 5 s * 2^(attempt-1), at least 1 s, at most 5 minutes", () => {
    expect(backoffDelay(1, half)).toBe(2_500);
    expect(backoffDelay(2, half)).toBe(5_000);
    expect(backoffDelay(3, half)).toBe(10_000);
    expect(backoffDelay(7, half)).toBe(150_000);
    expect(backoffDelay(8, half)).toBe(150_000); // capped at 5 minutes from attempt 7 on
    expect(backoffDelay(30, () => 0.999)).toBe(299_700);
    expect(backoffDelay(1, () => 0)).toBe(1_000);
  });
});

describe("next attempt", () => {
  it("retries after the backoff while attempts and the click's life remain", () => {
    expect(nextAttempt(1, NOW, null, half)).toEqual({ retryAt: new Date(NOW.getTime() + 2_500) });
    expect(nextAttempt(MAX_ATTEMPTS - 1, NOW, null, half)).toEqual({ retryAt: new Date(NOW.getTime() + 150_000) });
  });

  it("gives up after the last attempt", () => {
    expect(nextAttempt(MAX_ATTEMPTS, NOW, null, half)).toEqual({ giveUp: `gave up after ${MAX_ATTEMPTS} attempts` });
  });

  it("allows a retry exactly at the deadline and none a millisecond after it", () => {
    const retryAt = NOW.getTime() + 2_500;
    expect(nextAttempt(1, NOW, new Date(retryAt), half)).toEqual({ retryAt: new Date(retryAt) });
    expect(nextAttempt(1, NOW, new Date(retryAt - 1), half)).toEqual({ giveUp: GAVE_UP_ON_LIFETIME });
  });

  it("says why it gave up when the click's life ran out, in words the merchant reads", () => {
    expect(nextAttempt(1, NOW, NOW, half)).toEqual({
      giveUp: "the click's one-hour life ended before the service answered",
    });
  });

  it("never schedules past the deadline, and always retries when both limits leave room", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 3_600_000 }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        (attempts, left, r) => {
          const deadline = new Date(NOW.getTime() + left);
          const step = nextAttempt(attempts, NOW, deadline, () => r);
          const delay = backoffDelay(attempts, () => r);
          if (attempts >= MAX_ATTEMPTS) expect(step).toEqual({ giveUp: `gave up after ${attempts} attempts` });
          else if (delay > left) expect(step).toEqual({ giveUp: GAVE_UP_ON_LIFETIME });
          else expect(step).toEqual({ retryAt: new Date(NOW.getTime() + delay) });
        },
      ),
    );
  });
});

describe("the click's deadline", () => {
  it("is an hour after its capture, else after the order", () => {
    const order = new Date("2026-11-21T10:00:00Z");
    expect(clickDeadline(null, order).toISOString()).toBe("2026-11-21T11:00:00.000Z");
    expect(clickDeadline(new Date("2026-11-21T09:30:00Z"), order).toISOString()).toBe("2026-11-21T10:30:00.000Z");
  });
});
