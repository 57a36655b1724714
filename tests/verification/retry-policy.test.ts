import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { backoffDelay, clickDeadline, MAX_ATTEMPTS, nextAttempt } from "../../app/verification/retry-policy";

describe("retry policy", () => {
  it("never schedules past the click's deadline or the attempt limit", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 3_600_000 }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        (attempts, left, r) => {
          const now = new Date("2026-11-21T10:00:00Z");
          const deadline = new Date(now.getTime() + left);
          const step = nextAttempt(attempts, now, deadline, () => r);
          if ("retryAt" in step) {
            expect(attempts).toBeLessThan(MAX_ATTEMPTS);
            expect(step.retryAt.getTime()).toBeLessThanOrEqual(deadline.getTime());
            expect(step.retryAt.getTime()).toBeGreaterThan(now.getTime());
          }
        },
      ),
    );
  });

  it("backs off exponentially under a cap", () => {
    expect(backoffDelay(1, () => 0.999)).toBeLessThan(backoffDelay(4, () => 0.999));
    expect(backoffDelay(30, () => 0.999)).toBeLessThanOrEqual(5 * 60_000);
  });

  it("measures the click's life from its capture, else from the order", () => {
    const order = new Date("2026-11-21T10:00:00Z");
    expect(clickDeadline(null, order).toISOString()).toBe("2026-11-21T11:00:00.000Z");
    expect(clickDeadline(new Date("2026-11-21T09:30:00Z"), order).toISOString()).toBe("2026-11-21T10:30:00.000Z");
  });
});
