import {
  JOURNEY_ACTIVE_MS,
  leadOf,
  ORDER_TIME_RESOLUTION_MS,
  recordAfterLinked,
  recordedClicks,
  visitAt,
  type Lead,
  type Sighting,
} from "./arrival";
import type { ClickEvidence } from "./click-claims";
import { competing, competingFindings, MAX_LISTED, tamperOf } from "./tamper-evidence";
import type { Attribution, Claim, Contest, OrderWitnesses, RecordedVisit, WitnessSummary } from "./witness-facts";

export * from "./witness-facts";
export { CLOCK_SKEW_MS, JOURNEY_ACTIVE_MS, LANDING_MOMENT_MS } from "./arrival";

// Which click an order is credited to (docs/attribution.md, decisions 036 and 047). A coupon or
// cashback extension owns the shopper's browser: it can post anything a storefront script can
// (touches, pixel reports, the cart's attributes) with valid clicks of its own, at any moment;
// it can delete and write cookies, so Shopify's record of the visit (landing_site and the
// journey, keyed by the visitor cookie) is within its reach too: a fresh visitor id and one page
// view make the order's visit any page it likes. What it cannot write is what the click service
// recorded of each click, and what the app's own server saw, when (its clock) and from where
// (the request's network source). So:
// - a witness counts only when Shopify's data binds it to the order (touches by its cart_token,
//   pixel reports through a checkout report carrying its checkout_token); a report joined by an
//   order id or a visitor id alone is evidence, never a claim;
// - what the app saw first decides: the click whose arrival is earliest keeps the credit. A
//   click arrives when a bound witness first reported it on the app's clock, or, when Shopify
//   recorded it as a visit's landing page, when that visit began. Clicks reported in the same
//   moment as a landing (a script racing the embed) yield to the one Shopify recorded;
// - Shopify's record confirms, and decides alone only where nothing else was seen; a visit it
//   recorded after the first click was seen (a reset visitor) displaces nothing;
// - clicks the service said it does not know, and clicks first reported after the order was
//   placed, take no credit; a click that came with a fresh cart and visitor minutes after the
//   same network source brought another creator's click is held for the merchant.

/** Why a click that was reported takes no credit, as the order page says it. */
const SET_ASIDE = {
  unknown: "the Click Verification Service did not know it when the app looked it up (made up, or replayed)",
  late: "it was first reported after the order was placed",
  blocked: "its creator is blocked by the merchant",
  suspected: "its creator is suspected of hijacking orders, and it was contested",
} as const;

