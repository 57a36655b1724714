import { Prisma, type Verification } from "@prisma/client";
import { cartClaim, recordedVisit } from "../attribution/click-claims";
import type { OrderWitnesses } from "../attribution/witnesses";
import { hasPendingEvents } from "../commissions/order-events.server";
import { sql, type Sql } from "../database/sql.server";
import { cartTouches, knownClick, linkedJourney } from "../landing/journey.server";
import { pixelLandingsOf, pixelWitness } from "../pixel/sightings.server";
import type { ServerSettings } from "../settings/shop-settings.server";
import {
  markOrderHijacked,
  readOrderAmounts,
  readOrderJourney,
  readOrderTagGuardState,
} from "../shopify-admin/orders.server";
import {
  noteSpent,
  noteThrottled,
  noteWritten,
  reserveRead,
  reserveWrite,
} from "../shopify-admin/write-schedule.server";
import type { JobContext } from "../queue/runner.server";
import type { AdminFailure, AdminGraphql, QueryCost } from "../shopify-admin/admin-client.server";
import { countTagWrite } from "../metrics/registry.server";
import type { OrderFacts } from "./order-facts";
import type { PipelineDeps } from "./order-run.server";
import type { Answered, Call, Calls } from "./order-steps";
import { evidenceOf } from "./tagging";
import { mayAwaitPixel } from "./attribution-step";
import { ClickRecord } from "../database/tables";
import { heldCreators, type HeldState } from "../commissions/held-creators.server";

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
/** What an order's amounts cost to read: the order, its three money bags and their shop money, 7 points. */
const AMOUNTS_READ_COST = 7;
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
      const read = await readWithinBucket(on, JOURNEY_READ_COST, (graphql) =>
        readOrderJourney(graphql, row.orderGid, { maxAttempts: 1 }),
      );
      return answer(read.ok ? { ok: true, journey: read.journey } : read);
    }
    case "order-amounts": {
      const read = await readWithinBucket(on, AMOUNTS_READ_COST, (graphql) =>
        readOrderAmounts(graphql, row.orderGid, { maxAttempts: 1 }),
      );
      return answer(read.ok ? { ok: true, amounts: read.amounts } : read);
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
    case "pending-events":
      return answer(await hasPendingEvents(row.shop, row.orderId));
  }
}

type BucketFailure = { ok: false; waitMs: number; reason: string } | { ok: false; retryable: boolean; message: string };

/**
 * One Admin API read for the order, within the shop's bucket as the tag writes track it: a wait
 * when it is too low or Shopify throttled the read, the failure otherwise; what it cost is noted.
 */
async function readWithinBucket<T extends { ok: true; cost?: QueryCost }>(
  { ctx, deps, row }: CallContext,
  cost: number,
  read: (graphql: AdminGraphql) => Promise<T | AdminFailure>,
): Promise<T | BucketFailure> {
  const now = ctx.now();
  const waitMs = reserveRead(row.shop, now, cost);
  if (waitMs > 0) return { ok: false, waitMs, reason: "waiting for the shop's Admin API rate limit" };
  const access = await deps.shopifyAdmin(row.shop);
  if (!access.ok) return { ok: false, retryable: access.retryable, message: access.message };
  const result = await read(access.graphql);
  if (!result.ok) {
    if (result.throttledForMs !== undefined)
      return { ok: false, waitMs: result.throttledForMs, reason: "the shop's Admin API bucket is empty" };
    return { ok: false, retryable: result.retryable, message: result.message };
  }
  noteSpent(row.shop, now, result.cost);
  return result;
}

/**
 * What Shopify's data binds to the order, and what the app knows of each click's creator. Read
 * together (sql.together): the reads that need nothing of another go out at once, so the order
 * costs two round trips here on PostgreSQL (three when its linked journey brought a click no
 * witness of the order named), not five or six.
 */
function witnessesOf(on: CallContext): Promise<OrderWitnesses> {
  return sql.together((db) => witnessesFrom(db, on));
}

