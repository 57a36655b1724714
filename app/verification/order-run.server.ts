import { randomUUID } from "node:crypto";
import { Prisma, type Verification } from "@prisma/client";
import type { ClickServiceClient } from "../click-service";
import type { JobContext } from "../queue/runner.server";
import { MAX_ATTEMPTS, type Transition } from "../queue/job-states";
import type { OfflineAdmin } from "../shopify-admin/offline-admin.server";
import type { ServerSettings } from "../settings/shop-settings.server";
import { insertRows, updateRow, updateWhere, type Sql } from "../database/sql.server";
import { GAVE_UP_ON_LIFETIME, nextAttempt } from "./retry-policy";
import type { Outcome } from "./outcomes";

// What every step of one order's verification shares: the job it runs in, the outside parties
// it talks to, and the few ways a step writes (all fenced by the job's lease).

export interface PipelineDeps {
  clickService(settings: ServerSettings): ClickServiceClient;
  /** The shop's Admin API client, or why there is none and whether waiting can help. */
  shopifyAdmin(shop: string): Promise<OfflineAdmin>;
}

/** What a step writes besides its own fields, in the same transaction. */
export interface Change {
  data?: Partial<Verification>;
  also?: (tx: Sql) => Promise<unknown>;
}

/** A step either hands the order on (its row as it now stands) or ends this run of the job. */
export type StepResult = { row: Verification } | { end: Transition };

export class OrderRun {
  /** The order's row as this run last read or wrote it, with what it has learned since. */
  #row: Verification | null = null;
  /** What keep() was given and is not written yet: it goes with this run's next write. */
  #pending: Change = {};

  constructor(
    readonly ctx: JobContext,
    readonly deps: PipelineDeps,
  ) {}

  get now(): Date {
    return this.ctx.now();
  }

  /** Whether the job may run again after this attempt. */
  attemptsLeft(): boolean {
    return this.ctx.job.attempts < MAX_ATTEMPTS;
  }

  /** The row this run starts from; from here on, the run keeps it current. */
  start(row: Verification): Verification {
    this.#row = row;
    return row;
  }

  /** What is pending and `change` after it, as one change; nothing is pending afterwards. */
  #take(change: Change): Change {
    const pending = this.#pending;
    this.#pending = {};
    const first = pending.also;
    const then = change.also;
    return {
      data: pending.data || change.data ? { ...pending.data, ...change.data } : undefined,
      also:
        first && then
          ? async (tx) => {
              await first(tx);
              await then(tx);
            }
          : (first ?? then),
    };
  }

  /** A fenced write of the job's own (an attempt log entry, a mark), with what is pending before it. */
  async write<T>(fn: (tx: Sql) => Promise<T>, transition?: Transition): Promise<T> {
    const pending = this.#take({});
    return this.ctx.write(async (tx) => {
      if (pending.also) await pending.also(tx);
      if (pending.data) await this.updateRow(tx, pending.data);
      return fn(tx);
    }, transition);
  }

  /** Writes what keep() holds, if anything, before an outside call that could fail the run. */
  async flush(): Promise<void> {
    if (this.#pending.data || this.#pending.also) await this.write(async () => undefined);
  }

  /**
   * One fenced update of the order's row (its updatedAt at least), with what is pending,
   * `change.also`, and an optional transition.
   */
  private async commit(change: Change, transition?: Transition): Promise<Verification> {
    this.#pending = this.#take({ ...change, data: change.data ?? {} });
    return this.write(async () => this.#row!, transition);
  }

  /** The order's row with `data` written (and its updatedAt), as it now stands; the run keeps it. */
  async updateRow(tx: Sql, data: Partial<Verification>): Promise<Verification> {
    const row = await updateRow<Verification>(tx, "Verification", this.ctx.job.subject, {
      ...data,
      updatedAt: this.now,
    });
    // Redacted while the job ran: the fault path retries, and the next run finds nothing to do.
    if (!row) throw new Error("the order's verification is gone");
    this.#row = row;
    return row;
  }

  /** Records progress; the job goes on. */
  async update(data: Partial<Verification>, also?: Change["also"]): Promise<Verification> {
    return this.commit({ data, also });
  }

  /**
   * Records progress with the run's next write, which comes before any outside call (flush()):
   * a verdict lands with the order's credit, or with the deferral of its tag write, one
   * transaction instead of two. Should the run fail in between, the verdict is lost as an answer
   * lost on the way is, and the next run settles it the same way (lookup-click, then the
   * landing record).
   */
  async keep(data: Partial<Verification>, also?: Change["also"]): Promise<Verification> {
    if (!this.#row) return this.update(data, also);
    this.#pending = this.#take({ data, also });
    this.#row = { ...this.#row, ...data };
    return this.#row;
  }

  /** Ends the order with an outcome; the job is done in the same transaction. */
  async end(outcome: Outcome, reason: string | null, change: Change = {}): Promise<{ end: Transition }> {
    await this.commit(
      { ...change, data: { ...change.data, outcome, reason, completedAt: this.now } },
      { to: "finish" },
    );
    return { end: { to: "finish" } };
  }

  /** Parks the order (outcome "rejected") until the merchant saves a key that works. */
  async park(reason: string, change: Change = {}): Promise<StepResult> {
    const transition: Transition = { to: "park", error: reason };
    await this.commit({ ...change, data: { ...change.data, outcome: "rejected", reason } }, transition);
    return { end: transition };
  }

  /**
   * Tries again later, within the click's life when a deadline is given. When no retry fits
   * before that life ends, `lifeEnded` may still decide (from what the app itself recorded);
   * otherwise, or when the attempts are used up, the order ends as failed, with the last error.
   */
  async retry(deadline: Date | null, error: string, change?: Change): Promise<{ end: Transition }>;
  async retry(
    deadline: Date | null,
    error: string,
    change: Change,
    lifeEnded: () => Promise<StepResult | null>,
  ): Promise<StepResult>;
  async retry(
    deadline: Date | null,
    error: string,
    change: Change = {},
    lifeEnded?: () => Promise<StepResult | null>,
  ): Promise<StepResult> {
    const step = nextAttempt(this.ctx.job.attempts, this.now, deadline, this.ctx.random);
    if ("giveUp" in step) {
      const decided = step.giveUp === GAVE_UP_ON_LIFETIME && lifeEnded ? await lifeEnded() : null;
      return decided ?? this.end("failed", `${step.giveUp} (last error: ${error})`, change);
    }
    const transition: Transition = { to: "retry", at: step.retryAt, error };
    await this.commit({ ...change, data: { ...change.data, lastError: error } }, transition);
    return { end: transition };
  }

  /** Comes back at a time of the step's choosing (a shop's API bucket refilling); not a failure. */
  async defer(at: Date, reason: string): Promise<{ end: Transition }> {
    const transition: Transition = { to: "defer", at, reason };
    await this.commit({}, transition);
    return { end: transition };
  }

  /** Starts an attempt-log entry for a call about to go out; returns its id. */
  async startAttempt(tx: Sql, step: string): Promise<string> {
    const id = randomUUID();
    await insertRows(tx, "VerificationAttempt", [
      {
        id,
        verificationId: this.ctx.job.subject,
        number: this.ctx.job.attempts,
        step,
        result: "started",
        startedAt: this.now,
      },
    ]);
    return id;
  }

  async endAttempt(tx: Sql, id: string, result: string, error: string | null = null): Promise<void> {
    await updateWhere(tx, "VerificationAttempt", Prisma.sql`"id" = ${id}`, { result, error, finishedAt: this.now });
  }
}