export function judgeWitnesses(facts: OrderWitnesses): Attribution {
  const { shopify, touches, pixel, cart } = facts;
  const pixelLandings = pixel?.landings ?? [];
  const witnesses: WitnessSummary = {
    landing: distinct(touches.map((t) => t.clickId)).slice(0, MAX_LISTED),
    pixel: distinct(pixelLandings.map((t) => t.clickId)).slice(0, MAX_LISTED),
    pixelCheckout: pixel?.checkout[0] ?? null,
    cartAttributes: { clickId: cart.clickId, tag: cart.tag },
    landingSite: shopify.landingSite?.clickId ?? null,
    ...(shopify.journey && {
      journey: {
        ready: shopify.journey.ready,
        clicks: distinct(shopify.journey.visits.flatMap((v) => (v.clickId ? [v.clickId] : []))),
      },
    }),
    ...(facts.unbound.length > 0 && { unbound: distinct([...facts.unbound]).slice(0, MAX_LISTED) }),
  };

  // The scripts' timeline on the app's clock; on the same instant the touch goes first. The
  // cart's click comes after every report (its time is the script's own word).
  const reported: Sighting[] = [
    ...touches.map((t) => ({ ...t, witness: "landing" as const })),
    ...pixelLandings.map((t) => ({ ...t, witness: "pixel" as const })),
  ].sort(
    (a, b) =>
      a.seenAt.getTime() - b.seenAt.getTime() ||
      // Stryker disable next-line ArithmeticOperator: only the sign counts, and + differs from - only for a touch weighed, as the later element, against a pixel landing of the same instant: the touches are listed first, so the stable sort never asks that
      order(a.witness) - order(b.witness),
  );
  const claimed = distinct([...reported.map((s) => s.clickId), ...(cart.clickId ? [cart.clickId] : [])]);

  const recordedAll = recordedClicks(shopify);
  // Shopify's journey is worth its read only when it can change the answer: a click reported
  // on a visit whose landing page carried none, or a click first reported before the one the
  // landing page carried (an earlier visit may have brought it, a script raced the embed, or
  // the visit was recorded under a visitor reset mid-journey): when each visit began decides.
  if (
    shopify.journey === null &&
    shopify.landingSite !== null &&
    claimed.some(
      (clickId) =>
        !recordedAll.some(
          // Stryker disable next-line ArrowFunction,ConditionalExpression: with the journey unread the landing page's click is the only one recorded; when every claim names it, the first claim is it and the next test fails all the same
          (r) => r.clickId === clickId,
        ),
    ) &&
    (reported[0]?.clickId ?? cart.clickId) !== recordedAll[0]?.clickId
  )
    return { kind: "read-journey" };

  // Clicks that take no credit whoever reported them: the service's word that a click is not
  // one, and a report made after the order, which cannot have brought the shopper to it.
  const setAside = new Map<string, string>();
  const creatorIn = (creators: ReadonlySet<string> | undefined, clickId: string) =>
    creators?.has(facts.creators.get(clickId) ?? "") === true;
  const outOf = (clickId: string) =>
    creatorIn(facts.blocked, clickId)
      ? SET_ASIDE.blocked
      : creatorIn(facts.outOfContest, clickId)
        ? SET_ASIDE.suspected
        : null;
  for (const clickId of claimed) {
    const firstSeen = reported.find((s) => s.clickId === clickId)?.seenAt;
    if (facts.unknown?.has(clickId)) setAside.set(clickId, SET_ASIDE.unknown);
    else if (outOf(clickId)) setAside.set(clickId, outOf(clickId)!);
    else if (
      facts.orderAt &&
      firstSeen &&
      firstSeen.getTime() >= facts.orderAt.getTime() + ORDER_TIME_RESOLUTION_MS &&
      !recordedAll.some((r) => r.clickId === clickId)
    )
      setAside.set(clickId, SET_ASIDE.late);
  }
  for (const r of recordedAll) {
    if (facts.unknown?.has(r.clickId)) setAside.set(r.clickId, SET_ASIDE.unknown);
    else if (outOf(r.clickId)) setAside.set(r.clickId, outOf(r.clickId)!);
  }
  const sightings = reported.filter((s) => !setAside.has(s.clickId));
  const recorded = recordedAll.filter((r) => !setAside.has(r.clickId));
  const cartClick = cart.clickId !== null && !setAside.has(cart.clickId) ? cart.clickId : null;
  const asideFindings = [...setAside].map(([clickId, why]) => `click ${clickId} takes no credit: ${why}`);

  const lead = leadOf(sightings, recorded, cartClick);
  const creatorOf = (clickId: string) => facts.creators.get(clickId) ?? null;
  const afterLinked = recordAfterLinked(
    lead,
    linkedOf(facts),
    (a, b) => creatorOf(a) !== null && creatorOf(a) === creatorOf(b),
  );
  // When that visit began decides: Shopify's journey says.
  if (afterLinked === "unknown" && shopify.journey === null) return { kind: "read-journey" };
  if (lead === null || afterLinked === true || (lead.by === "record" && sightings.length === 0 && pixel !== null)) {
    // Shopify's record alone names a click while the shop's pixel ran in the browser that paid
    // (its checkout report is bound) and never reported that landing, or on a visit begun after
    // the same network source brought another creator's click: a page the shopper's browser did
    // not show, as a page view made behind a reset visitor is.
    const linked = linkedOf(facts)?.first;
    return {
      kind: "unattributed",
      reason:
        lead !== null && afterLinked === true && linked
          ? `only Shopify's record of the visit names click ${lead.clickId}, on a visit that began after the same network source (the shopper's address and browser) brought click ${linked.clickId}, another creator's, at ${linked.seenAt.toISOString()}, and nothing of this order's own journey was reported: a visit recorded behind a reset visitor cookie looks like this`
          : lead !== null
            ? `only Shopify's record of the visit names click ${lead.clickId}, and the shop's web pixel, which reported this order's checkout from the same browser, never reported that landing page: a visit recorded behind a reset visitor cookie looks like this`
            : (cart.refused ??
              (setAside.size > 0
                ? `no click that can be credited: ${asideFindings.join("; ")}`
                : "no click id in Shopify's record of the visit, the storefront's reports or the order's attributes")),
      witnesses,
    };
  }

  const credited = lead.clickId;
  const ofClick = sightings.filter((s) => s.clickId === credited);
  const first = ofClick[0];
  const fromCart = cart.clickId === credited;
  const recordedLead = recorded.find((r) => r.clickId === credited);
  const evidence: ClickEvidence = {
    source: first ? sourceOf(first.witness) : fromCart ? "cart_attributes" : "landing_site",
    clickId: credited,
    arrivedTag: ofClick.length > 0 || fromCart ? latestTag(ofClick, cart, credited) : (recordedLead?.tag ?? null),
    // When the visit began, as Shopify recorded it, is the best word on when the click was.
    capturedAt: recordedLead?.at ?? first?.seenAt ?? (fromCart ? cart.capturedAt : null),
    tagHistory: first ? history(ofClick) : fromCart ? cart.tagHistory : [],
  };

  const arrival = lead.at;
  const competingClicks = competing(sightings, cart, credited, (clickId) =>
    lead.by === "record" && !recorded.some((r) => r.clickId === clickId) ? "unrecorded" : "later",
  );
  const findings = [...competingFindings(competingClicks), ...asideFindings];
  // Shopify's record naming another creator's click that arrived after the credited one, or a
  // visit without any click begun within the hour after it: the visit was recorded under a
  // visitor that appeared mid-journey. A later click of the same creator, or a visit days later
  // (an expired cookie, a private window), is a shopper's own change, not evidence.
  const lateRecord = recorded.find(
    (r) => r.clickId !== credited && (creatorOf(r.clickId) === null || creatorOf(r.clickId) !== creatorOf(credited)),
  );
  if (lateRecord && lead.by !== "record")
    findings.push(
      `Shopify's record of the visit names click ${lateRecord.clickId}, another creator's, which reached the store after the credited click was seen: the visit was recorded under a visitor that appeared mid-journey (a reset visitor cookie looks like this)`,
    );
  const visit = visitAt(shopify, arrival);
  const converting = shopify.journey?.visits.at(-1);
  if (
    lead.by !== "record" &&
    visit === null &&
    shopify.landingSite?.clickId === null &&
    arrival !== null &&
    converting?.at &&
    converting.at.getTime() - arrival.getTime() <= JOURNEY_ACTIVE_MS
  )
    findings.push(
      "the visit Shopify recorded for this order, with no click, began within the hour after the credited click was seen: the shopper's visitor changed mid-journey (a reset visitor cookie looks like this)",
    );
  const contest = contestOf(facts, lead, visit, sightings, claimed, setAside);
  // A contest a suspected creator's click is in: what the creator-level evidence says settles it.
  const suspects = contest?.claims.flatMap((c) =>
    c.creatorId && facts.suspected?.has(c.creatorId) ? [c.creatorId] : [],
  );
  if (contest && suspects?.length) return withoutSuspects(facts, contest, new Set(suspects));
  return {
    kind: "attributed",
    evidence,
    tamper: tamperOf(cart, sightings, touches.length > 0, findings, competingClicks),
    witnesses,
    contest,
  };
}

