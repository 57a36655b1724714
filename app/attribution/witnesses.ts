import { CART_ATTRIBUTES } from "./cart-attributes";
import type { ClickEvidence, ClickSearch } from "./find-click";

// Which click an order is credited to when its witnesses disagree (decision 030). Four
// witnesses can name a click:
//   landing touches   the embed's reports through the app proxy, per cart token (server record)
//   pixel             the web pixel's reports through the app proxy: the landings of the visitor
//                     whose checkout became the order (server record)
//   cart attributes   the order's note_attributes (a copy any storefront script can rewrite)
//   landing_site      the first page of the shopper's session, as Shopify recorded it
// The server records win over what the order carries. Among them the click seen FIRST keeps the
// credit: anything on the storefront (a coupon extension included) can post a touch or a pixel
// report naming another valid click just before checkout, and the later click is exactly what
// such a rewrite produces. Where the pixel saw the shopper's pages, a click no page carried
// (neither a pixel landing nor the landing page) takes no credit at all. Every other click is
// kept as evidence, and the order is marked as contested.

export interface LandingTouchFact {
  clickId: string;
  tag: string | null;
  seenAt: Date;
}

/** What the pixel reported of an order: its checkout's attributes and the visitor's landings. */
export interface PixelWitness {
  checkout: { clickId: string | null; tag: string | null }[];
  /** Oldest first. */
  landings: LandingTouchFact[];
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

export interface CompetingClick {
  clickId: string;
  witness: "landing" | "pixel";
  firstSeenAt: string;
  /** Why it took no credit. */
  why: "later" | "no-page";
}

export interface TamperEvidence {
  /** What the cart's attributes claimed (null: absent). */
  cartClickId: string | null;
  cartTag: string | null;
  /** Why the claims do not stand against the server's records. */
  findings: string[];
  /** Other clicks the server's records saw for this order; absent when there were none. */
  competingClicks?: CompetingClick[];
}

/** What each witness named, kept on the order so its page can show who saw what. */
export interface WitnessSummary {
  landing: string[];
  pixel: string[];
  pixelCheckout: { clickId: string | null; tag: string | null } | null;
  cartAttributes: { clickId: string | null; tag: string | null };
  landingSite: string | null;
}

export type JudgedSearch =
  | { found: true; evidence: ClickEvidence; tamper: TamperEvidence | null; witnesses: WitnessSummary }
  | { found: false; reason: string; witnesses: WitnessSummary };

interface Sighting extends LandingTouchFact {
  witness: "landing" | "pixel";
}

/** Clicks listed per witness on the order, at most this many each. */
const MAX_LISTED = 20;

/**
 * `fromOrder` is what the order itself carries (findClick: cart attributes, else landing page);
 * `landingSiteClickId` the click id of the order's landing page, if any; `touches` the cart's
 * touches and `pixel` the pixel's reports of the order (null: none), within the attribution
 * window, oldest first.
 */
export function judgeWitnesses(
  fromOrder: ClickSearch,
  cartAttributes: readonly { name: string; value: string }[],
  landingSiteClickId: string | null,
  touches: readonly LandingTouchFact[],
  pixel: PixelWitness | null,
): JudgedSearch {
  const attribute = (name: string) => cartAttributes.find((a) => a.name === name)?.value.trim() || null;
  const cartClickId = attribute(CART_ATTRIBUTES.clickId);
  const cartTag = attribute(CART_ATTRIBUTES.arrivedTag);
  const pixelLandings = pixel?.landings ?? [];
  const witnesses: WitnessSummary = {
    landing: distinct(touches.map((t) => t.clickId)).slice(0, MAX_LISTED),
    pixel: distinct(pixelLandings.map((t) => t.clickId)).slice(0, MAX_LISTED),
    pixelCheckout: pixel?.checkout[0] ?? null,
    cartAttributes: { clickId: cartClickId, tag: cartTag },
    landingSite: landingSiteClickId,
  };

  // One timeline of the server's records; on the same instant the touch goes first.
  const sightings: Sighting[] = [
    ...touches.map((t) => ({ ...t, witness: "landing" as const })),
    ...pixelLandings.map((t) => ({ ...t, witness: "pixel" as const })),
  ].sort(
    (a, b) =>
      a.seenAt.getTime() - b.seenAt.getTime() || (a.witness === b.witness ? 0 : a.witness === "landing" ? -1 : 1),
  );
  if (sightings.length === 0) {
    return fromOrder.found ? { ...fromOrder, tamper: null, witnesses } : { ...fromOrder, witnesses };
  }

  // Where the pixel watched the shopper's pages, a click must have come on one to be credited.
  const onPages = new Set(pixelLandings.map((t) => t.clickId));
  if (landingSiteClickId) onPages.add(landingSiteClickId);
  const pagesWatched = pixelLandings.length > 0;
  const eligible = pagesWatched ? sightings.filter((s) => onPages.has(s.clickId)) : sightings;
  const credited = (eligible[0] ?? sightings[0]!).clickId;

  const ofClick = sightings.filter((s) => s.clickId === credited);
  const latest = ofClick.at(-1)!;
  const evidence: ClickEvidence = {
    source: ofClick[0]!.witness === "landing" ? "app_proxy" : "pixel",
    clickId: credited,
    arrivedTag: latest.tag,
    capturedAt: ofClick[0]!.seenAt,
    tagHistory: ofClick.map((s) => ({ tag: s.tag ?? "", at: s.seenAt.toISOString() })),
  };

  const findings: string[] = [];
  const competingClicks: CompetingClick[] = [];
  for (const s of sightings) {
    if (s.clickId === credited || competingClicks.some((c) => c.clickId === s.clickId)) continue;
    const why = pagesWatched && !onPages.has(s.clickId) ? "no-page" : "later";
    competingClicks.push({ clickId: s.clickId, witness: s.witness, firstSeenAt: s.seenAt.toISOString(), why });
  }
  if (competingClicks.some((c) => c.why === "later"))
    findings.push("another click was reported for this order after the one credited; the first click keeps the credit");
  if (competingClicks.some((c) => c.why === "no-page"))
    findings.push("a click was reported that no storefront page the pixel saw carried; it takes no credit");

  // The cart's attributes are judged only where the embed reported this cart: with the embed
  // off there are none to disagree.
  if (touches.length > 0) {
    if (cartClickId === null) findings.push("the cart's click id was removed");
    else if (!sightings.some((s) => s.clickId === cartClickId)) {
      findings.push("the cart names a click id the storefront never reported for this cart");
    }
    if (cartTag === null) {
      if (latest.tag !== null) findings.push("the cart's affiliate tag was removed");
    } else if (!sightings.some((s) => s.tag === cartTag)) {
      findings.push("the cart names an affiliate tag the storefront never reported for this cart");
    }
  }
  const tamper =
    findings.length > 0
      ? {
          cartClickId,
          cartTag,
          findings,
          ...(competingClicks.length > 0 && { competingClicks: competingClicks.slice(0, MAX_LISTED) }),
        }
      : null;
  return { found: true, evidence, tamper, witnesses };
}

function distinct(values: string[]): string[] {
  return [...new Set(values)];
}
