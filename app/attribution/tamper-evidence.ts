import type { Sighting } from "./arrival";
import type { CompetingClick, OrderWitnesses, TamperEvidence } from "./witness-facts";

// What an order's claims say against the credited click (witnesses.ts): the other clicks reported
// for it, and where the cart's attributes disagree with what the embed reported for the cart.

/** Clicks listed per witness on the order, and competing clicks, at most this many each. */
export const MAX_LISTED = 20;

export function competing(
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

export function competingFindings(competingClicks: CompetingClick[]): string[] {
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
export function tamperOf(
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