/**
 * A contest a suspected creator's click is in, settled as the merchant would settle it: judged
 * again without the suspects' clicks; where that leaves nothing to credit, the contest's first
 * claim of a creator not suspected (the journey's earlier click, brought by the same network
 * source before the cart and visitor changed), else nobody.
 */
function withoutSuspects(facts: OrderWitnesses, contest: Contest, suspects: ReadonlySet<string>): Attribution {
  const judged = judgeWitnesses({ ...facts, suspected: undefined, outOfContest: suspects });
  const other = contest.claims.find((c) => c.creatorId !== null && !suspects.has(c.creatorId));
  if (judged.kind !== "unattributed" || !other) return judged;
  const [witness = "landing"] = other.witnesses;
  const findings = contest.claims
    .filter((c) => c.creatorId !== null && suspects.has(c.creatorId))
    .map((c) => `click ${c.clickId} takes no credit: ${SET_ASIDE.suspected}`);
  return {
    kind: "attributed",
    evidence: {
      source: witness === "cart_attributes" ? witness : sourceOf(witness),
      clickId: other.clickId,
      arrivedTag: other.arrivedTag,
      capturedAt: other.firstSeenAt ? new Date(other.firstSeenAt) : null,
      tagHistory: [],
    },
    tamper: { cartClickId: facts.cart.clickId, cartTag: facts.cart.tag, findings },
    witnesses: judged.witnesses,
    contest: null,
  };
}

/**
 * Whether the merchant must decide, when the evidence cannot: a click only scripts reported,
 * first seen in the middle of a visit Shopify recorded without any click (a script planting a
 * click on an organic visit looks exactly like a shopper who opened a creator's link mid-visit);
 * a visit Shopify recorded whose start the app could not learn in time; or a click that came
 * with a fresh cart and visitor while the same network source was minutes into another
 * creator's journey (a browser whose cookies were reset, or two shoppers behind one address and
 * one browser build).
 */
