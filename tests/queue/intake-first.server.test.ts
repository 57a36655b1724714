import { afterEach, describe, expect, it } from "vitest";
import { INTAKE_LATE_MS } from "../../app/queue/intake-first";
import { intakeArrived, startIntakeFirst, type IntakeFirstLimit } from "../../app/queue/intake-first.server";
import { nextTurn } from "../../app/queue/turns";

// The readings behind the worker's limit, on the real event loop: a delivery marks intake busy,
// a loop held well past the threshold is read as late, and a second of quiet gives every slot back.
// (A late loop without deliveries leaves every slot: tests/queue/intake-first.test.ts.)

const started: IntakeFirstLimit[] = [];
afterEach(() => started.splice(0).forEach((control) => control.stop()));

/** Keeps the event loop busy, as a burst of synchronous work would. */
function holdTheLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

describe("intake first, read from the event loop", () => {
  it("cuts the worker's slots while deliveries arrive and the loop is held, and restores them once intake is quiet", async () => {
    const control = startIntakeFirst(16);
    started.push(control);
    expect(control.limit()).toBe(16);

    // Deliveries keep arriving and each one holds the loop, until a reading has seen both (on a
    // loaded machine the first reading may come late enough to find intake quiet again).
    await expect
      .poll(
        () => {
          intakeArrived();
          holdTheLoop(INTAKE_LATE_MS * 5);
          return control.limit();
        },
        { timeout: 10_000, interval: 20 },
      )
      .toBeLessThan(16);

    // No delivery since: after a second of quiet the worker has every slot again.
    await expect.poll(() => control.limit(), { timeout: 10_000, interval: 100 }).toBe(16);
  });

  it("holds the worker's turns while deliveries keep the loop busy, and hands them out once it is idle again", async () => {
    started.push(startIntakeFirst(16));
    // A flood: every iteration of the loop records a delivery and is busy for 2 ms. Unheld, the
    // worker would get a turn in each of them (turns.ts); held, it waits for idle time.
    const FLOOD_ITERATIONS = 100;
    let handedOut = 0;
    const asking = (async () => {
      for (let i = 0; i < FLOOD_ITERATIONS; i++) {
        await nextTurn();
        handedOut += 1;
      }
    })();
    const turnsDuringFlood = await new Promise<number>((resolve) => {
      let iteration = 0;
      const flood = () => {
        intakeArrived();
        holdTheLoop(2);
        iteration += 1;
        if (iteration < FLOOD_ITERATIONS) setImmediate(flood);
        else resolve(handedOut);
      };
      setImmediate(flood);
    });
    expect(turnsDuringFlood).toBeLessThan(FLOOD_ITERATIONS / 2);
    // The flood over, the loop idles and the rest are handed out.
    await asking;
    expect(handedOut).toBe(FLOOD_ITERATIONS);
  });
});
