import { Prisma, type Job } from "@prisma/client";
import { sqlTime } from "../database/db.server";
import { claimJobs, lockRows, sharedCommit, sharedStatement } from "../database/dialect-sql.server";
import {
  insertRows,
  readDate,
  rowsMatching,
  rowsOf,
  type RowValue,
  sql,
  type Sql,
  updateWhere,
} from "../database/sql.server";
import { countJob, type JobResult } from "../metrics/registry.server";
import { backoffDelay } from "./backoff";
import { LeaseLost, type ClaimedJob, type JobKind, type JobState, type Transition } from "./job-states";
import { Job as JobTable } from "../database/tables";

// Every change of a job's state, lease or attempts happens here and nowhere else (the
// transitions are drawn in job-states.ts). Writes by a running job are fenced: each one checks,
// in the same transaction, that the worker still holds the lease, so a worker that lost it
// (paused, partitioned, presumed dead) can never overwrite the one that took over.

export interface NewJob {
  shop: string;
  kind: JobKind;
  subject: string;
  runAt: Date;
}

/** Queues jobs inside the caller's transaction; a job that already exists for its subject is left as it is. */
export async function enqueue(tx: Sql, jobs: NewJob[], now: Date): Promise<void> {
  if (jobs.length === 0) return;
  const existing = await rowsMatching(
    tx,
    "Job",
    ["kind", "subject"],
    jobs.map(({ kind, subject }) => ({ kind, subject })),
  );
  const taken = new Set(existing.map((job) => `${job.kind} ${job.subject}`));
  await enqueueNew(
    tx,
    jobs.filter((job) => !taken.has(`${job.kind} ${job.subject}`)),
    now,
  );
}

/**
 * Queues jobs for subjects created in the caller's transaction: none can have a job yet, so
 * nothing is read first (intake's group commit saves a statement per group).
 */
export async function enqueueNew(tx: Sql, jobs: NewJob[], now: Date): Promise<void> {
  if (jobs.length === 0) return;
  await insertRows(
    tx,
    "Job",
    jobs.map((job) => ({ ...job, state: "queued", createdAt: now, updatedAt: now })),
  );
}

interface ClaimedRow {
  id: string;
  shop: string;
  kind: string;
  subject: string;
  attempts: number | bigint | string;
  runAt: unknown;
}

/**
 * Claims up to `limit` due jobs in one statement: queued ones whose time has come, and running
 * ones whose lease ran out (their worker died). Each claim counts an attempt. On PostgreSQL,
 * rows another instance is claiming are skipped rather than waited for.
 */
export async function claim(owner: string, limit: number, now: Date, leaseMs: number): Promise<ClaimedJob[]> {
  if (limit <= 0) return [];
  const rows = await sql.rows<ClaimedRow>(claimJobs(owner, limit, now, new Date(now.getTime() + leaseMs)));
  // RETURNING keeps no order: jobs start in the order they fell due (a deferred lookup waits
  // behind a newer click's, lookup-pace.server.ts).
  return rows
    .map((row) => ({
      id: row.id,
      shop: row.shop,
      kind: row.kind as JobKind,
      subject: row.subject,
      attempts: Number(row.attempts),
      runAt: readDate(row.runAt),
      owner,
    }))
    .sort((a, b) => a.runAt.getTime() - b.runAt.getTime());
}

/**
 * When the next queued job falls due (it may already be due), or null when none is queued:
 * deferred and retried jobs, and a job that finishing put straight back (rerun).
 */
export async function nextDue(): Promise<Date | null> {
  const [row] = await sql.rows<{ runAt: unknown }>(
    Prisma.sql`SELECT MIN(${JobTable.runAt}) AS ${JobTable.runAt} FROM ${JobTable} WHERE ${JobTable.state} = 'queued'`,
  );
  return row?.runAt == null ? null : readDate(row.runAt);
}

/** `"id" = job AND held by this worker`: the fence on every write a running job makes. */
function held(job: ClaimedJob): Prisma.Sql {
  return Prisma.sql`${JobTable.id} = ${job.id} AND ${JobTable.leaseOwner} = ${job.owner} AND ${JobTable.state} = 'running'`;
}

/** Extends the lease of a job this worker still holds; false when it no longer does. */
export async function renew(job: ClaimedJob, now: Date, leaseMs: number): Promise<boolean> {
  const count = await updateWhere(sql, "Job", held(job), {
    leaseExpiresAt: new Date(now.getTime() + leaseMs),
    updatedAt: now,
  });
  return count === 1;
}

/**
 * Runs `write` in one transaction with a proof that this worker still holds the job's lease,
 * and applies `transition` in that same transaction when one is given: the job's domain writes
 * and its state change land together or not at all. Throws LeaseLost when the lease is gone.
 */
