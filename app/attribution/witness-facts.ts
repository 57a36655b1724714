import type { CartClaim, ClickEvidence } from "./click-claims";

// What the attribution policy (witnesses.ts) is told of an order and what it answers: the
// witnesses Shopify's data binds to the order, and the attribution, its evidence and contest.

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
  /** When Shopify says the order was placed: a click first reported after it did not bring it. */
  orderAt?: Date;
  /** Clicks the service answered lookup-click for with "not found or expired": made up, or replayed. */
  unknown?: ReadonlySet<string>;
  /** Creators the merchant blocked: their clicks never take an order. */
  blocked?: ReadonlySet<string>;
  /**
   * Creators the creator-level rule suspects (app/creators/suspicion.ts): their clicks lose a
   * contest, which is then judged without them instead of waiting for the merchant.
   */
  suspected?: ReadonlySet<string>;
  /** Set when judged again without the suspected creators' clicks: whose they were. */
  outOfContest?: ReadonlySet<string>;
  /** What the same network source brought before the order's own cart and visitor appeared; null: nothing. */
  linked?: LinkedJourney | null;
  /**
   * Clicks the web pixel reported a landing of, from any visitor: a hint that the order's checkout
   * report is on its way, never evidence (a report binds only through its checkout token). Read
   * only while no storefront report is bound to the order; missing: none.
   */
  pixelLanded?: ReadonlySet<string>;
}

/**
 * The journey the order's network source (the shopper's address and browser, as Shopify recorded
 * them at checkout) was on before the order's own cart and visitor were first seen: a browser
 * whose cookies were reset is the same source with a new cart and visitor.
 */
export interface LinkedJourney {
  /** The first click that source brought on another cart or visitor, within the link window. */
  first: LandingTouchFact & { witness: "landing" | "pixel" };
  /** When a witness first reported the order's own cart or visitor (null: never before the order). */
  ownSince: Date | null;
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

export type ScriptWitness = "landing" | "pixel" | "cart_attributes";

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

export type ContestReason = "creators-differ" | "unrecorded-click" | "journey-not-ready" | "identity-changed";

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
