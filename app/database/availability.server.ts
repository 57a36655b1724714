import { Prisma } from "@prisma/client";
import { sql } from "./sql.server";

// Whether the database answers now: for the health check and the admin, which tell a merchant
// (or a load balancer) that it does not, rather than fail on it or wait on it.

/** How long a trivial statement may take before the database counts as not answering. */
export const DATABASE_ANSWER_MS = 2_000;

export async function databaseAnswers(timeoutMs = DATABASE_ANSWER_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const answer = sql.rows(Prisma.sql`SELECT 1`).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** How often the monitor asks; also the grain of the unavailable seconds it counts. */
export const PROBE_INTERVAL_MS = 1_000;

export interface DatabaseMonitor {
  /** The last probe's answer (true until the first one says otherwise). */
  up(): boolean;
  stop(): void;
}

/** What one probe found: whether the database answers, and the seconds since the last probe it was found not to. */
export interface Probe {
  up: boolean;
  /** Time since the previous probe, when that one found the database not answering. */
  unavailableSeconds: number;
  /** Set when `up` differs from the previous probe's: for how long it was down, when it came back. */
  changed?: { downSeconds: number };
}

/**
 * Asks the database every PROBE_INTERVAL_MS whether it answers, for readiness and the metrics
 * (the instance wires both, app/instance/start.server.ts). The time between two probes counts as
 * unavailable when the first of them found it so; a probe that does not answer within the
 * interval counts as a failure. Started by the instance, never at import.
 */
export function startDatabaseMonitor(onProbe: (probe: Probe) => void): DatabaseMonitor {
  let up = true;
  let downSince = 0;
  let lastProbe = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const probe = async () => {
    const answers = await databaseAnswers(PROBE_INTERVAL_MS);
    const now = Date.now();
    const unavailableSeconds = up ? 0 : (now - lastProbe) / 1000;
    lastProbe = now;
    let changed: Probe["changed"];
    if (answers !== up) {
      up = answers;
      if (!up) downSince = now;
      changed = { downSeconds: up ? (now - downSince) / 1000 : 0 };
    }
    onProbe({ up, unavailableSeconds, ...(changed && { changed }) });
    if (!stopped) schedule();
  };
  const schedule = (inMs = PROBE_INTERVAL_MS) => {
    timer = setTimeout(() => void probe(), inMs);
    timer.unref();
  };
  // The first probe at once: the metrics and readiness start from what the database says.
  schedule(0);
  return {
    up: () => up,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
