import { Prisma, type ClickRecord } from "@prisma/client";
import type { ClickServiceClient } from "../click-service";
import { CLICK_LIFETIME_MS } from "../click-service/contract";
import { nextRetry } from "../queue/backoff";
import { MAX_ATTEMPTS, type Transition } from "../queue/job-states";
import type { JobContext, JobHandler } from "../queue/runner.server";
import { SealError } from "../platform/sealing.server";
import { flagCredentialsRejected, getServerSettings, type ServerSettings } from "../settings/shop-settings.server";
import { sqlTime } from "../database/db.server";
import { rowById, rowsOf, sql, updateWhere } from "../database/sql.server";
import { inShopOrder, lookupTurn } from "./lookup-pace.server";
import { ClickRecord as ClickRecordTable } from "../database/tables";

// The job "lookup-click": asks the service, once per click record, what it knows of a click the
// storefront reported, while the click is alive, at the shop's pace (lookup-pace.server.ts).
// What it learns (the expected tag and its creator) lets an order placed after the service
// forgot the click still be judged.

export interface LookupDeps {
  clickService(settings: ServerSettings): ClickServiceClient;
}

export function lookupClickHandler(deps: LookupDeps): JobHandler {
  return {
    run: (ctx) => lookUp(ctx, deps),
    giveUp: async (ctx, reason) => {
      await ctx.write(
        (tx) =>
          updateWhere(
            tx,
            "ClickRecord",
            Prisma.sql`${ClickRecordTable.id} = ${ctx.job.subject} AND ${ClickRecordTable.state} = 'pending'`,
            {
              state: "failed",
              lastError: reason,
            },
          ),
        { to: "finish" },
      );
    },
  };
}

/** Click records being looked up in this process: a newer click is taken by one job at a time. */
const lookingUp = new Set<string>();

async function lookUp(ctx: JobContext, deps: LookupDeps): Promise<Transition | null> {
  const decided = await inShopOrder(ctx.job.shop, () => decide(ctx));
  if (!("turn" in decided)) return decided.transition;
  const { record, target, settings, turn } = decided;
  try {
    const outcome = await askService(ctx, target, settings, deps);
    if (target.id === record.id) return await settleOwn(ctx, record, outcome);
    // This job's turn went to a newer click (decision 033). Its own click asks for the next turn
    // at once: while the minute has turns left it gets one; once they are spent, lookupTurn sends
    // it behind the newer clicks. Waiting a minute here would leave a shopper whose older click
    // gave its turn to a newer one unlooked-up while turns went unused.
    if ("data" in outcome)
      await ctx.write((tx) =>
        updateWhere(
          tx,
          "ClickRecord",
          Prisma.sql`${ClickRecordTable.id} = ${target.id} AND ${ClickRecordTable.state} = 'pending'`,
          outcome.data,
        ),
      );
    else if ("park" in outcome) return outcome.park;
    return { to: "defer", at: ctx.now(), reason: "a newer click took the turn; this one asks for the next" };
  } finally {
    lookingUp.delete(target.id);
    turn.done();
  }
}

type Decision =
  | { transition: Transition | null }
  | { record: ClickRecord; target: ClickRecord; settings: ServerSettings; turn: { done: () => void } };

async function decide(ctx: JobContext): Promise<Decision> {
  const record = await rowById<ClickRecord>(sql, "ClickRecord", ctx.job.subject);
  if (!record || record.state !== "pending") return { transition: { to: "finish" } };
  let settings: ServerSettings | null;
  try {
    settings = await getServerSettings(record.shop);
  } catch (error) {
    if (error instanceof SealError)
      return { transition: { to: "park", error: `the stored API key cannot be used: ${error.message}` } };
    throw error;
  }
  if (!settings || settings.uninstalledAt)
    return {
      transition: await settle(ctx, record, { state: "failed", lastError: "the shop has not configured the app" }),
    };

  const turn = await lookupTurn(record.shop, settings.landingLookupsPerHour, record.firstSeenAt, ctx.now());
  if (turn.go) {
    const target = (await newestWaiting(record, ctx.now())) ?? record;
    lookingUp.add(target.id);
    return { record, target, settings, turn };
  }
  if ("at" in turn)
    return { transition: { to: "defer", at: turn.at, reason: "the shop's lookups for this minute are spent" } };
  return {
    transition: await settle(ctx, record, {
      state: "failed",
      lastError: "not looked up within the click's hour: the shop's lookups per hour were spent on newer clicks",
    }),
  };
}

