import { Prisma, type Payout } from "@prisma/client";
import { creatorProfiles } from "../commissions/creator-profiles.server";
import { rowsOf, sql } from "../database/sql.server";
import { Payout as PayoutTable, PayoutLine } from "../database/tables";
import { t } from "../i18n";
import { env } from "../platform/env.server";
import { logger } from "../platform/logger.server";
import { backoffDelay } from "../queue/backoff";
import type { Transition } from "../queue/job-states";
import type { JobContext } from "../queue/runner.server";
import type { AdminGraphql } from "../shopify-admin/admin-client.server";
import type { OfflineAdmin } from "../shopify-admin/offline-admin.server";
import type { ShopifyMethod } from "./methods";
import { payoutSettings } from "./payout-settings.server";
import { applyLineChange, applyRunChange, type runView } from "./run-apply.server";
import type { RunChange } from "./run-steps";
import * as calls from "./shopify-calls.server";
import {
  afterCreateCustomer,
  afterFindCustomer,
  afterLook,
  afterReadMark,
  afterSend,
  lineNext,
  LINE_STATUS,
  withChange,
  type LineStep,
  type LineStop,
  type ShopifyCall,
  type ShopifyLine,
} from "./shopify-steps";

// The payout-run job for store credit and gift cards: each line in turn, step by step
// (shopify-steps.ts), every decision written through the job's lease before the call it asks
// for leaves; then the run ends, waits or is parked as its lines say (decision 051).

type Run = NonNullable<Awaited<ReturnType<typeof runView>>>;
export type ShopifyAdmin = (shop: string) => Promise<OfflineAdmin>;

interface Line extends ShopifyLine {
  creatorId: string;
  amount: string;
  currency: string;
  email: string;
  name: string;
}

async function linesOf(run: Run): Promise<Line[]> {
  const payouts = await rowsOf<Payout>(
    sql,
    "Payout",
    Prisma.sql`SELECT * FROM ${PayoutTable} WHERE ${PayoutTable.shop} = ${run.shop} AND ${PayoutTable.runId} = ${run.id} ORDER BY ${PayoutTable.id}`,
  );
  const amounts = await sql.rows<{ payoutId: string; creatorId: string; currency: string; amount: string }>(Prisma.sql`
    SELECT ${PayoutLine.payoutId}, ${PayoutLine.creatorId}, ${PayoutLine.currency}, ${PayoutLine.amount} FROM ${PayoutLine}
    WHERE ${PayoutLine.payoutId} IN (${Prisma.join(payouts.length > 0 ? payouts.map((p) => p.id) : [""])})`);
  const profiles = await creatorProfiles(
    run.shop,
    amounts.map((a) => a.creatorId),
  );
  return payouts.flatMap((p) => {
    const line = amounts.find((a) => a.payoutId === p.id);
    if (!line) return [];
    const profile = profiles.get(line.creatorId);
    return [
      {
        payoutId: p.id,
        outcome: p.voidedAt ? "bounced" : p.settledAt ? "paid" : "waiting",
        status: p.providerStatus,
        itemId: p.providerItemId,
        customerId: p.providerAccount,
        mark: p.providerMark,
        attemptedAt: p.attemptedAt,
        creatorId: line.creatorId,
        amount: line.amount,
        currency: line.currency,
        email: profile?.email ?? "",
        name: profile?.name ?? "",
      },
    ];
  });
}

async function callFor(
  method: ShopifyMethod,
  graphql: AdminGraphql,
  run: Run,
  line: Line,
  call: ShopifyCall,
  createAllowed: boolean,
  now: () => Date,
): Promise<LineStep> {
  const customerId = line.customerId ?? "";
  if (call.call === "find-customer") {
    const reasons = { none: t("payouts.shopify.noCustomer"), several: t("payouts.shopify.severalCustomers") };
    const found = await calls.findCustomer(graphql, line.email);
    return afterFindCustomer(method, line, found, reasons, createAllowed, now());
  }
  if (call.call === "create-customer")
    return afterCreateCustomer(method, line, await calls.createCustomer(graphql, line.email, line.name), now());
  if (call.call === "read-mark")
    return afterReadMark(method, line, await calls.readMark(graphql, customerId, line.currency), now());
  if (call.call === "look") {
    const found =
      method === "store_credit"
        ? await calls.lookForCredit(graphql, { ...line, customerId, mark: line.mark ?? "" })
        : await calls.lookForGiftCard(graphql, { payoutId: line.payoutId, customerId });
    return afterLook(method, line, found, now());
  }
  const sent =
    method === "store_credit"
      ? await calls.sendStoreCredit(graphql, { ...line, customerId })
      : await calls.sendGiftCard(graphql, { ...line, customerId, shop: run.shop });
  const step = afterSend(line, sent);
  return step.change?.move === "bounce"
    ? { ...step, change: { ...step.change, reason: t("payouts.shopify.refused", { error: step.change.reason ?? "" }) } }
    : step;
}

