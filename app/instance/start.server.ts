import { startBackgroundWork, startWorkerThread, stopBackgroundWork } from "../background.server";
import { startDatabaseMonitor, type DatabaseMonitor, type Probe } from "../database/availability.server";
import { closeDatabase, startDatabaseCheckpoints } from "../database/db.server";
import { migrationState, shippedMigrations } from "../database/migrations.server";
import { startMetricsEndpoint } from "../metrics/endpoint.server";
import { registerQueueGauges } from "../metrics/queue-gauges.server";
import { addDatabaseUnavailable, registry, setDatabaseUp } from "../metrics/registry.server";
import { env } from "../platform/env.server";
import { JOB_KINDS } from "../queue/job-states";
import { flushFoldedLogs, logger } from "../platform/logger.server";
import { noteReadiness } from "./readiness.server";

// What an instance starts, in order, when the server (server.mjs) starts it on its main thread;
// nothing of it starts at import. Its database's migrations are checked before any work begins
// (decision 040): a build on a database its migrations have not reached would fail later, on a
// missing column, in the middle of an order.

/** The exit code of an instance whose database lacks the build's migrations (sysexits' EX_CONFIG). */
export const MIGRATIONS_BEHIND_EXIT_CODE = 78;
/** How often the migrations are asked about again while the database cannot be reached at start. */
const MIGRATIONS_RECHECK_MS = 2_000;

export interface InstanceStart {
  /** The server script, which the worker's thread runs again (decision 019). */
  script: URL;
  /** The server's arguments, for the worker's thread. */
  serverArgs: string[];
}

/**
 * Starts the instance: SQLite's checkpoint thread, the database monitor (readiness, metrics), the metrics endpoint when
 * METRICS_PORT is set, and the background work once the database's migrations are known to be
 * current. Resolves after the first look at the migrations, so the server can serve: with the
 * database away, it serves (intake answers 503, /readyz 503) and looks again until it answers.
 * Exits the process with MIGRATIONS_BEHIND_EXIT_CODE when the database lacks a migration.
 */
export async function startInstance({ script, serverArgs }: InstanceStart): Promise<void> {
  const settings = env();
  // Throws when the app runs outside its folder: better now than a refusal on every check.
  const shipped = shippedMigrations();
  startDatabaseCheckpoints();
  monitor = startDatabaseMonitor(noteProbe);
  if (settings.METRICS_PORT !== undefined) {
    registerQueueGauges(registry, JOB_KINDS);
    await startMetricsEndpoint({ port: settings.METRICS_PORT, host: settings.METRICS_HOST });
  }
  const startWork = () => {
    startWorkerThread(script, serverArgs);
    startBackgroundWork();
  };
  if (await migrationsCurrent(shipped)) return startWork();
  const again = setInterval(() => {
    void migrationsCurrent(shipped).then((current) => {
      if (!current) return;
      clearInterval(again);
      startWork();
    });
  }, MIGRATIONS_RECHECK_MS);
}

function noteProbe({ up, unavailableSeconds, changed }: Probe): void {
  if (unavailableSeconds > 0) addDatabaseUnavailable(unavailableSeconds);
  setDatabaseUp(up);
  if (!changed) return;
  if (up)
    logger.info("database.available", `the database answers again, after ${changed.downSeconds.toFixed(1)} s`, {
      downSeconds: changed.downSeconds,
    });
  else logger.warn("database.unavailable", "the database does not answer");
  noteReadiness({ databaseUp: up });
}

/** Whether the migrations are known to be current; exits the process when they are behind. */
async function migrationsCurrent(shipped: string[]): Promise<boolean> {
  const found = await migrationState(shipped);
  if (found.state === "unknown") {
    logger.warn("instance.migrations_unknown", "cannot tell whether the database's migrations are current yet", {
      reason: found.reason,
    });
    return false;
  }
  if (found.ahead.length > 0)
    logger.warn(
      "instance.migrations_ahead",
      "the database has migrations this build does not know (a newer release?)",
      {
        ahead: found.ahead,
      },
    );
  if (found.state === "behind") {
    noteReadiness({ migrations: "behind" });
    logger.error(
      "instance.migrations_behind",
      `refusing to start: the database lacks ${found.missing.length} migration(s) this build needs ` +
        `(${found.missing.join(", ")}). Run the release step, \`npm run setup\`, against this DATABASE_URL first.`,
      { missing: found.missing, exitCode: MIGRATIONS_BEHIND_EXIT_CODE },
    );
    flushFoldedLogs();
    process.exit(MIGRATIONS_BEHIND_EXIT_CODE);
  }
  noteReadiness({ migrations: "current" });
  return true;
}

let monitor: DatabaseMonitor | undefined;
let backgroundStopped: Promise<void> | undefined;

/**
 * A stop signal arrived: readiness fails from now on, while the server still serves (server.mjs),
 * and the background work is told to stop (the worker finishes its jobs). Returns how long the
 * server serves on before it stops accepting connections (SHUTDOWN_DELAY_MS).
 */
export function beginShutdown(): number {
  const delayMs = env().SHUTDOWN_DELAY_MS;
  logger.info("instance.shutting_down", "stopping: /readyz answers 503, requests in flight finish", { delayMs });
  noteReadiness({ stopping: true });
  backgroundStopped = stopBackgroundWork();
  return delayMs;
}

/**
 * The server has answered its last request: once the background work has stopped, the database
 * monitor stops and the database's connections close, so the process ends now rather than when
 * idle connections time out (the monitor's probes kept a PostgreSQL pool busy for ever).
 */
export async function endInstance(): Promise<void> {
  await backgroundStopped;
  monitor?.stop();
  await closeDatabase();
}
