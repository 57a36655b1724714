import { monitorEventLoopDelay, performance, type EventLoopUtilization } from "node:perf_hooks";
import { IntakeFirst, turnHoldMs } from "./intake-first";
import { holdTurns } from "./turns";

// The readings intake first (intake-first.ts) works from: the event loop's delay, sampled by
// Node's own monitor; its busy share, from Node's utilization counters; and the time of
// intake's last delivery in this process.

/** How often the worker's limit is reconsidered. */
const READING_INTERVAL_MS = 100;
/** The loop's busy share is taken over the last one to two of these. */
const SHARE_WINDOW_MS = 20;

let lastIntakeAt = Number.NEGATIVE_INFINITY;

/** Intake calls this for every delivery it takes, before writing it. */
export function intakeArrived(): void {
  lastIntakeAt = performance.now();
}

export interface IntakeFirstLimit {
  /** How many jobs the worker may run at once now. */
  limit(): number;
  stop(): void;
}

export function startIntakeFirst(max: number): IntakeFirstLimit {
  const control = new IntakeFirst({ max });
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const timer = setInterval(() => {
    // The histogram is in nanoseconds; its max is the worst wait since the last reading.
    control.observe(delay.max / 1e6, performance.now() - lastIntakeAt);
    delay.reset();
  }, READING_INTERVAL_MS);
  timer.unref();
  const unhold = holdTurns(loopShareHold());
  return {
    limit: () => control.limit,
    stop: () => {
      clearInterval(timer);
      delay.disable();
      unhold();
    },
  };
}

/** Decides each turn's hold from the loop's busy share since the start of the previous window. */
function loopShareHold(): () => number {
  let windowStart: EventLoopUtilization = performance.eventLoopUtilization();
  let previousStart = windowStart;
  let windowStartedAt = performance.now();
  return () => {
    const at = performance.now();
    const current = performance.eventLoopUtilization();
    const share = performance.eventLoopUtilization(current, previousStart).utilization;
    if (at - windowStartedAt >= SHARE_WINDOW_MS) {
      previousStart = windowStart;
      windowStart = current;
      windowStartedAt = at;
    }
    return turnHoldMs(share, at - lastIntakeAt);
  };
}