/** One line as far as it goes now: its decisions written as they are made. */
async function payLine(
  ctx: JobContext,
  run: Run,
  method: ShopifyMethod,
  graphql: AdminGraphql,
  start: Line,
  createAllowed: boolean,
): Promise<LineStop> {
  let line = start;
  let step = lineNext(method, line, ctx.now(), env().PAYOUT_LOOK_AFTER_MS);
  for (;;) {
    const change = step.change;
    if (change) {
      const sending = "call" in step.next && step.next.call === "send" && run.row.state === "intent";
      await ctx.write(async (tx) => {
        await applyLineChange(tx, run.shop, change, ctx.now());
        if (sending)
          await applyRunChange(
            tx,
            run.shop,
            run.id,
            { run: { state: "sent", sentAt: ctx.now() }, items: [], release: false },
            ctx.now(),
          );
      });
      if (sending) run.row.state = "sent";
      line = { ...line, ...withChange(line, change) };
    }
    if (!("call" in step.next)) return step.next;
    step = await callFor(method, graphql, run, line, step.next, createAllowed, () => ctx.now());
  }
}

/** Lines that cannot be paid now at all (no access to the shop): those never sent go back, the others wait for the merchant. */
function withoutAccess(lines: Line[], message: string) {
  return lines
    .filter((line) => line.outcome === "waiting")
    .map((line) =>
      line.attemptedAt
        ? { payoutId: line.payoutId, status: LINE_STATUS.check, move: "none" as const }
        : {
            payoutId: line.payoutId,
            status: LINE_STATUS.refused,
            move: "bounce" as const,
            reason: t("payouts.shopify.notSent", { error: message }),
          },
    );
}

function transition(stops: LineStop[], ctx: JobContext): { change: RunChange["run"]; to: Transition } {
  const now = ctx.now();
  const retry = stops.find((s): s is Extract<LineStop, { to: "retry" }> => s.to === "retry");
  if (retry)
    return {
      change: { lastError: retry.error },
      to: { to: "retry", at: new Date(now.getTime() + backoffDelay(ctx.job.attempts, ctx.random)), error: retry.error },
    };
  const defers = stops.filter((s): s is Extract<LineStop, { to: "defer" }> => s.to === "defer");
  if (defers.length > 0) {
    const first = defers.reduce((a, b) => (a.at <= b.at ? a : b));
    return { change: {}, to: first };
  }
  const park = stops.find((s): s is Extract<LineStop, { to: "park" }> => s.to === "park");
  if (park) return { change: { state: "check", lastError: park.error }, to: park };
  return { change: { state: "settled", settledAt: now, lastError: null }, to: { to: "finish" } };
}

export async function runShopifyPayout(ctx: JobContext, run: Run, admin: ShopifyAdmin | undefined): Promise<null> {
  const method = run.row.method as ShopifyMethod;
  const lines = await linesOf(run);
  const opened = admin
    ? await admin(run.shop)
    : ({ ok: false, retryable: false, reason: "no-session", message: "no Shopify access" } as const);
  const stops: LineStop[] = [];
  if (!opened.ok) {
    if (opened.retryable) stops.push({ to: "retry", error: opened.message });
    else {
      const changes = withoutAccess(lines, opened.message);
      await ctx.write(async (tx) => {
        for (const change of changes) await applyLineChange(tx, run.shop, change, ctx.now());
      });
      if (changes.some((c) => c.move === "none")) stops.push({ to: "park", error: opened.message });
    }
  } else {
    const { createCustomers } = await payoutSettings(run.shop);
    for (const line of lines) stops.push(await payLine(ctx, run, method, opened.graphql, line, createCustomers));
  }
  const waiting = stops.filter((s) => s.to !== "done");
  const end = transition(waiting, ctx);
  await ctx.write(
    (tx) => applyRunChange(tx, run.shop, run.id, { run: end.change, items: [], release: false }, ctx.now()),
    end.to,
  );
  if (end.to.to === "park")
    logger.warn("payouts.run_parked", "a payout run waits for the merchant", {
      shop: run.shop,
      runId: run.id,
      reason: end.to.error,
    });
  return null;
}

/** Out of attempts: lines never sent go back to payable; a line that may have been paid waits for the merchant. */
export async function giveUpShopifyPayout(ctx: JobContext, run: Run, reason: string): Promise<void> {
  const changes = withoutAccess(await linesOf(run), reason);
  const parked = changes.some((c) => c.move === "none");
  await ctx.write(async (tx) => {
    for (const change of changes) await applyLineChange(tx, run.shop, change, ctx.now());
    await applyRunChange(
      tx,
      run.shop,
      run.id,
      { run: { state: parked ? "check" : "settled", lastError: reason }, items: [], release: false },
      ctx.now(),
    );
  });
}
