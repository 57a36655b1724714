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
//
// Slots bound how many jobs run, not how much of the loop they take: jobs whose outside calls
// answer in a millisecond keep the loop full with two slots. So while intake is busy each turn
// of the worker's (turns.ts) is also held back while the loop has lately been busy more than a
// set share of the time (decision 018): the rest is idle time, in which a delivery that arrives
// is read at once instead of queueing behind the worker's stretches and the collections its
// garbage brings.

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

/** While intake is busy, the worker's turns wait while the loop is busier than this share. */
export const INTAKE_LOOP_SHARE = 0.3;
/** How long a held turn waits before the loop's share is looked at again. */
export const TURN_HOLD_MS = 2;

export interface TurnHoldOptions {
  share?: number;
  busyForMs?: number;
}

/**
 * How long to keep the worker's next turn back, in milliseconds (0: not at all), given the
 * loop's busy share over the last few tens of milliseconds (0 to 1) and how long ago intake
 * last recorded a delivery (Infinity when never).
 */
export function turnHoldMs(loopBusyShare: number, sinceIntakeMs: number, options: TurnHoldOptions = {}): number {
  if (sinceIntakeMs > (options.busyForMs ?? INTAKE_BUSY_FOR_MS)) return 0;
  return loopBusyShare > (options.share ?? INTAKE_LOOP_SHARE) ? TURN_HOLD_MS : 0;
}

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
