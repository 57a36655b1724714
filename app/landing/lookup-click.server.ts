import { Prisma, type ClickRecord } from "@prisma/client";
import type { ClickServiceClient } from "../click-service";
import { CLICK_LIFETIME_MS } from "../click-service/contract";
import { nextRetry } from "../queue/backoff";
import { MAX_ATTEMPTS, type Transition } from "../queue/job-states";
import type { JobContext, JobHandler } from "../queue/runner.server";
import { SealError } from "../platform/sealing.server";
import { flagCredentialsRejected, getServerSettings, type ServerSettings } from "../settings/shop-settings.server";
import { rowById, sql, updateWhere } from "../database/sql.server";
import { inShopOrder, lookupTurn } from "./lookup-pace.server";

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
          updateWhere(tx, "ClickRecord", Prisma.sql`"id" = ${ctx.job.subject} AND "state" = 'pending'`, {
            state: "failed",
            lastError: reason,
          }),
        { to: "finish" },
      );
    },
  };
}

async function lookUp(ctx: JobContext, deps: LookupDeps): Promise<Transition | null> {
  const decided = await inShopOrder(ctx.job.shop, () => decide(ctx));
  if (!("turn" in decided)) return decided.transition;
  try {
    return await lookUpNow(ctx, decided.record, decided.settings, deps);
  } finally {
    decided.turn.done();
  }
}

type Decision =
  { transition: Transition | null } | { record: ClickRecord; settings: ServerSettings; turn: { done: () => void } };

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
  if (turn.go) return { record, settings, turn };
  if ("at" in turn)
    return { transition: { to: "defer", at: turn.at, reason: "the shop's lookups for this minute are spent" } };
  return {
    transition: await settle(ctx, record, {
      state: "failed",
      lastError: "not looked up within the click's hour: the shop's lookups per hour were spent on newer clicks",
    }),
  };
}

async function lookUpNow(
  ctx: JobContext,
  record: ClickRecord,
  settings: ServerSettings,
  deps: LookupDeps,
): Promise<Transition | null> {
  const deadline = new Date(record.firstSeenAt.getTime() + CLICK_LIFETIME_MS);
  const result = await deps.clickService(settings).lookupClick(record.clickId, { deadline, signal: ctx.signal });
  if (result.ok) {
    const click = result.value;
    return settle(ctx, record, {
      state: "known",
      expectedTag: click.expectedTag,
      creatorId: click.creatorId,
      clickedAt: new Date(click.timestamp),
      lookedUpAt: ctx.now(),
      lastError: null,
    });
  }
  const error = result.error;
  switch (error.kind) {
    case "expired":
      return settle(ctx, record, { state: "unknown", lookedUpAt: ctx.now(), lastError: error.message });
    case "credentials":
      await flagCredentialsRejected(record.shop, ctx.now());
      return { to: "park", error: "the Click Verification Service rejected the API key" };
    case "destination":
      return { to: "park", error: `the service URL cannot be used: ${error.message}` };
    default: {
      const next = nextRetry(ctx.job.attempts, MAX_ATTEMPTS, ctx.now(), deadline, ctx.random);
      const message = `${error.kind}: ${error.message}`;
      if ("retryAt" in next) return { to: "retry", at: next.retryAt, error: message };
      return settle(ctx, record, { state: "failed", lookedUpAt: ctx.now(), lastError: message });
    }
  }
}

async function settle(ctx: JobContext, record: ClickRecord, data: Partial<ClickRecord>): Promise<null> {
  await ctx.write((tx) => updateWhere(tx, "ClickRecord", Prisma.sql`"id" = ${record.id}`, data), { to: "finish" });
  return null;
}
