import { CART_ATTRIBUTES } from "./cart-attributes";
import type { ClickEvidence, ClickSearch } from "./find-click";

// The server's own record of a cart (the touches the storefront reported through the app proxy)
// against the cart's attributes, which any script on the storefront can rewrite. When the
// server has touches for the cart, they decide: the last one names the click and the tag that
// arrived. Where the cart disagrees with them, the disagreement is kept as evidence of tampering.

export interface LandingTouchFact {
  clickId: string;
  tag: string | null;
  seenAt: Date;
}

export interface TamperEvidence {
  /** What the cart's attributes claimed (null: absent). */
  cartClickId: string | null;
  cartTag: string | null;
  /** Why the claims do not stand against the touches. */
  findings: string[];
}

export type JudgedSearch =
  { found: true; evidence: ClickEvidence; tamper: TamperEvidence | null } | { found: false; reason: string };

/**
 * `fromCart` is what the cart's attributes (or the landing page) say; `touches` are the cart's
 * touches within the attribution window, oldest first.
 */
export function judgeWithServerRecord(
  fromCart: ClickSearch,
  cartAttributes: readonly { name: string; value: string }[],
  touches: readonly LandingTouchFact[],
): JudgedSearch {
  const last = touches.at(-1);
  if (!last) return fromCart.found ? { ...fromCart, tamper: null } : fromCart;

  const ofClick = touches.filter((touch) => touch.clickId === last.clickId);
  const evidence: ClickEvidence = {
    source: "app_proxy",
    clickId: last.clickId,
    arrivedTag: last.tag,
    capturedAt: ofClick[0]!.seenAt,
    tagHistory: ofClick.map((touch) => ({ tag: touch.tag ?? "", at: touch.seenAt.toISOString() })),
  };

  const attribute = (name: string) => cartAttributes.find((a) => a.name === name)?.value.trim() || null;
  const cartClickId = attribute(CART_ATTRIBUTES.clickId);
  const cartTag = attribute(CART_ATTRIBUTES.arrivedTag);
  const findings: string[] = [];
  if (cartClickId === null) findings.push("the cart's click id was removed");
  else if (!touches.some((touch) => touch.clickId === cartClickId)) {
    findings.push("the cart names a click id the storefront never reported for this cart");
  }
  if (cartTag === null) {
    if (last.tag !== null) findings.push("the cart's affiliate tag was removed");
  } else if (!touches.some((touch) => touch.tag === cartTag)) {
    findings.push("the cart names an affiliate tag the storefront never reported for this cart");
  }
  return {
    found: true,
    evidence,
    tamper: findings.length > 0 ? { cartClickId, cartTag, findings } : null,
  };
}
