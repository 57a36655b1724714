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
  logger.info("background worker started", { concurrency: env().WORKER_CONCURRENCY });
  const stop = () => void worker.stop();
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
