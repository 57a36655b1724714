import { Prisma, type Verification } from "@prisma/client";
import { cartClaim, recordedVisit } from "../attribution/find-click";
import { judgeWitnesses, type OrderWitnesses, type ShopifyRecord } from "../attribution/witnesses";
import { sql } from "../database/sql.server";
import { cartTouches } from "../landing/journey.server";
import { pixelWitness } from "../pixel/sightings.server";
import type { Transition } from "../queue/job-states";
import { orderValueOn } from "../settings/order-value-basis";
import type { ServerSettings } from "../settings/shop-settings.server";
import { readOrderJourney } from "../shopify-admin/orders.server";
import { noteSpent, reserveRead } from "../shopify-admin/write-schedule.server";
import type { OrderFacts } from "./order-facts";
import type { OrderRun } from "./order-run.server";
import { clickDeadline } from "./retry-policy";

// The attribution step (docs/attribution.md): gathers the witnesses Shopify's data binds to the
// order, asks the policy (judgeWitnesses), and reads Shopify's journey of the order when the
// policy says it can settle what the landing page cannot. What it learns is returned, to be
// written with the report's start (one write, not two).

/** How long after the order the app waits for Shopify to attribute its visits (the journey's `ready`). */
export const JOURNEY_WAIT_MS = 5 * 60 * 1000;
/** Between two reads of a journey that was not ready. */
const JOURNEY_RECHECK_MS = 60 * 1000;
/** What a journey read costs, as Shopify counts it (one point for each object: the order, its summary, two visits). */
const JOURNEY_READ_COST = 4;

export async function attributeOrder(
  run: OrderRun,
  row: Verification,
  facts: OrderFacts,
  settings: ServerSettings,
): Promise<{ end: Transition } | { attributed: Partial<Verification> }> {
  const witnesses = await witnessesOf(row, facts, settings);
  let judged = judgeWitnesses(witnesses);
  if (judged.kind === "read-journey") {
    const journey = await readJourney(run, row, settings.tagParams);
    if ("end" in journey) return journey;
    judged = judgeWitnesses({ ...witnesses, shopify: { ...witnesses.shopify, journey: journey.journey } });
  }
  // Unreachable: the policy asks for the journey only while it has not been read.
  if (judged.kind === "read-journey") throw new Error("attribution asked for the journey it was given");

  const summary = JSON.stringify(judged.witnesses);
  if (judged.kind === "unattributed") return run.end("unattributed", judged.reason, { data: { witnesses: summary } });
  const { evidence, tamper, contest } = judged;
  const orderValue = orderValueOn(facts.amounts, settings.orderValueBasis);
  return {
    attributed: {
      captureSource: evidence.source,
      clickId: evidence.clickId,
      arrivedTag: evidence.arrivedTag,
      capturedAt: evidence.capturedAt,
      orderValue: orderValue.value,
      orderValueBasis: orderValue.basis,
      deadlineAt: clickDeadline(evidence.capturedAt, row.orderCreatedAt),
      tampered: tamper !== null,
      tamperEvidence: tamper ? JSON.stringify(tamper) : null,
      witnesses: summary,
      contest: contest ? JSON.stringify(contest) : null,
    },
  };
}

/** What Shopify's data binds to the order, and what the app knows of each click's creator. */
async function witnessesOf(row: Verification, facts: OrderFacts, settings: ServerSettings): Promise<OrderWitnesses> {
  const window = settings.attributionWindowDays;
  const [touches, pixel] = await Promise.all([
    facts.cartToken ? cartTouches(row.shop, facts.cartToken, row.orderCreatedAt, window) : [],
    pixelWitness(row.shop, facts, row.orderCreatedAt, window),
  ]);
  const cart = cartClaim(facts.cartAttributes);
  const shopify: ShopifyRecord = { landingSite: recordedVisit(facts.landingSite, settings.tagParams), journey: null };
  const clickIds = [
    ...new Set([
      ...touches.map((t) => t.clickId),
      ...(pixel.bound?.landings ?? []).map((l) => l.clickId),
      ...(cart.clickId ? [cart.clickId] : []),
    ]),
  ].slice(0, 50);
  return {
    shopify,
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
    SELECT "clickId", "creatorId" FROM "ClickRecord"
    WHERE "shop" = ${shop} AND "clickId" IN (${Prisma.join(clickIds)}) AND "state" = 'known'`);
  return new Map(rows.map((r) => [r.clickId, r.creatorId]));
}

/**
 * Shopify's journey of the order, within the shop's API bucket (a read never takes the half the
 * tag writes keep). Not ready yet: the order comes back in a few minutes, for JOURNEY_WAIT_MS
 * after it was placed; after that, or when the app cannot read it, it is judged without it.
 */
async function readJourney(
  run: OrderRun,
  row: Verification,
  tagParams: readonly string[],
): Promise<{ end: Transition } | { journey: ShopifyRecord["journey"] }> {
  const notReady = { journey: { ready: false, visits: [] } };
  const waitMs = reserveRead(row.shop, run.now, JOURNEY_READ_COST);
  if (waitMs > 0) return run.defer(new Date(run.now.getTime() + waitMs), "waiting for the shop's Admin API rate limit");
  const access = await run.deps.shopifyAdmin(row.shop);
  if (!access.ok) {
    if (access.retryable && run.attemptsLeft()) return run.retry(null, `read-journey: ${access.message}`);
    return notReady;
  }
  const result = await readOrderJourney(access.graphql, row.orderGid, { maxAttempts: 1 });
  if (!result.ok) {
    if (result.throttledForMs !== undefined)
      return run.defer(new Date(run.now.getTime() + result.throttledForMs), "the shop's Admin API bucket is empty");
    if (result.retryable && run.attemptsLeft()) return run.retry(null, `read-journey: ${result.message}`);
    return notReady;
  }
  noteSpent(row.shop, run.now, result.cost);
  const journey = result.journey;
  // Shopify keeps no journey for the order (not an online store order, or gone): none to wait for.
  if (journey === null) return notReady;
  if (journey.ready) {
    return {
      journey: {
        ready: true,
        visits: journey.visits.flatMap((v) => recordedVisit(v.landingPage, tagParams, v.occurredAt) ?? []),
      },
    };
  }
  const waitedEnough = run.now.getTime() >= row.orderCreatedAt.getTime() + JOURNEY_WAIT_MS;
  if (waitedEnough) return notReady;
  return run.defer(
    new Date(run.now.getTime() + JOURNEY_RECHECK_MS),
    "waiting for Shopify to attribute the order's visits",
  );
}