function contestOf(
  facts: OrderWitnesses,
  lead: Lead,
  visit: RecordedVisit | null | "unknown",
  sightings: Sighting[],
  claimed: string[],
  setAside: ReadonlyMap<string, string>,
): Contest | null {
  const claimsOf = (clickIds: string[], extra: Claim[] = []): Claim[] =>
    [
      ...extra,
      ...distinct(clickIds)
        .filter((clickId) => !setAside.has(clickId))
        .map((clickId): Claim => {
          const seen = sightings.filter((s) => s.clickId === clickId);
          const fromCart = facts.cart.clickId === clickId;
          return {
            clickId,
            creatorId: facts.creators.get(clickId) ?? null,
            witnesses: distinct([...seen.map((s) => s.witness), ...(fromCart ? ["cart_attributes" as const] : [])]),
            firstSeenAt: seen[0]?.seenAt.toISOString() ?? facts.cart.capturedAt?.toISOString() ?? null,
            arrivedTag: latestTag(seen, facts.cart, clickId),
          };
        }),
    ].slice(0, MAX_LISTED);

  // No visit recorded at all (not an online store order): nothing of Shopify's can tell which
  // of several creators' clicks came first, and the scripts' order is theirs to arrange.
  if (facts.shopify.landingSite === null) {
    const live = claimed.filter((clickId) => !setAside.has(clickId));
    const creators = live.map((clickId) => facts.creators.get(clickId) ?? null);
    if (live.length > 1 && (creators.includes(null) || distinct(creators as string[]).length > 1))
      return { reason: "creators-differ", claims: claimsOf(live) };
  }
  const linked = linkedOf(facts);
  if (linked && linked.first.clickId !== lead.clickId) {
    const theirs = facts.creators.get(linked.first.clickId) ?? null;
    const ours = facts.creators.get(lead.clickId) ?? null;
    if (theirs === null || ours === null || theirs !== ours) {
      const earlier: Claim = {
        clickId: linked.first.clickId,
        creatorId: theirs,
        witnesses: [linked.first.witness],
        firstSeenAt: linked.first.seenAt.toISOString(),
        arrivedTag: linked.first.tag,
      };
      return { reason: "identity-changed", claims: claimsOf([lead.clickId], [earlier]) };
    }
  }
  if (lead.by === "record") return null;
  if (visit === "unknown") {
    // Shopify recorded the visit, but not when it began: whether the record came before the
    // click (a click planted mid-visit) or after it (a reset visitor) cannot be told.
    if (facts.shopify.landingSite === null) return null;
    const recordedSeen = facts.shopify.landingSite.clickId;
    if (recordedSeen !== null && sightings.some((s) => s.clickId === recordedSeen)) return null;
    return { reason: "journey-not-ready", claims: claimsOf(claimed) };
  }
  if (visit === null || (visit.clickId !== null && !setAside.has(visit.clickId))) return null;
  return { reason: "unrecorded-click", claims: claimsOf(claimed) };
}

/** The latest tag reported with the click: the scripts' reports, else the cart's when it names the click. */
function latestTag(ofClick: Sighting[], cart: OrderWitnesses["cart"], clickId: string): string | null {
  if (ofClick.length > 0) return ofClick.at(-1)!.tag;
  // Stryker disable next-line ConditionalExpression: every caller passes a click a script reported or the cart's own, so with no report of it the cart names it
  return cart.clickId === clickId ? cart.tag : null;
}

function history(ofClick: Sighting[]): ClickEvidence["tagHistory"] {
  return ofClick.map((s) => ({ tag: s.tag ?? "", at: s.seenAt.toISOString() }));
}

/** The journey the order's network source was on before, unless its click is one the service did not know (made up). */
function linkedOf(facts: OrderWitnesses) {
  return facts.linked && !facts.unknown?.has(facts.linked.first.clickId) ? facts.linked : null;
}

function sourceOf(witness: "landing" | "pixel"): ClickEvidence["source"] {
  return witness === "landing" ? "app_proxy" : "pixel";
}

function order(witness: Sighting["witness"]): number {
  // Stryker disable next-line ConditionalExpression: the sort is stable and the touches are listed before the pixel's landings, so weighing both alike keeps the touch first all the same
  return witness === "landing" ? 0 : 1;
}

function distinct<T>(values: T[]): T[] {
  return [...new Set(values)];
}
