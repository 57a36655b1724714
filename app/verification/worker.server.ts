import { createClickServiceClient } from "../click-service";
import { env } from "../env.server";
import { startJobRunner, type JobRunner, type RunnerOptions } from "../queue/runner.server";
import { unauthenticated } from "../shopify.server";
import type { PipelineDeps } from "./order-run.server";
import { verifyOrderHandler } from "./verify-order.server";

// The background worker: the queue's runner with this app's jobs. It runs inside the app's
// server process (background.server.ts starts it) and in tests with stand-ins for the outside.

export const defaultPipelineDeps: PipelineDeps = {
  clickService: (settings) => createClickServiceClient({ baseUrl: settings.clickServiceUrl, apiKey: settings.apiKey }),
  shopifyAdmin: async (shop) => {
    try {
      const { admin } = await unauthenticated.admin(shop);
      return { ok: true, graphql: admin.graphql };
    } catch {
      return {
        ok: false,
        retryable: false,
        message: "the app has no access to the shop, so the order could not be tagged",
      };
    }
  },
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