async function witnessesFrom(db: Sql, { row, facts, settings }: CallContext): Promise<OrderWitnesses> {
  if (!facts) throw new Error("the order's facts are gone: nothing to attribute it with");
  const window = settings.attributionWindowDays;
  const [touches, pixel, held] = await Promise.all([
    facts.cartToken ? cartTouches(db, row.shop, facts.cartToken, row.orderCreatedAt, window) : [],
    pixelWitness(db, row.shop, facts, row.orderCreatedAt, window),
    heldCreators(db, row.shop),
  ]);
  const cart = cartClaim(facts.cartAttributes);
  const landingSite = recordedVisit(facts.landingSite, settings.tagParams);
  // Where the shopper paid from: Shopify's word (browser_ip) first, else the network source of
  // the bound checkout report, which came through Shopify's proxy from the paying browser.
  const source = row.networkSource ?? pixel.checkoutSource;
  const ownFirst = [...touches, ...(pixel.bound?.landings ?? [])].reduce<Date | null>(
    (first, s) => (first === null || s.seenAt < first ? s.seenAt : first),
    null,
  );
  // Only an order some witness names a click for can have one contested by the journey before it.
  const claims = ownFirst !== null || cart.clickId !== null || landingSite?.clickId != null;
  // The recorded clicks first: a cart full of made-up ids must not crowd them out.
  const named = [
    ...new Set([
      ...(landingSite?.clickId ? [landingSite.clickId] : []),
      ...(cart.clickId ? [cart.clickId] : []),
      ...touches.map((t) => t.clickId),
      ...(pixel.bound?.landings ?? []).map((l) => l.clickId),
      ...(pixel.bound?.checkout ?? []).flatMap((c) => (c.clickId ? [c.clickId] : [])),
      ...pixel.unbound,
    ]),
  ].slice(0, MAX_CLAIMED);
  // Whether the pixel saw a click is asked only while the order may wait for its checkout report,
  // and with the clicks' records: the click the order waits on is one of them, or the linked journey's.
  const mayWaitForPixel = mayAwaitPixel({ touches, pixel: pixel.bound }, facts.checkoutToken);
  const clicksOfAll = (clickIds: string[]) =>
    Promise.all([clicksOf(db, row.shop, clickIds), mayWaitForPixel ? pixelLandingsOf(db, row.shop, clickIds) : null]);
  // The linked journey and the named clicks' records go out together; the journey's own click is
  // read after it only when no witness of the order named it.
  const [linked, [clicks, pixelLanded]] = await Promise.all([
    source && claims
      ? linkedJourney(db, row.shop, source, {
          cartToken: facts.cartToken,
          visitors: pixel.visitors,
          until: ownFirst ?? row.orderCreatedAt,
        })
      : null,
    clicksOfAll(named),
  ]);
  if (linked && !named.includes(linked.clickId)) {
    const [more, seen] = await clicksOfAll([linked.clickId]);
    for (const [clickId, creator] of more.creators) clicks.creators.set(clickId, creator);
    for (const clickId of more.unknown) clicks.unknown.add(clickId);
    for (const clickId of seen ?? []) pixelLanded?.add(clickId);
  }
  const inState = (state: HeldState) => new Set([...held].flatMap(([id, s]) => (s === state ? [id] : [])));
  const [blocked, suspected] = [inState("blocked"), inState("suspected")];
  return {
    shopify: { landingSite, journey: null },
    touches,
    pixel: pixel.bound,
    unbound: pixel.unbound,
    cart,
    creators: clicks.creators,
    orderAt: row.orderCreatedAt,
    unknown: clicks.unknown,
    linked: linked && { first: linked, ownSince: ownFirst },
    ...(pixelLanded && pixelLanded.size > 0 && { pixelLanded }),
    ...(blocked.size > 0 && { blocked }),
    ...(suspected.size > 0 && { suspected }),
  };
}

/**
 * What lookup-click learned of each click: its creator, for the clicks the service knew (and
 * those of the linked journey), and the clicks it did not know.
 */
async function clicksOf(
  db: Sql,
  shop: string,
  clickIds: string[],
): Promise<{ creators: Map<string, string | null>; unknown: Set<string> }> {
  if (clickIds.length === 0) return { creators: new Map(), unknown: new Set() };
  const rows = await db.rows<{ clickId: string; creatorId: string | null; state: string }>(Prisma.sql`
    SELECT ${ClickRecord.clickId}, ${ClickRecord.creatorId}, ${ClickRecord.state} FROM ${ClickRecord}
    WHERE ${ClickRecord.shop} = ${shop} AND ${ClickRecord.clickId} IN (${Prisma.join(clickIds)}) AND ${ClickRecord.state} IN ('known', 'unknown')`);
  return {
    creators: new Map(rows.filter((r) => r.state === "known").map((r) => [r.clickId, r.creatorId])),
    unknown: new Set(rows.filter((r) => r.state === "unknown").map((r) => r.clickId)),
  };
}
