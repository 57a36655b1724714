import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { startApprovalSweep } from "./commissions/approval.server";
import { startLifecycleEventPurge } from "./lifecycle/lifecycle-events.server";
import { addMetricsThread, answerMetricsRequests } from "./metrics/threads.server";
import { env } from "./platform/env.server";
import { logger } from "./platform/logger.server";
import { sqliteWriteLock } from "./database/sqlite-write-lock.server";
import { offlineAdmin } from "./shopify.server";
import { startWorker } from "./worker/worker.server";
import { reconcileNow } from "./reconciliation/reconciliation.server";

declare global {
  var backgroundStarted: boolean | undefined;
}

/** What a thread started by startWorkerThread is given; its mark that it is the worker's. */
interface WorkerThreadData {
  role: "worker";
  /** The server's arguments (the build it loads, or --dev), for the server on the thread. */
  serverArgs: string[];
  sqliteWriteLock: SharedArrayBuffer;
}

const STOP = "stop";
/** How often the lifecycle memory's retention is swept (idempotent on every instance). */
const LIFECYCLE_PURGE_INTERVAL_MS = 60 * 60_000;
/** No write holds the lock for this long (the ORM's transactions time out after 5 s). */
const STUCK_LOCK_MS = 30_000;

function isWorkerThread(): boolean {
  return !isMainThread && (workerData as Partial<WorkerThreadData> | null)?.role === "worker";
}

// Started once per process (module reloads in development must not start a second worker).
// With WORKER_THREAD (the default, in development as in production) the worker runs on a thread
// of its own, so intake and the admin keep the main thread and the worker gets the second core
// (decision 019): the server starts that thread (startWorkerThread), which loads the same app,
// and there this function starts the worker itself.
export function startBackgroundWork(): void {
  if (globalThis.backgroundStarted || !env().WORKER_ENABLED) return;
  const onThread = isWorkerThread();
  if (env().WORKER_THREAD && !onThread) return;
  globalThis.backgroundStarted = true;
  const worker = startWorker({ ownThread: onThread, deps: { shopifyAdmin: offlineAdmin } });
  // An instance that starts may follow an outage: every shop's reconciliation sweep runs now.
  // The sweeps are standing jobs: if the database cannot be reached now, they run at their own times.
  reconcileNow("all").catch((error: unknown) =>
    logger.warn(
      "reconciliation.bring_forward_failed",
      "could not bring the reconciliation sweeps forward; they run at their scheduled times",
      { error },
    ),
  );
  // Commissions whose hold has ended are approved on the worker's polling rhythm.
  const sweep = startApprovalSweep(env().WORKER_POLL_INTERVAL_MS);
  // The memory of handled lifecycle webhooks is kept a year (decision 028), swept hourly.
  const lifecyclePurge = startLifecycleEventPurge(LIFECYCLE_PURGE_INTERVAL_MS, (error) =>
    logger.error("retention.lifecycle_failed", "lifecycle event retention sweep failed", { error }),
  );
  logger.info("worker.started", "background worker started", {
    concurrency: env().WORKER_CONCURRENCY,
    thread: onThread,
  });
  const stop = async () => {
    sweep.stop();
    lifecyclePurge.stop();
    await worker.stop();
  };
  if (onThread) {
    // Signals reach only the main thread, which passes them on as a message. The main thread
    // also asks for this thread's metrics on the same port (app/metrics/threads.server.ts).
    const onMessage = (message: unknown) => {
      if (message !== STOP) return;
      parentPort?.off("message", onMessage);
      void stop().finally(() => process.exit(0));
    };
    parentPort?.on("message", onMessage);
    if (parentPort) answerMetricsRequests(parentPort);
    return;
  }
  stopWork = stop;
}

/** How this process's background work stops, once started: the worker beside intake, or its thread. */
let stopWork: (() => Promise<void>) | undefined;

/**
 * Stops the background work (the instance's stop, app/instance/start.server.ts, on the server's
 * stop signal): the worker finishes the jobs it runs, on this thread or its own. Resolves once it
 * has; at once when none was started.
 */
export function stopBackgroundWork(): Promise<void> {
  return stopWork?.() ?? Promise.resolve();
}

/**
 * Starts the worker's thread when WORKER_THREAD asks for one: `script` is the server, which on
 * that thread loads the app as `serverArgs` say (and this module with it) and serves nothing.
 */
export function startWorkerThread(script: URL, serverArgs: string[]): void {
  if (globalThis.backgroundStarted || !env().WORKER_ENABLED || !env().WORKER_THREAD || !isMainThread) return;
  globalThis.backgroundStarted = true;
  const data: WorkerThreadData = { role: "worker", serverArgs, sqliteWriteLock: sqliteWriteLock.memory };
  const thread = new Worker(script, { workerData: data });
  addMetricsThread(thread);
  let stopping = false;
  thread.on("error", (error) => logger.error("worker.thread_failed", "the worker thread failed", { error }));
  thread.once("exit", (code) => {
    if (stopping) return;
    // It may have died holding the write lock, and orders must not wait unseen: the host
    // restarts the process, and the jobs it held are taken again when their leases run out.
    logger.error("worker.thread_exited", "the worker thread exited; stopping the server", { code });
    process.exit(1);
  });
  const unwatch = sqliteWriteLock.watch(STUCK_LOCK_MS, () => {
    logger.error(
      "database.write_lock_stuck",
      "SQLite writers have waited 30 s for a turn that never came; stopping the server",
    );
    process.exit(1);
  });
  const exited = new Promise<void>((resolve) => thread.once("exit", () => resolve()));
  stopWork = () => {
    if (!stopping) {
      stopping = true;
      unwatch();
      thread.postMessage(STOP);
    }
    return exited;
  };
}
