import { createClickServiceClient } from "../click-service";
import { env } from "../platform/env.server";
import { startIntakeFirst } from "../queue/intake-first.server";
import { startJobRunner, type JobHandler, type JobRunner, type RunnerOptions } from "../queue/runner.server";
import { inShopLanguage } from "../i18n/shop-language.server";
import { foldRollups } from "../database/rollups.server";
import { purgeLandingRecord } from "../landing/journey.server";
import { purgePixelSightings } from "../pixel/sightings.server";
import { lookupClickHandler } from "../landing/lookup-click.server";
import { logger } from "../platform/logger.server";
import type { PipelineDeps } from "../verification/order-run.server";
import { verifyOrderHandler } from "../verification/verify-order.server";
import { reconcileShopHandler } from "../reconciliation/sweep.server";
import { payoutRunHandler } from "../payouts/run-job.server";
import type { ShopifyAdmin } from "../payouts/shopify-run-job.server";
import { payoutScheduleHandler } from "../payouts/schedule-run.server";

// The background worker: the queue's runner with this app's jobs. It runs inside the app's
// server process (background.server.ts starts it) and in tests with stand-ins for the outside.

/** The shop's click service, as its settings name it. */
export const clickService: PipelineDeps["clickService"] = (settings) =>
  createClickServiceClient({ baseUrl: settings.clickServiceUrl, apiKey: settings.apiKey });

export interface WorkerOptions extends Partial<Omit<RunnerOptions, "handlers">> {
  /** Shopify's Admin API for a shop is the app's wiring (shopify.server.ts), handed in by whoever starts the worker. */
  deps: Partial<PipelineDeps> & Pick<PipelineDeps, "shopifyAdmin">;
  /** Whether the worker yields to webhook intake in this process (intake-first.ts); WORKER_INTAKE_FIRST by default. */
  intakeFirst?: boolean;
  /** On a thread of its own, nothing else shares the worker's event loop: it neither yields nor takes turns. */
  ownThread?: boolean;
}

/**
 * A job that writes words (payout notes, the reasons a run records) writes them in the language
 * the shop's admin was last opened in (decision 055); the other jobs write none, and skip the read.
 */
function speakingShopLanguage(handler: JobHandler): JobHandler {
  return {
    run: (ctx) => inShopLanguage(ctx.job.shop, () => handler.run(ctx)),
    giveUp: (ctx, reason) => inShopLanguage(ctx.job.shop, () => handler.giveUp(ctx, reason)),
  };
}

/** The payout jobs, as the worker runs them: in the shop's language. */
export function payoutJobHandlers(deps: { shopifyAdmin?: ShopifyAdmin }) {
  return {
    "payout-run": speakingShopLanguage(payoutRunHandler(deps)),
    "payout-schedule": speakingShopLanguage(payoutScheduleHandler()),
  };
}

/** How often each instance sweeps what no order can use any more (idempotent on every instance). */
const MAINTENANCE_INTERVAL_MS = 15 * 60_000;

/**
 * How often each instance folds the rollups: the rows a minute of orders appends are what a page
 * reads beyond one row per key (a flash sale's minute, a few thousand).
 */
const FOLD_INTERVAL_MS = 60_000;

/**
 * Periodic upkeep beside the jobs: the landing record's and the pixel's reports' retention, and
 * the rollups' fold (one at a time: a slow fold is not started again over itself).
 */
function startMaintenance(now: () => Date): () => void {
  const sweep = () =>
    Promise.all([
      purgeLandingRecord(now()).catch((error: unknown) =>
        logger.error("retention.landing_failed", "landing record retention sweep failed", { error }),
      ),
      purgePixelSightings(now()).catch((error: unknown) =>
        logger.error("retention.pixel_failed", "pixel reports retention sweep failed", { error }),
      ),
    ]);
  const timer = setInterval(sweep, MAINTENANCE_INTERVAL_MS);
  timer.unref();
  let folding: Promise<unknown> | null = null;
  const fold = () => {
    folding ??= foldRollups()
      .catch((error: unknown) => logger.error("rollup.fold_failed", "folding the rollups failed", { error }))
      .finally(() => (folding = null));
  };
  const folds = setInterval(fold, FOLD_INTERVAL_MS);
  folds.unref();
  return () => {
    clearInterval(timer);
    clearInterval(folds);
  };
}

export function startWorker(options: WorkerOptions): JobRunner {
  const { deps, ownThread = false, intakeFirst = !ownThread && env().WORKER_INTAKE_FIRST, ...runner } = options;
  const pipeline: PipelineDeps = { clickService, ...deps };
  const concurrency = runner.concurrency ?? env().WORKER_CONCURRENCY;
  const yielding = intakeFirst && !runner.limit ? startIntakeFirst(concurrency) : null;
  const jobs = startJobRunner({
    limit: yielding?.limit,
    pollIntervalMs: env().WORKER_POLL_INTERVAL_MS,
    leaseMs: env().WORKER_LEASE_MS,
    takeTurns: !ownThread,
    ...runner,
    concurrency,
    handlers: {
      "verify-order": verifyOrderHandler(pipeline),
      "lookup-click": lookupClickHandler(pipeline),
      "reconcile-shop": reconcileShopHandler(pipeline),
      ...payoutJobHandlers({ shopifyAdmin: pipeline.shopifyAdmin }),
    },
  });
  const stopMaintenance = startMaintenance(runner.now ?? (() => new Date()));
  return {
    ...jobs,
    owner: jobs.owner,
    stop: () => {
      stopMaintenance();
      yielding?.stop();
      return jobs.stop();
    },
  };
}
