import { Prisma } from "@prisma/client";
import { creatorProfiles } from "../commissions/creator-profiles.server";
import { sql, updateWhere } from "../database/sql.server";
import { Payout, PayoutLine, PaypalEvent } from "../database/tables";
import { t } from "../i18n";
import { logger } from "../platform/logger.server";
import { SealError } from "../platform/sealing.server";
import { createPaypalClient, type PaypalClient } from "../paypal/client.server";
import { backoffDelay } from "../queue/backoff";
import type { Transition } from "../queue/job-states";
import type { JobContext, JobHandler } from "../queue/runner.server";
import { isShopifyMethod } from "./methods";
import { paypalAccount } from "./payout-settings.server";
import { applyRunChange, runView } from "./run-apply.server";
import { afterCreate, afterDetails, begin, itemChanges, type RunStep, type RunStop } from "./run-steps";
import { giveUpShopifyPayout, runShopifyPayout, type ShopifyAdmin } from "./shopify-run-job.server";

// The payout-run job, top to bottom: read the run; apply what verified webhooks reported since;
// then, step by step (run-steps.ts), write what the step decided and make the call it asks for
// (create the batch with the run's sender_batch_id, or read its details) until it stops. Every
// write goes through the job's lease (ctx.write), and is written before the next call leaves.

type Run = NonNullable<Awaited<ReturnType<typeof runView>>>;

function transitionOf(stop: RunStop, ctx: JobContext): Transition {
  if (stop.to === "retry")
    return {
      to: "retry",
      at: new Date(ctx.now().getTime() + backoffDelay(ctx.job.attempts, ctx.random)),
      error: stop.error,
    };
  return stop;
}

/** The batch's items: one per line, to the creator's email, in the commission's currency. */
async function batchItems(run: Run) {
  const rows = await sql.rows<{ id: string; creatorId: string; currency: string; amount: string }>(Prisma.sql`
    SELECT p.${Payout.id}, l.${PayoutLine.creatorId}, l.${PayoutLine.currency}, l.${PayoutLine.amount}
    FROM ${Payout} p JOIN ${PayoutLine} l ON l.${PayoutLine.payoutId} = p.${Payout.id}
    WHERE p.${Payout.shop} = ${run.shop} AND p.${Payout.runId} = ${run.id} ORDER BY p.${Payout.id}`);
  const profiles = await creatorProfiles(
    run.shop,
    rows.map((r) => r.creatorId),
  );
  return rows.map((row) => ({
    senderItemId: row.id,
    receiver: profiles.get(row.creatorId)?.email ?? "",
    value: row.amount,
    currency: row.currency,
    note: t("payouts.run.itemNote", { shop: run.shop }),
  }));
}

/** Verified webhook reports for the run's lines not applied yet, oldest first. */
async function pendingReports(run: Run) {
  const ids = run.lines.map((line) => line.payoutId);
  if (ids.length === 0) return [];
  return sql.rows<{ eventId: string; senderItemId: string; status: string; itemId: string | null }>(Prisma.sql`
    SELECT ${PaypalEvent.eventId}, ${PaypalEvent.senderItemId}, ${PaypalEvent.status}, ${PaypalEvent.itemId} FROM ${PaypalEvent}
    WHERE ${PaypalEvent.shop} = ${run.shop} AND ${PaypalEvent.outcome} = 'pending' AND ${PaypalEvent.senderItemId} IN (${Prisma.join(ids)})
    ORDER BY ${PaypalEvent.receivedAt}, ${PaypalEvent.eventId}`);
}

async function stepWith(client: PaypalClient, run: Run, step: RunStep, ctx: JobContext): Promise<RunStep> {
  const next = step.next;
  if (!("call" in next)) return step;
  if (next.call === "create")
    return afterCreate(
      run,
      await client.createBatch(run.row.senderBatchId, t("payouts.run.subject"), await batchItems(run)),
      ctx.now(),
    );
  return afterDetails(run, await client.batchDetails(next.batchId), ctx.now());
}

