import type { CartClaim, ClickEvidence } from "./click-claims";

// Which click an order is credited to (docs/attribution.md, decision 035). A coupon or cashback
// extension runs inside the shopper's browser: it can read and post anything a storefront script
// can (touches, pixel reports, the cart's attributes) with valid clicks of its own, at any moment.
// What it cannot write is what Shopify's servers recorded of the order and its visits, and what
// the Click Verification Service recorded of each click. So:
// - a witness counts for an order only when Shopify's own data binds it: touches by the order's
//   cart_token, pixel reports through a checkout report carrying the order's checkout_token
//   (the caller reads only those); a report joined by an order id or a visitor id alone is
//   evidence, never a claim;
// - a click Shopify recorded as a visit's landing page (landing_site, the customer journey's
//   first and last visits) outranks any click only scripts reported; among Shopify's, the
//   earliest keeps the credit;
// - without one, the first click the bound scripts reported is credited, unless the claims name
//   different creators, or Shopify recorded the visit without any click (then only a script
//   says there was one): the order is contested, and its commission waits for the merchant.

/** A click a storefront script reported, as the app received it. */
export interface LandingTouchFact {
  clickId: string;
  tag: string | null;
  seenAt: Date;
}

/** What the pixel reported of an order, bound by its checkout token: the checkout and the visitor's landings. */
export interface PixelWitness {
  checkout: { clickId: string | null; tag: string | null }[];
  /** Oldest first. */
  landings: LandingTouchFact[];
}

/** A landing page Shopify's servers recorded: the click id and tag in its URL (null: none). */
export interface RecordedVisit {
  clickId: string | null;
  tag: string | null;
  /** When the visit began, when Shopify says (the journey's occurredAt). */
  at: Date | null;
}

export interface ShopifyRecord {
  /** The order's landing_site: the converting visit's first page. null: Shopify recorded none. */
  landingSite: RecordedVisit | null;
  /**
   * Order.customerJourneySummary when it was read (null: not read): `ready` is Shopify's word that
   * the order's visits are attributed; `visits` its first and last visits, oldest first.
   */
  journey: { ready: boolean; visits: RecordedVisit[] } | null;
}

export interface OrderWitnesses {
  shopify: ShopifyRecord;
  /** The landing touches of the order's cart_token, oldest first. */
  touches: readonly LandingTouchFact[];
  /** The pixel's reports bound by the order's checkout_token; null: none. */
  pixel: PixelWitness | null;
  /** Clicks of pixel reports that named the order without its checkout token: evidence only. */
  unbound: readonly string[];
  /** Our attributes on the order (its note_attributes): bound to it by Shopify, written by scripts. */
  cart: CartClaim;
  /** Each reported click's creator as lookup-click told the app; missing or null: not known. */
  creators: ReadonlyMap<string, string | null>;
}

export type Witness = "landing" | "pixel" | "cart_attributes" | "landing_site";

/** The witness an evidence source stands for (the report's and the dashboard's name). */
export function witnessOf(source: ClickEvidence["source"] | string | null): Witness | null {
  switch (source) {
    case "app_proxy":
      return "landing";
    case "pixel":
    case "cart_attributes":
    case "landing_site":
      return source;
    default:
      return null;
  }
}

type ScriptWitness = "landing" | "pixel" | "cart_attributes";

export interface CompetingClick {
  clickId: string;
  witness: Witness;
  /** null: the witness gave no time (the cart's attributes, a landing page). */
  firstSeenAt: string | null;
  /** Why it took no credit: reported after the credited click, or only scripts named it. */
  why: "later" | "unrecorded";
}

export interface TamperEvidence {
  /** What the cart's attributes claimed (null: absent). */
  cartClickId: string | null;
  cartTag: string | null;
  /** Why the claims do not stand against the records. */
  findings: string[];
  /** Other clicks reported for this order; absent when there were none. */
  competingClicks?: CompetingClick[];
}

/** One click a bound witness named for a contested order: what the merchant chooses among. */
export interface Claim {
  clickId: string;
  /** The creator lookup-click gave for it when the order was judged (null: not known then). */
  creatorId: string | null;
  witnesses: ScriptWitness[];
  firstSeenAt: string | null;
  /** The latest tag reported with it. */
  arrivedTag: string | null;
}

export type ContestReason = "creators-differ" | "unrecorded-click" | "journey-not-ready";

export interface Contest {
  reason: ContestReason;
  claims: Claim[];
}

/** What each witness named, kept on the order so its page can show who saw what. */
export interface WitnessSummary {
  landing: string[];
  pixel: string[];
  pixelCheckout: { clickId: string | null; tag: string | null } | null;
  cartAttributes: { clickId: string | null; tag: string | null };
  landingSite: string | null;
  /** The clicks of the journey's visits Shopify recorded, when it was read. */
  journey?: { ready: boolean; clicks: string[] };
  /** Clicks of reports that named the order without its checkout token (not counted). */
  unbound?: string[];
}

