import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Sql } from "../database/sql.server";
import { countJob, countJobGivenUp } from "../metrics/registry.server";
import { env } from "../platform/env.server";
import { logger } from "../platform/logger.server";
import { LeaseLost, MAX_ATTEMPTS, type ClaimedJob, type JobKind, type Transition } from "./job-states";
import { claim, fenced, nextDue, releaseAfterFault, renew, settle } from "./queue.server";
import { nextTurn } from "./turns";
import { onWake } from "./wake.server";

// Runs jobs inside the app's server process. It wakes when work is queued in this process, when
// the next queued job falls due, and on a poll, so work survives restarts and reaches every
// instance. While a job runs its lease is renewed, so no outside call can outlive it unnoticed:
// when renewal fails the job's signal aborts, and its next write is refused by the fence anyway.

/** How long a runner with no room and nothing running waits before it asks its limit again. */
const NO_ROOM_WAIT_MS = 50;

/**
 * The least wait for a job that is already due but was not claimed: another instance may hold
 * it in a claim that has not committed yet (PostgreSQL skips locked rows).
 */
const DUE_AGAIN_MS = 10;

export interface JobContext {
  readonly job: ClaimedJob;
  now(): Date;
  random(): number;
  /** Aborted when the lease is lost or the worker stops; every outside call takes it. */
  readonly signal: AbortSignal;
  /**
   * Domain writes, fenced by the lease. With a transition the job's state changes in the same
   * transaction, and the job has ended.
   */
  write<T>(fn: (tx: Sql) => Promise<T>, transition?: Transition): Promise<T>;
}

export interface JobHandler {
  /** Takes the job as far as it can; returns how it ends, or null when it ended through write(). */
  run(ctx: JobContext): Promise<Transition | null>;
  /** Its attempts are used up: record why (fenced); the queue then marks it done. */
  giveUp(ctx: JobContext, reason: string): Promise<void>;
}

export type JobHandlers = Record<JobKind, JobHandler>;

export interface RunnerOptions {
  handlers: JobHandlers;
  owner?: string;
  concurrency: number;
  /** A lower limit that can change from moment to moment (intake-first.server.ts); concurrency caps it. */
  limit?: () => number;
  pollIntervalMs: number;
  /**
   * Whether each stretch of a job's work waits for a turn of the event loop (turns.ts), which
   * matters when the loop serves webhooks too; true unless the worker has a thread of its own.
   */
  takeTurns?: boolean;
  leaseMs?: number;
  now?: () => Date;
  random?: () => number;
  /**
   * Runs only when runOnce is called: no first run at start, no polling, no wake-ups from
   * enqueued work. For tests that step the queue and look at what lies between two steps.
   */
  byHand?: boolean;
}

