import { Prisma } from "@prisma/client";
import { Gauge, type Registry } from "prom-client";
import { sqlTime } from "../database/db.server";
import { readDate, sql } from "../database/sql.server";
import { Job } from "../database/tables";

// How the queue stands, read from the Job table when Prometheus scrapes: how many jobs are due
// and not yet running (the backlog), waiting for a later time, running and parked, and how long
// the oldest due job has waited. These are the database's figures, the same on every instance
// that shares it: aggregate them with max(), not sum(). Registered by the instance on its main
// thread only (app/instance/start.server.ts), so a scrape reads them once. The queue's own
// module (app/queue) writes every job; this only counts rows.

/** What a job's row says, as counted: due (queued, its time has come), waiting (queued for later), running, parked. */
const COUNTED_STATES = ["due", "waiting", "running", "parked"] as const;
/** A scrape that cannot read the table in this time reports no queue figures rather than wait. */
const READ_TIMEOUT_MS = 2_000;

interface Snapshot {
  counts: { kind: string; state: string; jobs: number }[];
  oldestDue: Map<string, Date>;
  at: Date;
}

async function readQueue(now: Date): Promise<Snapshot> {
  const at = sqlTime(now);
  const rows = await sql.rows<{ kind: string; state: string; jobs: unknown; oldestDue: unknown }>(Prisma.sql`
    SELECT ${Job.kind},
           CASE WHEN ${Job.state} = 'queued' AND ${Job.runAt} <= ${at} THEN 'due'
                WHEN ${Job.state} = 'queued' THEN 'waiting'
                ELSE ${Job.state} END AS "state",
           COUNT(*) AS "jobs",
           MIN(CASE WHEN ${Job.state} = 'queued' AND ${Job.runAt} <= ${at} THEN ${Job.runAt} END) AS "oldestDue"
    FROM ${Job} WHERE ${Job.state} IN ('queued', 'running', 'parked')
    GROUP BY 1, 2`);
  const oldestDue = new Map<string, Date>();
  for (const row of rows) if (row.oldestDue != null) oldestDue.set(row.kind, readDate(row.oldestDue));
  return {
    counts: rows.map((row) => ({ kind: row.kind, state: row.state, jobs: Number(row.jobs) })),
    oldestDue,
    at: now,
  };
}

/**
 * Registers the queue's gauges in `registry`; each scrape reads the table once for both. Every
 * kind in `jobKinds` (the queue's, app/queue/job-states.ts) reports 0 rather than nothing when
 * it has no job, so an alert on a figure never finds it missing.
 */
export function registerQueueGauges(
  registry: Registry,
  jobKinds: readonly string[],
  now: () => Date = () => new Date(),
): void {
  const kinds = new Set<string>(jobKinds);
  let reading: { at: number; snapshot: Promise<Snapshot | null> } | undefined;
  const snapshot = () => {
    // The two gauges of one scrape share one read.
    if (reading && Date.now() - reading.at < 1_000) return reading.snapshot;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), READ_TIMEOUT_MS);
    });
    const read = readQueue(now()).catch(() => null);
    reading = { at: Date.now(), snapshot: Promise.race([read, late]).finally(() => clearTimeout(timer)) };
    return reading.snapshot;
  };

  new Gauge({
    name: "tagguard_queue_jobs",
    help: "Jobs in the queue by kind and state: due (its time has come, not yet running: the backlog), waiting (for a later time: a retry's backoff, a shop's API bucket, the next sweep), running, parked (waits for the merchant). The database's figure, the same on every instance",
    labelNames: ["kind", "state"] as const,
    registers: [registry],
    async collect() {
      const read = await snapshot();
      this.reset();
      // No series while the table cannot be read: a stale figure would look like a healthy one.
      if (!read) return;
      for (const { kind } of read.counts) kinds.add(kind);
      for (const kind of kinds) for (const state of COUNTED_STATES) this.set({ kind, state }, 0);
      for (const { kind, state, jobs } of read.counts) this.set({ kind, state }, jobs);
    },
  });

  new Gauge({
    name: "tagguard_queue_oldest_due_job_age_seconds",
    help: "How long the oldest due job of each kind has waited past its time without being claimed (0 when none is due). The database's figure, the same on every instance",
    labelNames: ["kind"] as const,
    registers: [registry],
    async collect() {
      const read = await snapshot();
      this.reset();
      if (!read) return;
      for (const { kind } of read.counts) kinds.add(kind);
      for (const kind of kinds) {
        const oldest = read.oldestDue.get(kind);
        this.set({ kind }, oldest ? Math.max(0, (read.at.getTime() - oldest.getTime()) / 1000) : 0);
      }
    },
  });
}