export type Attribution =
  | { kind: "unattributed"; reason: string; witnesses: WitnessSummary }
  /** Shopify's journey can settle what the order's landing page does not: read it, then judge again. */
  | { kind: "read-journey" }
  | {
      kind: "attributed";
      evidence: ClickEvidence;
      tamper: TamperEvidence | null;
      witnesses: WitnessSummary;
      /** Set when the merchant must decide; the commission is held meanwhile. */
      contest: Contest | null;
    };

/** Clicks listed per witness on the order, at most this many each. */
const MAX_LISTED = 20;

interface Sighting extends LandingTouchFact {
  witness: "landing" | "pixel";
}

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

  // The scripts' timeline; on the same instant the touch goes first. The cart's click comes after
  // every report (its time is the script's own word).
  const sightings: Sighting[] = [
    ...touches.map((t) => ({ ...t, witness: "landing" as const })),
    ...pixelLandings.map((t) => ({ ...t, witness: "pixel" as const })),
  ].sort(
    (a, b) =>
      a.seenAt.getTime() - b.seenAt.getTime() ||
      // Stryker disable next-line ArithmeticOperator: only the sign counts, and + differs from - only for a touch weighed, as the later element, against a pixel landing of the same instant: the touches are listed first, so the stable sort never asks that
      order(a.witness) - order(b.witness),
  );
  const claimed = distinct([...sightings.map((s) => s.clickId), ...(cart.clickId ? [cart.clickId] : [])]);

  const recorded = recordedClicks(shopify);
  const firstRecorded = recorded[0];
  // Shopify's journey is worth its read only when it can change the answer: a click reported
  // on a visit whose landing page carried none, or a click first reported before the one the
  // landing page carried (an earlier visit may have brought it, or a script raced the embed).
  if (
    shopify.journey === null &&
    shopify.landingSite !== null &&
    claimed.some(
      (clickId) =>
        !recorded.some(
          // Stryker disable next-line ArrowFunction,ConditionalExpression: with the journey unread the landing page's click is the only one recorded; when every claim names it, the first claim is it and the next test fails all the same
          (r) => r.clickId === clickId,
        ),
    ) &&
    (sightings[0]?.clickId ?? cart.clickId) !== firstRecorded?.clickId
  )
    return { kind: "read-journey" };

  if (firstRecorded) {
    const credited = firstRecorded.clickId;
    const ofClick = sightings.filter((s) => s.clickId === credited);
    const fromCart = cart.clickId === credited;
    const competingClicks = competing(sightings, cart, credited, (clickId) =>
      recorded.some((r) => r.clickId === clickId) ? "later" : "unrecorded",
    );
    const findings = competingFindings(competingClicks);
    // Shopify's record chose the click; the evidence names the witness that brought it to the
    // app first (a script's report, the cart), as the report's `witness` always has.
    const first = ofClick[0];
    return {
      kind: "attributed",
      evidence: {
        source: first ? sourceOf(first.witness) : fromCart ? "cart_attributes" : "landing_site",
        clickId: credited,
        arrivedTag: ofClick.length > 0 || fromCart ? latestTag(ofClick, cart, credited) : firstRecorded.tag,
        // When the visit began, as Shopify recorded it, is the best word on when the click was.
        capturedAt: firstRecorded.at ?? first?.seenAt ?? (fromCart ? cart.capturedAt : null),
        tagHistory: first ? history(ofClick) : fromCart ? cart.tagHistory : [],
      },
      tamper: tamperOf(cart, sightings, touches.length > 0, findings, competingClicks),
      witnesses,
      contest: null,
    };
  }

  if (claimed.length === 0) {
    return {
      kind: "unattributed",
      reason:
        cart.refused ??
        "no click id in Shopify's record of the visit, the storefront's reports or the order's attributes",
      witnesses,
    };
  }

  // Only scripts named a click: the first one reported keeps the credit, if nothing contests it.
  const credited = sightings[0]?.clickId ?? cart.clickId!;
  const ofClick = sightings.filter((s) => s.clickId === credited);
  const first = ofClick[0];
  const evidence: ClickEvidence = first
    ? {
        source: sourceOf(first.witness),
        clickId: credited,
        arrivedTag: latestTag(ofClick, cart, credited),
        capturedAt: first.seenAt,
        tagHistory: history(ofClick),
      }
    : {
        source: "cart_attributes",
        clickId: credited,
        arrivedTag: cart.tag,
        capturedAt: cart.capturedAt,
        tagHistory: cart.tagHistory,
      };
  const competingClicks = competing(sightings, cart, credited, () => "later");
  const findings = competingFindings(competingClicks);
  return {
    kind: "attributed",
    evidence,
    tamper: tamperOf(cart, sightings, touches.length > 0, findings, competingClicks),
    witnesses,
    contest: contestOf(facts, claimed, sightings),
  };
}

