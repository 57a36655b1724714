import type { Verification } from "@prisma/client";
import { creditCommission } from "../commissions/credit.server";
import { applyOrderEvents, hasPendingEvents } from "../commissions/order-events.server";
import type { JobContext, JobHandler } from "../queue/runner.server";
import { rateForCreator } from "../settings/creator-rates";
import { orderValueBasisOf } from "../settings/order-value-basis";
import { SealError } from "../platform/sealing.server";
import { getServerSettings, type ServerSettings } from "../settings/shop-settings.server";
import { rowById, sql, updateRow, type Sql } from "../database/sql.server";
import { attributeOrder } from "./attribute-order.server";
import { parseStoredFacts } from "./order-facts";
import { OrderRun, type PipelineDeps, type StepResult } from "./order-run.server";
import { SKIP_REASONS, type SkipCause } from "./outcomes";
import { tagOrder } from "./tag-order.server";
import { decideVerdict } from "./verdict.server";

// Takes one order from recorded to an outcome, as the job "verify-order". Each step records
// what it learned on the order's row before the next begins, so a retry (or another worker
// after a crash) resumes where the last one stopped: the service gets one report per order,
// the tag is written once, the commission is credited once.

export function verifyOrderHandler(deps: PipelineDeps): JobHandler {
  return {
    run: async (ctx) => {
      const result = await verifyOrder(new OrderRun(ctx, deps));
      return "end" in result ? result.end : { to: "finish" };
    },
    giveUp: (ctx, reason) => giveUpOrder(ctx, reason),
  };
}

async function verifyOrder(run: OrderRun): Promise<StepResult> {
  let row = await rowById<Verification>(sql, "Verification", run.ctx.job.subject);
  // Gone (the shop was redacted): nothing left to do.
  if (!row) return { end: { to: "finish" } };
  run.start(row);
  // Already decided: a refund or cancellation reopened it, or a duplicate run.
  if (isDecided(row)) return settleOrderEvents(run, row);

  const settings = await settingsFor(row.shop);
  if (settings instanceof SealError) return run.park(`the stored API key cannot be used: ${settings.message}`);
  if (typeof settings === "string") return run.end("skipped", SKIP_REASONS[settings]);

  if (row.hijacked === null) {
    // customers/redact emptied the order before its verdict, on the first run or between retries:
    // nothing is left to verify it with, so it ends now rather than retrying a redacted click.
    const facts = parseStoredFacts(row.orderFacts);
    if (!facts) return run.end("skipped", SKIP_REASONS.redacted);
    // What attribution learned is written with the report's start: one write, not two.
    let attributed: Partial<Verification> = {};
    if (row.captureSource === null) {
      const step = await attributeOrder(run, row, facts, settings);
      if ("end" in step) return step;
      attributed = step.attributed;
      row = { ...row, ...attributed };
    }
    const step = await decideVerdict(run, row, settings, attributed);
    if ("end" in step) return step;
    row = step.row;
  }
  if (row.hijacked && row.taggedAt === null) {
    const step = await tagOrder(run, row, settings);
    if ("end" in step) return step;
    row = step.row;
  }
  return credit(run, row, settings);
}

/** Outcomes that end an order for good; "rejected" waits (parked) for a working key. */
function isDecided(row: Verification): boolean {
  return row.outcome !== null && row.outcome !== "rejected";
}

/** The shop's settings; a SealError when the stored key cannot be opened (the order waits for a new one). */
async function settingsFor(shop: string): Promise<ServerSettings | SkipCause | SealError> {
  try {
    const settings = await getServerSettings(shop);
    if (!settings) return "missing";
    if (settings.uninstalledAt) return "uninstalled";
    if (!settings.autoVerify) return "off";
    return settings;
  } catch (error) {
    if (error instanceof SealError) return error;
    throw error;
  }
}

/**
 * One commission record, credited to the creator of the expected tag; the order ends with its
 * verdict. Refunds and a cancellation that arrived first are applied in the same transaction.
 */
async function credit(run: OrderRun, row: Verification, settings: ServerSettings): Promise<StepResult> {
  const outcome = row.hijacked === true ? "hijacked" : "matched";
  return run.end(outcome, row.reason, {
    also: async (tx) => {
      await creditFor(tx, row, settings, run.now);
      await applyOrderEvents(tx, { ...row, verificationId: row.id, outcome }, run.now);
    },
  });
}

function creditFor(tx: Sql, row: Verification, settings: ServerSettings, now: Date) {
  const creatorId = row.creatorId ?? "";
  return creditCommission(
    tx,
    {
      shop: row.shop,
      verificationId: row.id,
      orderId: row.orderId,
      orderName: row.orderName,
      orderCreatedAt: row.orderCreatedAt,
      creatorId,
      expectedTag: row.expectedTag ?? "",
      arrivedTag: row.arrivedTag ?? "",
      orderValue: row.orderValue ?? "0",
      // What the value was read on, whatever the setting says now (rows from before it was kept: the setting).
      basis: orderValueBasisOf(row.orderValueBasis ?? settings.orderValueBasis),
      currency: row.currency ?? "USD",
      ratePercent: rateForCreator(settings, creatorId),
      holdDays: settings.holdDays,
      hijacked: row.hijacked === true,
      // Contested: held for the merchant's decision, never approved or paid meanwhile.
      review: row.contest !== null,
    },
    now,
  );
}

/** A decided order's refunds and cancellation, applied (or marked as finding no commission) as the job ends. */
async function settleOrderEvents(run: OrderRun, row: Verification): Promise<StepResult> {
  if (!(await hasPendingEvents(row.shop, row.orderId))) return { end: { to: "finish" } };
  await run.write((tx) => applyOrderEvents(tx, { ...row, verificationId: row.id }, run.now), { to: "finish" });
  return { end: { to: "finish" } };
}

/**
 * The attempts are used up: the order failed, with why. A verdict already stored stays on the
 * row, so "Retry now" finishes the order (tag, credit) without asking the service again.
 */
async function giveUpOrder(ctx: JobContext, reason: string): Promise<void> {
  const row = await rowById<Verification>(sql, "Verification", ctx.job.subject);
  if (!row || isDecided(row)) return;
  await ctx.write(
    (tx) =>
      updateRow(tx, "Verification", row.id, {
        outcome: "failed",
        reason: `${reason}${row.lastError && !reason.includes(row.lastError) ? ` (last error: ${row.lastError})` : ""}`,
        completedAt: ctx.now(),
        updatedAt: ctx.now(),
      }),
    { to: "finish" },
  );
}