/** Store credit and gift card runs call Shopify's Admin API with the shop's offline token. */
export function payoutRunHandler(deps: { shopifyAdmin?: ShopifyAdmin } = {}): JobHandler {
  return {
    async run(ctx) {
      let run = await runView(sql, ctx.job.subject);
      if (!run) return { to: "finish" };
      if (isShopifyMethod(run.row.method)) return runShopifyPayout(ctx, run, deps.shopifyAdmin);
      const reports = await pendingReports(run);
      if (reports.length > 0) {
        const { changes } = itemChanges(run.lines, reports);
        const shop = run.shop;
        await ctx.write(async (tx) => {
          await applyRunChange(tx, shop, ctx.job.subject, { run: {}, items: changes, release: false }, ctx.now());
          await updateWhere(
            tx,
            "PaypalEvent",
            Prisma.sql`${PaypalEvent.shop} = ${shop} AND ${PaypalEvent.eventId} IN (${Prisma.join(reports.map((r) => r.eventId))})`,
            { outcome: "applied" },
          );
        });
        run = (await runView(sql, ctx.job.subject))!;
      }
      let step = begin(run, ctx.now());
      let client: PaypalClient | null = null;
      while ("call" in step.next) {
        if (!client) {
          const opened = await openAccount(run);
          if ("refusal" in opened) {
            step = opened.refusal;
            break;
          }
          client = createPaypalClient(opened.origin, opened.credentials, ctx.signal);
        }
        const answered = await stepWith(client, run, step, ctx);
        if (!("call" in answered.next)) {
          step = answered;
          break;
        }
        const { change } = answered;
        await ctx.write((tx) => applyRunChange(tx, run!.shop, ctx.job.subject, change, ctx.now()));
        run = (await runView(sql, ctx.job.subject))!;
        step = { change: { run: {}, items: [], release: false }, next: answered.next };
      }
      const { change } = step;
      const stop = step.next as RunStop;
      await ctx.write(
        (tx) => applyRunChange(tx, run!.shop, ctx.job.subject, change, ctx.now()),
        transitionOf(stop, ctx),
      );
      if (stop.to === "park")
        logger.warn("payouts.run_parked", "a payout run waits for the merchant", {
          shop: run.shop,
          runId: run.id,
          reason: stop.error,
        });
      return null;
    },
    async giveUp(ctx, reason) {
      const run = await runView(sql, ctx.job.subject);
      if (!run) return;
      if (isShopifyMethod(run.row.method)) return giveUpShopifyPayout(ctx, run, reason);
      // Out of attempts without ever reaching PayPal: nothing was paid, the lines are payable again.
      const change =
        run.state === "intent"
          ? { run: { state: "refused" as const, lastError: reason }, items: [], release: true }
          : {
              run: { state: run.state === "unknown" ? ("check" as const) : run.state, lastError: reason },
              items: [],
              release: false,
            };
      await ctx.write((tx) => applyRunChange(tx, run.shop, run.id, change, ctx.now()));
    },
  };
}

/** The shop's PayPal account for this run, or the step that ends it when it cannot be used. */
async function openAccount(run: Run) {
  const refuse = (error: string): { refusal: RunStep } =>
    run.state === "intent"
      ? {
          refusal: {
            change: { run: { state: "refused", lastError: error }, items: [], release: true },
            next: { to: "finish" },
          },
        }
      : {
          refusal: {
            change: { run: { state: "check", lastError: error }, items: [], release: false },
            next: { to: "park", error },
          },
        };
  try {
    const account = await paypalAccount(run.shop);
    if (!account) return refuse(t("payouts.run.noCredentials"));
    // Credentials saved since for the other environment would pay from another PayPal account.
    if (account.environment !== run.row.environment) return refuse(t("payouts.run.environmentChanged"));
    return account;
  } catch (error) {
    if (error instanceof SealError) return refuse(t("payouts.run.credentialsUnreadable"));
    throw error;
  }
}
