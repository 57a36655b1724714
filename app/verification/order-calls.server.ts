import { Prisma, type Verification } from "@prisma/client";
import { cartClaim, recordedVisit } from "../attribution/click-claims";
import type { OrderWitnesses } from "../attribution/witnesses";
import { hasPendingEvents } from "../commissions/order-events.server";
import { sql } from "../database/sql.server";
import { cartTouches, knownClick } from "../landing/journey.server";
import { pixelSawClick, pixelWitness } from "../pixel/sightings.server";
import type { ServerSettings } from "../settings/shop-settings.server";
import { markOrderHijacked, readOrderJourney, readOrderTagGuardState } from "../shopify-admin/orders.server";
import {
  noteSpent,
  noteThrottled,
  noteWritten,
  reserveRead,
  reserveWrite,
} from "../shopify-admin/write-schedule.server";
import type { JobContext } from "../queue/runner.server";
import { countTagWrite } from "../metrics/registry.server";
import type { OrderFacts } from "./order-facts";
import type { PipelineDeps } from "./order-run.server";
import type { Answered, Call, Calls } from "./order-steps";
import { evidenceOf } from "./tagging";
import { ClickRecord } from "../database/tables";

// Every call the steps of an order's verification ask for, made here and nowhere else: the
// database reads, the Click Verification Service, Shopify's Admin API and the shop's API bucket.

export interface CallContext {
  ctx: JobContext;
  deps: PipelineDeps;
  row: Verification;
  facts: OrderFacts | null;
  settings: ServerSettings;
}

/** What a journey read costs, as Shopify counts it: a point for each object (the order, its summary, two visits). */
const JOURNEY_READ_COST = 4;
/** Clicks whose creator the policy reads, at most. */
const MAX_CLAIMED = 50;

export async function perform(call: Call, on: CallContext): Promise<Answered> {
  const answer = <K extends Call["kind"]>(result: Calls[K]["result"]) => ({ call, result }) as Answered;
  const { ctx, deps, row, settings } = on;
  const now = ctx.now();
  switch (call.kind) {
    case "witnesses":
      return answer(await witnessesOf(on));
    case "journey": {
      const waitMs = reserveRead(row.shop, now, JOURNEY_READ_COST);
      if (waitMs > 0) return answer({ ok: false, waitMs, reason: "waiting for the shop's Admin API rate limit" });
      const access = await deps.shopifyAdmin(row.shop);
      if (!access.ok) return answer({ ok: false, retryable: access.retryable, message: access.message });
      const read = await readOrderJourney(access.graphql, row.orderGid, { maxAttempts: 1 });
      if (!read.ok) {
        if (read.throttledForMs !== undefined)
          return answer({ ok: false, waitMs: read.throttledForMs, reason: "the shop's Admin API bucket is empty" });
        return answer({ ok: false, retryable: read.retryable, message: read.message });
      }
      noteSpent(row.shop, now, read.cost);
      return answer({ ok: true, journey: read.journey });
    }
    case "verify-click":
      return answer(
        await deps
          .clickService(settings)
          .verifyClick(call.request, { deadline: call.deadline ?? undefined, signal: ctx.signal }),
      );
    case "lookup-click":
      return answer(
        await deps
          .clickService(settings)
          .lookupClick(call.clickId, { deadline: call.deadline ?? undefined, signal: ctx.signal }),
      );
    case "landing-record":
      return answer(await knownClick(row.shop, call.clickId));
    case "tag-slot":
      return answer(reserveWrite(row.shop, now, ctx.job.runAt));
    case "tag-access":
      return answer(await deps.shopifyAdmin(row.shop));
    case "tag-state":
      return answer(await readOrderTagGuardState(call.access.graphql, row.orderGid, { maxAttempts: 1 }));
    case "tag-write": {
      const result = await markOrderHijacked(call.access.graphql, evidenceOf({ row, now }, settings), {
        maxAttempts: 1,
      });
      if (result.ok) noteWritten(row.shop, now, result.cost);
      else if (result.throttledForMs !== undefined) noteThrottled(row.shop, now, result.throttledForMs);
      countTagWrite(
        result.ok ? "ok" : result.throttledForMs !== undefined ? "throttled" : result.retryable ? "retryable" : "error",
      );
      return answer(result);
    }
    case "pixel-saw-click":
      return answer(await pixelSawClick(row.shop, call.clickId));
    case "pending-events":
      return answer(await hasPendingEvents(row.shop, row.orderId));
  }
}

/** What Shopify's data binds to the order, and what the app knows of each click's creator. */
async function witnessesOf({ row, facts, settings }: CallContext): Promise<OrderWitnesses> {
  if (!facts) throw new Error("the order's facts are gone: nothing to attribute it with");
  const window = settings.attributionWindowDays;
  const [touches, pixel] = await Promise.all([
    facts.cartToken ? cartTouches(row.shop, facts.cartToken, row.orderCreatedAt, window) : [],
    pixelWitness(row.shop, facts, row.orderCreatedAt, window),
  ]);
  const cart = cartClaim(facts.cartAttributes);
  const clickIds = [
    ...new Set([
      ...touches.map((t) => t.clickId),
      ...(pixel.bound?.landings ?? []).map((l) => l.clickId),
      ...(cart.clickId ? [cart.clickId] : []),
    ]),
  ].slice(0, MAX_CLAIMED);
  return {
    shopify: { landingSite: recordedVisit(facts.landingSite, settings.tagParams), journey: null },
    touches,
    pixel: pixel.bound,
    unbound: pixel.unbound,
    cart,
    creators: await creatorsOf(row.shop, clickIds),
  };
}

/** The creator lookup-click gave for each click, for the clicks it knows. */
async function creatorsOf(shop: string, clickIds: string[]): Promise<Map<string, string | null>> {
  if (clickIds.length === 0) return new Map();
  const rows = await sql.rows<{ clickId: string; creatorId: string | null }>(Prisma.sql`
    SELECT ${ClickRecord.clickId}, ${ClickRecord.creatorId} FROM ${ClickRecord}
    WHERE ${ClickRecord.shop} = ${shop} AND ${ClickRecord.clickId} IN (${Prisma.join(clickIds)}) AND ${ClickRecord.state} = 'known'`);
  return new Map(rows.map((r) => [r.clickId, r.creatorId]));
}
