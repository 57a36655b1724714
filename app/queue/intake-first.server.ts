import { monitorEventLoopDelay } from "node:perf_hooks";
import { IntakeFirst } from "./intake-first";

// The readings IntakeFirst (intake-first.ts) works from: the event loop's delay, sampled by
// Node's own monitor, and the time of intake's last delivery in this process.

/** How often the worker's limit is reconsidered. */
const READING_INTERVAL_MS = 100;

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
  return {
    limit: () => control.limit,
    stop: () => {
      clearInterval(timer);
      delay.disable();
    },
  };
}
