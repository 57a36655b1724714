import { randomUUID } from "node:crypto";
import type { Verification } from "@prisma/client";
import { SealError } from "../platform/sealing.server";
import type { Transition } from "../queue/job-states";
import type { JobContext, JobHandler } from "../queue/runner.server";
import { getServerSettings, type ServerSettings } from "../settings/shop-settings.server";
import { rowById, sql, updateRow, type Sql } from "../database/sql.server";
import { attributionStep } from "./attribution-step";
import { creditingStep, orderEventsStep } from "./crediting";
import { perform } from "./order-calls.server";
import { parseStoredFacts } from "./order-facts";
import { OrderRun, type PipelineDeps } from "./order-run.server";
import { OUTSIDE_CALLS, type OrderState, type OrderStep, type Stop } from "./order-steps";
import { SKIP_REASONS, type SkipCause } from "./outcomes";
import { taggingStep } from "./tagging";
import { verdictStep } from "./verdict";
import { MAX_ATTEMPTS } from "../queue/job-states";

// Takes one order from recorded to an outcome, as the job "verify-order": attribution, the
// verdict, the tag, the credit, in that order. Each step decides (order-steps.ts); this file
// makes the calls they ask for and has the order's run write what they decided. What a step
// learned is recorded before the next call goes out, so a retry (or another worker after a
// crash) resumes where the last one stopped: the service gets one report per order, the tag is
// written once, the commission is credited once.

const STEPS: readonly OrderStep[] = [attributionStep, verdictStep, taggingStep, creditingStep];

export function verifyOrderHandler(deps: PipelineDeps): JobHandler {
  return {
    run: (ctx) => verifyOrder(ctx, deps),
    giveUp: (ctx, reason) => giveUpOrder(ctx, reason),
  };
}

async function verifyOrder(ctx: JobContext, deps: PipelineDeps): Promise<Transition> {
  // Read together: one round trip on PostgreSQL (sql.together).
  const [row, settings] = await sql.together((db) =>
    Promise.all([rowById<Verification>(db, "Verification", ctx.job.subject), settingsFor(ctx.job.shop, db)]),
  );
  // Gone (the shop was redacted): nothing left to do.
  if (!row) return { to: "finish" };
  const run = new OrderRun(ctx, row.orderId);
  const begun = begin(ctx, row, settings);
  if ("to" in begun) return run.stop(begun);
  let state = begun;

  for (const step of isDecided(row) ? [orderEventsStep] : STEPS) {
    let outcome = step.begin(state);
    while (outcome.kind === "call") {
      const { call, before } = outcome;
      // Nothing the run holds waits on the network (decision 025).
      if (before || (OUTSIDE_CALLS.has(call.kind) && run.holding)) await run.record(before ?? {});
      const answered = await perform(call, { ctx, deps, row: state.row, facts: state.facts, settings: state.settings });
      outcome = step.after({ ...state, now: ctx.now() }, answered);
    }
    if (outcome.kind === "stop") return run.stop(outcome.stop);
    run.hold(outcome.hold);
    state = { ...state, row: outcome.row, now: ctx.now() };
  }
  throw new Error("the crediting step always ends the order");
}

/** What the steps start from; or how the run stops before any step (a decided order, a shop that verifies nothing). */
function begin(
  ctx: JobContext,
  row: Verification,
  settings: ServerSettings | SkipCause | SealError,
): OrderState | Stop {
  if (settings instanceof SealError)
    return { to: "park", reason: `the stored API key cannot be used: ${settings.message}` };
  if (typeof settings === "string") return { to: "end", outcome: "skipped", reason: SKIP_REASONS[settings] };
  const facts = parseStoredFacts(row.orderFacts);
  // customers/redact emptied the order before its verdict, on the first run or between retries:
  // nothing is left to verify it with, so it ends now rather than retrying a redacted click.
  if (!facts && row.hijacked === null && !isDecided(row))
    return { to: "end", outcome: "skipped", reason: SKIP_REASONS.redacted };
  return {
    row,
    facts,
    settings,
    now: ctx.now(),
    attempts: ctx.job.attempts,
    attemptsLeft: ctx.job.attempts < MAX_ATTEMPTS,
    random: () => ctx.random(),
    newId: () => randomUUID(),
  };
}

/** Outcomes that end an order for good; "rejected" waits (parked) for a working key. */
function isDecided(row: Verification): boolean {
  return row.outcome !== null && row.outcome !== "rejected";
}

/** The shop's settings; a SealError when the stored key cannot be opened (the order waits for a new one). */
async function settingsFor(shop: string, db: Sql): Promise<ServerSettings | SkipCause | SealError> {
  try {
    const settings = await getServerSettings(shop, db);
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