/**
 * Whether the merchant must decide: the claims name different creators (a click whose creator
 * the app does not know counts as another's), or Shopify recorded the visit without any click,
 * so that only a script says there was one: a script planting its own click on an organic visit
 * looks exactly like that. The journey read and ready with no click on any visit says so; not
 * ready when the app stopped waiting, Shopify's record is silent, and the order waits too. Only
 * when Shopify recorded no landing page at all (not an online store order) does one creator's
 * script claim stand alone.
 */
function contestOf(facts: OrderWitnesses, claimed: string[], sightings: Sighting[]): Contest | null {
  const creators = claimed.map((clickId) => facts.creators.get(clickId) ?? null);
  const reason: ContestReason | null =
    claimed.length > 1 && (creators.includes(null) || distinct(creators as string[]).length > 1)
      ? "creators-differ"
      : facts.shopify.landingSite === null
        ? null
        : facts.shopify.journey?.ready === false
          ? "journey-not-ready"
          : "unrecorded-click";
  if (reason === null) return null;
  const claims = claimed.slice(0, MAX_LISTED).map((clickId): Claim => {
    const seen = sightings.filter((s) => s.clickId === clickId);
    const fromCart = facts.cart.clickId === clickId;
    return {
      clickId,
      creatorId: facts.creators.get(clickId) ?? null,
      witnesses: distinct([...seen.map((s) => s.witness), ...(fromCart ? ["cart_attributes" as const] : [])]),
      firstSeenAt: seen[0]?.seenAt.toISOString() ?? facts.cart.capturedAt?.toISOString() ?? null,
      arrivedTag: latestTag(seen, facts.cart, clickId),
    };
  });
  return { reason, claims };
}

/** The clicks Shopify recorded as landing pages, earliest visit first. */
function recordedClicks(shopify: ShopifyRecord): (RecordedVisit & { clickId: string })[] {
  const visits = [
    ...(shopify.journey?.ready ? shopify.journey.visits : []),
    ...(shopify.landingSite ? [shopify.landingSite] : []),
  ];
  const out: (RecordedVisit & { clickId: string })[] = [];
  for (const visit of visits) {
    // Stryker disable next-line ArrowFunction,ConditionalExpression: a click listed twice changes nothing, the list is read only by its first entry and by membership
    if (visit.clickId !== null && !out.some((v) => v.clickId === visit.clickId))
      out.push({ ...visit, clickId: visit.clickId });
  }
  return out;
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

function competing(
  sightings: Sighting[],
  cart: OrderWitnesses["cart"],
  credited: string,
  why: (clickId: string) => CompetingClick["why"],
): CompetingClick[] {
  const out: CompetingClick[] = [];
  for (const s of sightings) {
    if (s.clickId === credited || out.some((c) => c.clickId === s.clickId)) continue;
    out.push({ clickId: s.clickId, witness: s.witness, firstSeenAt: s.seenAt.toISOString(), why: why(s.clickId) });
  }
  if (cart.clickId && cart.clickId !== credited && !out.some((c) => c.clickId === cart.clickId))
    out.push({ clickId: cart.clickId, witness: "cart_attributes", firstSeenAt: null, why: why(cart.clickId) });
  return out.slice(0, MAX_LISTED);
}

function competingFindings(competingClicks: CompetingClick[]): string[] {
  const findings: string[] = [];
  if (competingClicks.some((c) => c.why === "later"))
    findings.push("another click was reported for this order after the one credited; the first click keeps the credit");
  if (competingClicks.some((c) => c.why === "unrecorded"))
    findings.push(
      "a click only storefront scripts reported stands against the one Shopify recorded; it takes no credit",
    );
  return findings;
}

/**
 * The cart's attributes are judged only where the embed reported this cart: with the embed off
 * there are no touches for them to disagree with.
 */
function tamperOf(
  cart: OrderWitnesses["cart"],
  sightings: Sighting[],
  embedReported: boolean,
  findings: string[],
  competingClicks: CompetingClick[],
): TamperEvidence | null {
  const all = [...findings];
  if (embedReported) {
    if (cart.clickId === null) all.push("the cart's click id was removed");
    else if (!sightings.some((s) => s.clickId === cart.clickId))
      all.push("the cart names a click id the storefront never reported for this cart");
    const latest = sightings.at(-1);
    if (cart.tag === null) {
      if (latest && latest.tag !== null) all.push("the cart's affiliate tag was removed");
    } else if (!sightings.some((s) => s.tag === cart.tag)) {
      all.push("the cart names an affiliate tag the storefront never reported for this cart");
    }
  }
  if (all.length === 0) return null;
  return {
    cartClickId: cart.clickId,
    cartTag: cart.tag,
    findings: all,
    ...(competingClicks.length > 0 && { competingClicks }),
  };
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
