import type { LandingTouchFact, LinkedJourney, RecordedVisit, ShopifyRecord } from "./witness-facts";

// When each click arrived, as the app can know it (decision 047): a report's first sight on the
// app's own clock, or the start of a visit Shopify recorded with the click as its landing page.
// The click that arrived first keeps the credit; Shopify's record of the landing settles a race
// within the landing's moment.

/**
 * Reports that reach the app within this long of the first one belong to the same landing: the
 * embed and the pixel report a page's click within a second or two of the page, and a script
 * racing them reports in the same moment. Among them, the click Shopify recorded as the landing
 * page keeps the credit.
 */
export const LANDING_MOMENT_MS = 10_000;
/** How far the app's clock and Shopify's may disagree when a visit's start is weighed against a report. */
export const CLOCK_SKEW_MS = 2_000;
/**
 * Shopify gives an order's created_at to the second: a report the app saw a full second after it
 * came after the order was placed, whatever the milliseconds were.
 */
export const ORDER_TIME_RESOLUTION_MS = 1_000;
/** A visitor or cart that changes within this long of a click changes in the middle of its journey. */
export const JOURNEY_ACTIVE_MS = 60 * 60 * 1000;

export interface Sighting extends LandingTouchFact {
  witness: "landing" | "pixel";
}

export type Recorded = RecordedVisit & { clickId: string };

/**
 * The click that arrived first. `by`: "report" when a bound witness's report decided, "record"
 * when Shopify's record of a visit did (its visit began no later than the first report, or it is
 * among the reports of the landing's moment), "cart" when only the cart's attributes named one.
 * `at`: its arrival (null: none is known).
 */
export interface Lead {
  clickId: string;
  by: "report" | "record" | "cart";
  at: Date | null;
}

export function leadOf(sightings: Sighting[], recorded: Recorded[], cartClick: string | null): Lead | null {
  const first = sightings[0];
  if (!first) {
    const onRecord = recorded[0];
    if (onRecord) return { clickId: onRecord.clickId, by: "record", at: onRecord.at };
    return cartClick ? { clickId: cartClick, by: "cart", at: null } : null;
  }
  const seenAt = (clickId: string) => sightings.find((s) => s.clickId === clickId)?.seenAt ?? null;
  // A visit Shopify recorded with a click, begun no later than the first report: that click came first.
  const byVisit = recorded.find((r) => r.at !== null && r.at.getTime() <= first.seenAt.getTime() + CLOCK_SKEW_MS);
  if (byVisit) return { clickId: byVisit.clickId, by: "record", at: byVisit.at };
  // Reports of the landing's moment: the one Shopify recorded as the landing page keeps the credit.
  const inMoment = recorded.find((r) => {
    const at = seenAt(r.clickId);
    return at !== null && at.getTime() - first.seenAt.getTime() <= LANDING_MOMENT_MS;
  });
  if (inMoment) return { clickId: inMoment.clickId, by: "record", at: first.seenAt };
  return { clickId: first.clickId, by: "report", at: first.seenAt };
}

/**
 * Whether the lead is Shopify's record alone of a visit begun after the same network source
 * brought another creator's click, with nothing of the order's own journey ever reported (the
 * shopper declined tracking, and the embed reported only that click's arrival; or every report
 * was withheld): a visit recorded behind a reset visitor cookie. A recorded visit displaces no
 * click seen before it, and a click seen only through the network source credits nothing, so
 * such an order is nobody's (decision 049). "unknown": when the visit began is not known.
 * `sameCreator`: whether two clicks are known to be one creator's (a shopper's own second link).
 */
export function recordAfterLinked(
  lead: Lead | null,
  linked: LinkedJourney | null | undefined,
  sameCreator: (a: string, b: string) => boolean,
): boolean | "unknown" {
  if (!lead || lead.by !== "record" || !linked || linked.ownSince !== null) return false;
  if (linked.first.clickId === lead.clickId || sameCreator(linked.first.clickId, lead.clickId)) return false;
  if (lead.at === null) return "unknown";
  return lead.at.getTime() > linked.first.seenAt.getTime() + CLOCK_SKEW_MS;
}

/**
 * The visit Shopify recorded as under way when the credited click arrived: the latest visit of
 * the order's journey begun by then. null: every visit Shopify recorded began after it;
 * "unknown": when the visits began is not known (the journey unread or not ready, or no visit
 * recorded at all). A click with no arrival time is weighed against the visit that checked out.
 */
export function visitAt(shopify: ShopifyRecord, at: Date | null): RecordedVisit | null | "unknown" {
  if (!shopify.journey?.ready) return "unknown";
  // No time (only the cart's attributes named the click): the visit that checked out.
  if (at === null) return shopify.journey.visits.at(-1) ?? null;
  const begun = shopify.journey.visits.filter((v) => v.at !== null && v.at.getTime() <= at.getTime() + CLOCK_SKEW_MS);
  return begun.at(-1) ?? null;
}

/** The clicks Shopify recorded as landing pages, earliest visit first. */
export function recordedClicks(shopify: ShopifyRecord): Recorded[] {
  const visits = [
    ...(shopify.journey?.ready ? shopify.journey.visits : []),
    ...(shopify.landingSite ? [shopify.landingSite] : []),
  ];
  const out: Recorded[] = [];
  for (const visit of visits) {
    // Stryker disable next-line ArrowFunction,ConditionalExpression: a click listed twice changes nothing, the list is read only by its first entry and by membership
    if (visit.clickId !== null && !out.some((v) => v.clickId === visit.clickId))
      out.push({ ...visit, clickId: visit.clickId });
  }
  return out;
}
