import { createClickServiceClient } from "../click-service";
import { env } from "../env.server";
import { startJobRunner, type JobRunner, type RunnerOptions } from "../queue/runner.server";
import { offlineAdmin } from "../shopify.server";
import type { PipelineDeps } from "./order-run.server";
import { verifyOrderHandler } from "./verify-order.server";

// The background worker: the queue's runner with this app's jobs. It runs inside the app's
// server process (background.server.ts starts it) and in tests with stand-ins for the outside.

export const defaultPipelineDeps: PipelineDeps = {
  clickService: (settings) => createClickServiceClient({ baseUrl: settings.clickServiceUrl, apiKey: settings.apiKey }),
  shopifyAdmin: offlineAdmin,
};

export interface WorkerOptions extends Partial<Omit<RunnerOptions, "handlers">> {
  deps?: Partial<PipelineDeps>;
}

export function startWorker(options: WorkerOptions = {}): JobRunner {
  const { deps, ...runner } = options;
  const pipeline: PipelineDeps = { ...defaultPipelineDeps, ...deps };
  return startJobRunner({
    concurrency: env().WORKER_CONCURRENCY,
    pollIntervalMs: env().WORKER_POLL_INTERVAL_MS,
    ...runner,
    handlers: { "verify-order": verifyOrderHandler(pipeline) },
  });
}
