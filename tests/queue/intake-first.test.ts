import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  INTAKE_BUSY_FOR_MS,
  INTAKE_LATE_MS,
  INTAKE_LOOP_SHARE,
  IntakeFirst,
  TURN_HOLD_MS,
  turnHoldMs,
} from "../../app/queue/intake-first";

// The worker's share of the event loop while webhooks arrive: cut by half on each late reading
// while intake is busy (down to no new job), grown back one job per reading on time, and all of
// it again once intake has been quiet.

const BUSY = INTAKE_BUSY_FOR_MS; // a delivery exactly this long ago still counts
const QUIET = INTAKE_BUSY_FOR_MS + 1;
const LATE = INTAKE_LATE_MS + 1;
const ON_TIME = INTAKE_LATE_MS; // exactly the threshold is on time

describe("intake first", () => {
  it("gives the worker every slot while intake is quiet, however late the loop", () => {
    const control = new IntakeFirst({ max: 16 });
    expect(control.limit).toBe(16);
    expect(control.observe(500, QUIET)).toBe(16);
    expect(control.observe(500, Number.POSITIVE_INFINITY)).toBe(16);
  });

  it("halves the worker's slots on each late reading while intake is busy, down to none", () => {
    const control = new IntakeFirst({ max: 16 });
    expect([1, 2, 3, 4, 5, 6].map(() => control.observe(LATE, BUSY))).toEqual([8, 4, 2, 1, 0, 0]);
  });

  it("grows back one slot per reading on time, and all at once when intake goes quiet", () => {
    const control = new IntakeFirst({ max: 16 });
    for (let i = 0; i < 5; i++) control.observe(LATE, 0);
    expect([1, 2, 3].map(() => control.observe(ON_TIME, 0))).toEqual([1, 2, 3]);
    expect(control.observe(LATE, 0)).toBe(1);
    expect(control.observe(0, QUIET)).toBe(16);
  });

  it("never grows past its maximum", () => {
    const control = new IntakeFirst({ max: 3 });
    expect([1, 2].map(() => control.observe(0, 0))).toEqual([3, 3]);
  });

  it("takes its thresholds from its options", () => {
    const control = new IntakeFirst({ max: 8, lateMs: 50, busyForMs: 10 });
    expect(control.observe(50, 10)).toBe(8);
    expect(control.observe(51, 10)).toBe(4);
    expect(control.observe(51, 11)).toBe(8);
  });

  it("keeps the limit between none and the maximum whatever the readings", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 32 }),
        fc.array(
          fc.tuple(fc.double({ min: 0, max: 5_000, noNaN: true }), fc.double({ min: 0, max: 5_000, noNaN: true })),
        ),
        (max, readings) => {
          const control = new IntakeFirst({ max });
          for (const [delay, since] of readings) {
            const before = control.limit;
            const limit = control.observe(delay, since);
            expect(limit).toBeGreaterThanOrEqual(0);
            expect(limit).toBeLessThanOrEqual(max);
            if (since > INTAKE_BUSY_FOR_MS) expect(limit).toBe(max);
            else if (delay > INTAKE_LATE_MS) expect(limit).toBe(Math.floor(before / 2));
            else expect(limit).toBe(Math.min(max, before + 1));
          }
        },
      ),
    );
  });
});

// Each turn of the worker's while webhooks arrive: held back while the loop has lately been
// busier than its share, so the loop keeps idle time for the deliveries.
describe("the worker's turns while intake is busy", () => {
  it("are held while the loop is busier than the share, and not at or below it", () => {
    expect(turnHoldMs(1, BUSY)).toBe(TURN_HOLD_MS);
    expect(turnHoldMs(INTAKE_LOOP_SHARE + 0.01, 0)).toBe(TURN_HOLD_MS);
    expect(turnHoldMs(INTAKE_LOOP_SHARE, 0)).toBe(0);
    expect(turnHoldMs(0, 0)).toBe(0);
  });

  it("are never held while intake is quiet, however busy the loop", () => {
    expect(turnHoldMs(1, QUIET)).toBe(0);
    expect(turnHoldMs(1, Number.POSITIVE_INFINITY)).toBe(0);
  });

  it("take the share and the quiet time from their options", () => {
    expect(turnHoldMs(0.6, 10, { share: 0.5, busyForMs: 10 })).toBe(TURN_HOLD_MS);
    expect(turnHoldMs(0.5, 10, { share: 0.5, busyForMs: 10 })).toBe(0);
    expect(turnHoldMs(0.6, 11, { share: 0.5, busyForMs: 10 })).toBe(0);
  });

  it("hold for either no time or the set time, whatever the readings", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1e7, noNaN: true }),
        (share, since) => [0, TURN_HOLD_MS].includes(turnHoldMs(share, since)),
      ),
    );
  });
});
