import { readdirSync, readFileSync } from "node:fs";
import type { PrismaClient } from "@prisma/client";
import { scrape, total, type Sample } from "../sandbox/prometheus";

// `npm run bench -- --probe`: where a run's database time goes, per order. From the app, its
// own counters (app/database/probe.server.ts, scraped from its metrics port): statements by
// kind, round trips, transactions, time waiting for answers and for pooled connections. From
// PostgreSQL, what only the server knows: its processes' CPU, what its busy backends were
// waiting on (sampled from pg_stat_activity), and its costliest statements
// (pg_stat_statements, which the bench's throwaway cluster preloads when probing).

export interface DatabaseProbeResult {
  perOrder: {
    statements: { read: number; write: number; control: number };
    roundTrips: number;
    transactions: number;
    /** Wall time statements waited for their answers, summed over the order's statements. */
    statementMs: number;
    transactionStartMs: number;
    /** PostgreSQL's own processes' CPU (null on SQLite, or without /proc). */
    serverCpuMs: number | null;
  };
  /** Of pg_stat_activity samples of the app's backends: the share in each state (active, idle, idle in transaction) and wait. */
  backendStates: Record<string, number> | null;
  /** The statements taking most of the server's execution time. */
  topStatements: { query: string; callsPerOrder: number; meanMs: number; shareOfServerTime: number }[] | null;
}

interface Totals {
  app: Sample[];
  serverCpuMs: number | null;
}

/** CPU time of a process and its children (reaped and still running), from /proc. */
function processTreeCpuMs(rootPid: number): number | null {
  const fields = (pid: number | string) => {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  };
  try {
    const root = fields(rootPid);
    // utime, stime, cutime, cstime: fields 14 to 17 (the ones after the command are 1-based from 3).
    let ticks = Number(root[11]) + Number(root[12]) + Number(root[13]) + Number(root[14]);
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const child = fields(entry);
        if (Number(child[1]) === rootPid) ticks += Number(child[11]) + Number(child[12]);
      } catch {
        // The process ended between the listing and the read.
      }
    }
    return ticks * 10;
  } catch {
    return null;
  }
}

export interface ProbeTarget {
  /** The app's metrics port's base URL. */
  metricsUrl: string;
  db: PrismaClient;
  /** The PostgreSQL server's main process, when the bench started it. */
  serverPid: number | null;
  postgresql: boolean;
}

/** Starts probing: call before the run's first delivery; `finish` after its last outcome. */
export async function startDatabaseProbe(
  target: ProbeTarget,
): Promise<{ finish(orders: number): Promise<DatabaseProbeResult> }> {
  const totals = async (): Promise<Totals> => ({
    app: await scrape(target.metricsUrl),
    serverCpuMs: target.serverPid === null ? null : processTreeCpuMs(target.serverPid),
  });
  // A server the bench did not start may not preload pg_stat_statements: the rest still runs.
  const statementStats =
    target.postgresql &&
    (await target.db
      .$executeRawUnsafe("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
      .then(() => target.db.$executeRawUnsafe("SELECT pg_stat_statements_reset()"))
      .then(
        () => true,
        () => false,
      ));
  const before = await totals();
  const states = new Map<string, number>();
  let sampled = 0;
  let sampling = Promise.resolve();
  const timer = setInterval(() => {
    if (!target.postgresql) return;
    sampling = sampling.then(async () => {
      const rows = await target.db.$queryRawUnsafe<{ state: string }[]>(
        `SELECT coalesce(state, 'none') || coalesce(' / ' || wait_event_type || ':' || wait_event, '') AS state
           FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
      for (const { state } of rows) states.set(state, (states.get(state) ?? 0) + 1);
      sampled += rows.length;
    });
  }, 100);

  return {
    async finish(orders) {
      clearInterval(timer);
      await sampling;
      const after = await totals();
      const delta = (name: string, labels: Record<string, string> = {}) =>
        (total(after.app, name, labels) - total(before.app, name, labels)) / orders;
      const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
      const statements = Object.fromEntries(
        (["read", "write", "control"] as const).map((kind) => [
          kind,
          round(delta("tagguard_database_statements_total", { kind })),
        ]),
      ) as DatabaseProbeResult["perOrder"]["statements"];
      const top = statementStats
        ? await target.db.$queryRawUnsafe<{ query: string; calls: bigint; mean: number; share: number }[]>(
            `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query, calls, mean_exec_time AS mean,
                    total_exec_time / nullif(sum(total_exec_time) OVER (), 0) AS share
               FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
              ORDER BY total_exec_time DESC LIMIT 12`,
          )
        : null;
      return {
        perOrder: {
          statements,
          roundTrips: round(delta("tagguard_database_round_trips_total")),
          transactions: round(delta("tagguard_database_transactions_total")),
          statementMs: round(delta("tagguard_database_statement_seconds_total") * 1000, 3),
          transactionStartMs: round(delta("tagguard_database_transaction_start_seconds_total") * 1000, 3),
          serverCpuMs:
            before.serverCpuMs === null || after.serverCpuMs === null
              ? null
              : round((after.serverCpuMs - before.serverCpuMs) / orders, 3),
        },
        backendStates:
          sampled === 0
            ? null
            : Object.fromEntries(
                [...states].sort((a, b) => b[1] - a[1]).map(([state, count]) => [state, round(count / sampled, 3)]),
              ),
        topStatements:
          top?.map((row) => ({
            query: row.query,
            callsPerOrder: round(Number(row.calls) / orders, 3),
            meanMs: round(Number(row.mean), 4),
            shareOfServerTime: round(Number(row.share), 3),
          })) ?? null,
      };
    },
  };
}