export interface JobRunner {
  readonly owner: string;
  /** Claims and runs everything due now; resolves when that batch (and what it made due) is done. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export function startJobRunner(options: RunnerOptions): JobRunner {
  const owner = options.owner ?? `worker-${randomUUID()}`;
  const leaseMs = options.leaseMs ?? env().WORKER_LEASE_MS;
  const now = options.now ?? (() => new Date());
  const random = options.random ?? Math.random;
  const turn = options.takeTurns === false ? () => Promise.resolve() : nextTurn;
  const inFlight = new Set<Promise<void>>();
  const stopping = new AbortController();
  let ticking: Promise<number> | null = null;
  let again = false;

  async function execute(job: ClaimedJob): Promise<void> {
    const handler = options.handlers[job.kind];
    const lease = new AbortController();
    const signal = AbortSignal.any([lease.signal, stopping.signal]);
    let settled = false;
    const ctx: JobContext = {
      job,
      now,
      random,
      signal,
      async write(fn, transition) {
        await turn();
        if (lease.signal.aborted) throw new LeaseLost(job.id);
        const result = await fenced(job, now(), fn, transition);
        if (transition) settled = true;
        return result;
      },
    };
    // The lease runs out leaseMs after the claim or the last renewal that went through. A renewal
    // that fails (the database unreachable) must not let the job outlive it: another worker may
    // claim it then, so the job stops one beat before, outside calls and all.
    const beatMs = leaseMs / 3;
    let heldUntil = now().getTime() + leaseMs;
    const heartbeat = setInterval(() => {
      const at = now();
      if (at.getTime() + beatMs >= heldUntil) return void lease.abort(new LeaseLost(job.id));
      renew(job, at, leaseMs).then(
        (held) => {
          if (!held) lease.abort(new LeaseLost(job.id));
          else heldUntil = Math.max(heldUntil, at.getTime() + leaseMs);
        },
        (error: unknown) =>
          logger.warn("job.lease_renewal_failed", "could not renew a job's lease", { jobId: job.id, error }),
      );
    }, beatMs);
    heartbeat.unref();
    const giveUp = async (reason: string) => {
      await handler!.giveUp(ctx, reason);
      if (!settled) await settle(job, { to: "finish" }, now());
      countJobGivenUp(job.kind);
    };
    try {
      await turn();
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      if (job.attempts > MAX_ATTEMPTS) return await giveUp(`gave up after ${MAX_ATTEMPTS} attempts`);
      const transition = await handler.run(ctx);
      if (!settled) await settle(job, transition ?? { to: "finish" }, now());
    } catch (error) {
      if (error instanceof LeaseLost) {
        countJob(job.kind, "lease_lost");
        logger.warn("job.lease_lost", "job lease lost; another worker took over", { jobId: job.id, kind: job.kind });
        return;
      }
      // An unexpected fault (database busy, a bug): back in the queue, never dropped, but
      // counted, so a fault that repeats ends with its message instead of looping.
      const message = error instanceof Error ? error.message : String(error);
      logger.error("job.failed", "job failed; will retry", { jobId: job.id, kind: job.kind, error });
      try {
        if (handler && job.attempts >= MAX_ATTEMPTS && !lease.signal.aborted) {
          await giveUp(`internal error: ${message}`).catch(async () => {
            await releaseAfterFault(job, message, now(), random);
          });
        } else {
          await releaseAfterFault(job, message, now(), random);
        }
      } catch (releaseError) {
        logger.error("job.release_failed", "could not release a job after a fault", {
          jobId: job.id,
          error: releaseError,
        });
      }
    } finally {
      clearInterval(heartbeat);
    }
  }

  async function drain(): Promise<number> {
    let total = 0;
    let full: boolean;
    let drained: boolean;
    do {
      again = false;
      const slots = Math.min(options.concurrency, options.limit?.() ?? options.concurrency);
      const room = slots - inFlight.size;
      // No room (the limit fell below what runs): nothing was asked for, so more may be due.
      full = room <= 0;
      // A claim is a statement over the queue's indexes, as dear as any write of a job: while
      // jobs run, claim a quarter of the slots at once rather than one as each job ends.
      const worthClaiming = inFlight.size === 0 || room >= Math.ceil(slots / 4);
      const asking = !stopping.signal.aborted && !full && worthClaiming;
      const jobs = asking ? await claim(owner, room, now(), leaseMs) : [];
      // Nothing more is due only when a claim came back short. Not asking proves nothing: the
      // jobs running may all end in one turn (a group commit answers its members together),
      // and the loop must then claim rather than wait for a wake-up that may never come.
      drained = asking && jobs.length < room;
      total += jobs.length;
      for (const job of jobs) {
        const running = execute(job).finally(() => inFlight.delete(running));
        inFlight.add(running);
      }
      if (inFlight.size > 0) await Promise.race(inFlight);
      // A limit of none and nothing running: ask the limit again shortly rather than spin.
      else if (full) await sleep(NO_ROOM_WAIT_MS, undefined, { signal: stopping.signal }).catch(() => {});
      // Go round while anything runs, was asked for, or may still be due.
    } while (!stopping.signal.aborted && (again || full || inFlight.size > 0 || !drained));
    return total;
  }

  function runOnce(): Promise<number> {
    if (ticking) {
      again = true;
      return ticking;
    }
    ticking = drain().finally(() => {
      ticking = null;
    });
    // Once per drain, however many wake-ups joined it (a failed drain is its caller's to report).
    ticking.then(
      () =>
        wakeWhenDue().catch((error: unknown) =>
          logger.warn("queue.next_due_failed", "could not look up the next due job", { error }),
        ),
      () => {},
    );
    return ticking;
  }

  // A drain ends once nothing is due. What falls due next (a write deferred to the shop's
  // bucket, a retry's backoff, a job that finishing put straight back) runs at its time rather
  // than at the next poll; one timer, for the earliest, and only when it comes before the poll.
  let dueTimer: NodeJS.Timeout | undefined;
  /** The due time the timer is set for. */
  let dueAt = Number.POSITIVE_INFINITY;
  async function wakeWhenDue(): Promise<void> {
    const at = await nextDue();
    if (!at || stopping.signal.aborted || at.getTime() >= dueAt) return;
    const wait = Math.max(DUE_AGAIN_MS, at.getTime() - now().getTime());
    if (wait >= options.pollIntervalMs) return;
    clearTimeout(dueTimer);
    dueAt = at.getTime();
    dueTimer = setTimeout(() => {
      dueAt = Number.POSITIVE_INFINITY;
      kick();
    }, wait);
    dueTimer.unref();
  }

  const kick = () => {
    if (!options.byHand && !stopping.signal.aborted)
      runOnce().catch((error: unknown) => logger.error("queue.tick_failed", "job runner tick failed", { error }));
  };
  const unsubscribe = onWake(kick);
  const timer = setInterval(kick, options.pollIntervalMs);
  timer.unref();
  kick();

  return {
    owner,
    runOnce,
    async stop() {
      stopping.abort(new Error("the worker is stopping"));
      unsubscribe();
      clearInterval(timer);
      clearTimeout(dueTimer);
      await Promise.allSettled([...inFlight, ticking]);
    },
  };
}