export async function fenced<T>(
  job: ClaimedJob,
  now: Date,
  write: (tx: Sql) => Promise<T>,
  transition?: Transition,
): Promise<T> {
  const result = await sharedCommit(async (tx) => {
    // The fence's statement goes out with the write's first ones (pipelined on PostgreSQL) and is
    // read before COMMIT: a lease found lost rolls the write back, as if it had never begun.
    const fence = transition ? applyTransition(tx, job, transition, now) : holdLease(tx, job, now);
    fence.catch(() => {}); // read below; until then its failure is no unhandled rejection
    let written: T;
    try {
      written = await write(tx);
    } catch (error) {
      await fence;
      throw error;
    }
    await fence;
    return written;
  });
  if (transition) countJob(job.kind, RESULTS[transition.to]);
  return result;
}

/**
 * Applies a transition on its own (no domain write goes with it): one statement, which on
 * SQLite joins a group's commit and on PostgreSQL needs no transaction of its own.
 */
export async function settle(job: ClaimedJob, transition: Transition, now: Date): Promise<void> {
  await sharedStatement((tx) => applyTransition(tx, job, transition, now));
  countJob(job.kind, RESULTS[transition.to]);
}

/** How a run that ended with each transition is counted (app/metrics), once its transaction committed. */
const RESULTS: Record<Transition["to"], JobResult> = {
  finish: "done",
  retry: "retry",
  defer: "defer",
  park: "park",
};

async function holdLease(tx: Sql, job: ClaimedJob, now: Date): Promise<void> {
  const count = await updateWhere(tx, "Job", held(job), { updatedAt: now });
  if (count !== 1) throw new LeaseLost(job.id);
}

const RELEASED = { leaseOwner: null, leaseExpiresAt: null } as const;

async function applyTransition(tx: Sql, job: ClaimedJob, transition: Transition, now: Date): Promise<void> {
  let count: number;
  switch (transition.to) {
    case "finish":
      // Done, unless something new arrived while the job ran (rerun): then it goes again at once.
      count = await tx.execute(Prisma.sql`
        UPDATE ${JobTable} SET
          ${JobTable.state} = CASE WHEN ${JobTable.rerun} THEN 'queued' ELSE 'done' END,
          ${JobTable.attempts} = CASE WHEN ${JobTable.rerun} THEN 0 ELSE ${JobTable.attempts} END,
          ${JobTable.runAt} = CASE WHEN ${JobTable.rerun} THEN ${sqlTime(now)} ELSE ${JobTable.runAt} END,
          ${JobTable.lastError} = CASE WHEN ${JobTable.rerun} THEN ${JobTable.lastError} ELSE NULL END,
          ${JobTable.rerun} = ${false}, ${JobTable.leaseOwner} = NULL, ${JobTable.leaseExpiresAt} = NULL, ${JobTable.updatedAt} = ${sqlTime(now)}
        WHERE ${held(job)}`);
      break;
    case "retry":
      count = await updateWhere(tx, "Job", held(job), queued(transition.at, transition.error, now));
      break;
    case "defer":
      // Not a failed attempt: the one its claim counted is given back. Something new arrived
      // while it ran (rerun): it comes back at once rather than at its own time.
      count = await updateWhere(tx, "Job", held(job), {
        ...queued(transition.at, transition.reason, now),
        attempts: Prisma.sql`${JobTable.attempts} - 1`,
      });
      if (count === 1)
        await updateWhere(tx, "Job", Prisma.sql`${JobTable.id} = ${job.id} AND ${JobTable.rerun}`, {
          runAt: now,
          rerun: false,
        });
      break;
    case "park":
      count = await updateWhere(tx, "Job", held(job), {
        state: "parked",
        ...RELEASED,
        lastError: clip(transition.error),
        updatedAt: now,
      });
      break;
  }
  if (count !== 1) throw new LeaseLost(job.id);
}

/** Back in the queue at `at`, its lease released, with why. */
function queued(at: Date, why: string, now: Date): Record<string, RowValue> {
  return { state: "queued", runAt: at, ...RELEASED, lastError: clip(why), updatedAt: now };
}

/**
 * After an unexpected fault (a bug, the database busy): back in the queue with backoff, never
 * dropped. The attempt stays counted; once they are used up, the next claim gives the job up
 * (runner.server.ts), so a job always ends with its reason recorded.
 */
export async function releaseAfterFault(
  job: ClaimedJob,
  error: string,
  now: Date,
  random: () => number,
): Promise<boolean> {
  const at = new Date(now.getTime() + backoffDelay(job.attempts, random));
  const released = (await updateWhere(sql, "Job", held(job), queued(at, error, now))) === 1;
  if (released) countJob(job.kind, "fault");
  return released;
}

