import { startApprovalSweep } from "./commissions/approval.server";
import { env } from "./env.server";
import { logger } from "./logger.server";
import { startWorker } from "./verification/worker.server";

declare global {
  var backgroundStarted: boolean | undefined;
}

// Started once per process (module reloads in development must not start a second worker).
export function startBackgroundWork(): void {
  if (globalThis.backgroundStarted || !env().WORKER_ENABLED) return;
  globalThis.backgroundStarted = true;
  const worker = startWorker();
  // Commissions whose hold has ended are approved on the worker's polling rhythm.
  const sweep = startApprovalSweep(env().WORKER_POLL_INTERVAL_MS);
  logger.info("background worker started", { concurrency: env().WORKER_CONCURRENCY });
  const stop = () => {
    sweep.stop();
    void worker.stop();
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