/** The newest click of the shop still waiting for its lookup, if newer than `record` and free. */
async function newestWaiting(record: ClickRecord, now: Date): Promise<ClickRecord | null> {
  const busy = [...lookingUp];
  const [newest] = await rowsOf<ClickRecord>(
    sql,
    "ClickRecord",
    Prisma.sql`
      SELECT * FROM ${ClickRecordTable}
      WHERE ${ClickRecordTable.shop} = ${record.shop} AND ${ClickRecordTable.state} = 'pending'
        AND ${ClickRecordTable.firstSeenAt} > ${sqlTime(record.firstSeenAt)} AND ${ClickRecordTable.firstSeenAt} <= ${sqlTime(now)}
        ${busy.length > 0 ? Prisma.sql`AND ${ClickRecordTable.id} NOT IN (${Prisma.join(busy)})` : Prisma.empty}
      ORDER BY ${ClickRecordTable.firstSeenAt} DESC LIMIT 1`,
  );
  return newest ?? null;
}

/** What the service said of a click: what to record of it, or a stop for the job, or a fault to retry. */
type Answer = { data: Partial<ClickRecord> } | { park: Transition } | { fault: string };

async function askService(
  ctx: JobContext,
  record: ClickRecord,
  settings: ServerSettings,
  deps: LookupDeps,
): Promise<Answer> {
  const deadline = new Date(record.firstSeenAt.getTime() + CLICK_LIFETIME_MS);
  const result = await deps.clickService(settings).lookupClick(record.clickId, { deadline, signal: ctx.signal });
  if (result.ok) {
    const click = result.value;
    return {
      data: {
        state: "known",
        expectedTag: click.expectedTag,
        creatorId: click.creatorId,
        clickedAt: new Date(click.timestamp),
        lookedUpAt: ctx.now(),
        lastError: null,
      },
    };
  }
  const error = result.error;
  switch (error.kind) {
    case "expired":
      return { data: { state: "unknown", lookedUpAt: ctx.now(), lastError: error.message } };
    case "credentials":
      await flagCredentialsRejected(record.shop, ctx.now());
      return { park: { to: "park", error: "the Click Verification Service rejected the API key" } };
    case "destination":
      return { park: { to: "park", error: `the service URL cannot be used: ${error.message}` } };
    default:
      return { fault: `${error.kind}: ${error.message}` };
  }
}

async function settleOwn(ctx: JobContext, record: ClickRecord, answer: Answer): Promise<Transition | null> {
  if ("data" in answer) return settle(ctx, record, answer.data);
  if ("park" in answer) return answer.park;
  const deadline = new Date(record.firstSeenAt.getTime() + CLICK_LIFETIME_MS);
  const next = nextRetry(ctx.job.attempts, MAX_ATTEMPTS, ctx.now(), deadline, ctx.random);
  if ("retryAt" in next) return { to: "retry", at: next.retryAt, error: answer.fault };
  return settle(ctx, record, { state: "failed", lookedUpAt: ctx.now(), lastError: answer.fault });
}

async function settle(ctx: JobContext, record: ClickRecord, data: Partial<ClickRecord>): Promise<null> {
  await ctx.write((tx) => updateWhere(tx, "ClickRecord", Prisma.sql`${ClickRecordTable.id} = ${record.id}`, data), {
    to: "finish",
  });
  return null;
}