/** "Retry now": a job that ended (done or parked) runs again at once with a fresh set of attempts. */
export async function requeue(tx: Sql, kind: JobKind, subject: string, now: Date): Promise<boolean> {
  const count = await updateWhere(
    tx,
    "Job",
    Prisma.sql`${JobTable.kind} = ${kind} AND ${JobTable.subject} = ${subject} AND ${JobTable.state} IN ('done', 'parked')`,
    { state: "queued", attempts: 0, rerun: false, runAt: now, ...RELEASED, lastError: null, updatedAt: now },
  );
  return count === 1;
}

/**
 * Standing jobs to run now: each is created if missing, brought forward if queued for later,
 * and started again with fresh attempts if it ended (done or parked); a running one is flagged
 * (rerun), so that what the caller's transaction wrote is read by a run after it.
 *
 * The job's row is held first, until the caller commits (PostgreSQL): a job already queued and
 * due is left as it is, and a worker must not claim it and read the subject before the caller's
 * writes are visible, then finish without them (a PayPal report left pending for good). The
 * claim skips a held row, so it takes the job once the caller has committed; one claimed before
 * is running by then, and is flagged. SQLite's transactions begin IMMEDIATE: nothing claims meanwhile.
 */
export async function dueNow(tx: Sql, jobs: NewJob[], now: Date): Promise<void> {
  if (jobs.length === 0) return;
  await enqueue(tx, jobs, now);
  for (const { kind, subject } of jobs) {
    await lockRows(tx, JobTable, Prisma.sql`${JobTable.kind} = ${kind} AND ${JobTable.subject} = ${subject}`);
    await bringForward(tx, kind, subject, now);
    await requeue(tx, kind, subject, now);
  }
}

/**
 * What a job waits for came: one queued for later (deferred) is due now, and one running is
 * flagged (rerun), so that a deferral it makes meanwhile comes back at once instead (no wake-up
 * is lost). A job done or parked is left alone. Whether one was brought forward or flagged.
 */
export async function bringForward(tx: Sql, kind: JobKind, subject: string, now: Date): Promise<boolean> {
  const mine = Prisma.sql`${JobTable.kind} = ${kind} AND ${JobTable.subject} = ${subject}`;
  const running = await updateWhere(tx, "Job", Prisma.sql`${mine} AND ${JobTable.state} = 'running'`, {
    rerun: true,
    updatedAt: now,
  });
  const waiting = Prisma.sql`${mine} AND ${JobTable.state} = 'queued' AND ${JobTable.runAt} > ${sqlTime(now)}`;
  return running + (await updateWhere(tx, "Job", waiting, { runAt: now, updatedAt: now })) > 0;
}

/** The merchant saved a new API key: every parked job of that kind in the shop runs again. */
export async function unpark(tx: Sql, shop: string, kind: JobKind, now: Date): Promise<number> {
  return updateWhere(
    tx,
    "Job",
    Prisma.sql`${JobTable.shop} = ${shop} AND ${JobTable.kind} = ${kind} AND ${JobTable.state} = 'parked'`,
    {
      state: "queued",
      attempts: 0,
      runAt: now,
      updatedAt: now,
    },
  );
}

/**
 * Something new arrived for a subject (a refund for an order, say): its job runs again. A job
 * still queued, running or parked is flagged first, so one that finishes in between is caught
 * by the second statement, and one that finishes after it sees the flag (no wake-up is lost).
 */
export async function reopen(tx: Sql, kind: JobKind, subject: string, now: Date): Promise<void> {
  const mine = Prisma.sql`${JobTable.kind} = ${kind} AND ${JobTable.subject} = ${subject}`;
  await updateWhere(tx, "Job", Prisma.sql`${mine} AND ${JobTable.state} IN ('queued', 'running', 'parked')`, {
    rerun: true,
    updatedAt: now,
  });
  await updateWhere(tx, "Job", Prisma.sql`${mine} AND ${JobTable.state} = 'done'`, {
    state: "queued",
    rerun: false,
    attempts: 0,
    runAt: now,
    updatedAt: now,
  });
}

/** The job of a subject, as the admin shows it (null when there is none). */
export async function jobOf(
  kind: JobKind,
  subject: string,
): Promise<{ state: JobState; attempts: number; runAt: Date; lastError: string | null } | null> {
  const [job] = await rowsOf<Pick<Job, "state" | "attempts" | "runAt" | "lastError">>(
    sql,
    "Job",
    Prisma.sql`
      SELECT ${JobTable.columns("state", "attempts", "runAt", "lastError")} FROM ${JobTable} WHERE ${JobTable.kind} = ${kind} AND ${JobTable.subject} = ${subject}`,
  );
  return job ? { ...job, state: job.state as JobState } : null;
}

function clip(text: string): string {
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
