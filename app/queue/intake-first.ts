// Intake first: while webhooks are arriving, the worker gives up event-loop time to them.
//
// Intake and the worker share one event loop. A delivery that waits behind the worker's
// statements waits in front of Shopify, which gives five seconds and counts the misses; an
// order that waits in the queue has the click's hour. So while intake is busy and the loop is
// late, the worker's concurrency is cut by half on each late reading, down to no new job at all
// (jobs already running finish); while the loop keeps time it grows back by one job a reading,
// and once intake has been quiet for a moment the worker has every slot again (decision 014).
// So the worker gets what intake leaves: under a flood intake cannot keep up with, nothing new,
// which the queue keeps durably; under any load intake can answer on time, a steady share.

export interface IntakeFirstOptions {
  /** The worker's concurrency when intake is quiet (WORKER_CONCURRENCY). */
  max: number;
  /** A reading of the loop's delay above this means intake is being kept waiting. */
  lateMs?: number;
  /** Intake counts as busy for this long after its last delivery. */
  busyForMs?: number;
}

/** Loop delay, in milliseconds, above which the worker yields to intake. */
export const INTAKE_LATE_MS = 10;
/** How long after its last delivery intake still counts as busy. */
export const INTAKE_BUSY_FOR_MS = 1_000;

export class IntakeFirst {
  readonly max: number;
  readonly lateMs: number;
  readonly busyForMs: number;
  #limit: number;

  constructor(options: IntakeFirstOptions) {
    this.max = Math.max(1, options.max);
    this.lateMs = options.lateMs ?? INTAKE_LATE_MS;
    this.busyForMs = options.busyForMs ?? INTAKE_BUSY_FOR_MS;
    this.#limit = this.max;
  }

  /** How many jobs the worker may run at once now. */
  get limit(): number {
    return this.#limit;
  }

  /**
   * One reading: the loop's worst delay since the last reading, and how long ago intake last
   * recorded a delivery (Infinity when never). Returns the new limit.
   */
  observe(loopDelayMs: number, sinceIntakeMs: number): number {
    if (sinceIntakeMs > this.busyForMs) this.#limit = this.max;
    else if (loopDelayMs > this.lateMs) this.#limit = Math.floor(this.#limit / 2);
    else this.#limit = Math.min(this.max, this.#limit + 1);
    return this.#limit;
  }
}
