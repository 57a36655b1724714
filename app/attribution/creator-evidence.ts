import { JOURNEY_ACTIVE_MS, ORDER_TIME_RESOLUTION_MS, recordedClicks } from "./arrival";
import type { Attribution, OrderWitnesses } from "./witness-facts";

// What one order says of each creator whose click it names and did not credit (docs/attribution.md,
// "Evidence by creator"). Judged alone, such an order may be honest: a shopper follows two
// creators' links, and the second stands down. But an extension that plants its own clicks pays
// one creator account, its own, and across orders that account's clicks keep arriving after
// another creator's, through scripts rather than page landings, on visitors reset mid-journey:
// app/creators/suspicion.ts reads these per creator. The credited creator's own record is their
// commission; a contested order lists every creator it names, the provisional one too.

/** Marks no honest journey of the arena leaves on a click that did not take the order. */
const TAMPERING_MARKS = [
  /** A storefront script named it, but a witness that saw the shopper's pages never saw a page land with it. */
  "not-a-landing",
  /** Shopify recorded a visit with it within the hour after the credited click, which it did not record, was seen: a visitor reset mid-journey. */
  "late-record",
  /**
   * Only Shopify's record named it, and what the app saw contradicts the record: the shop's pixel,
   * which reported the checkout, never saw that landing, or the visit began after the same network
   * source brought another creator's click.
   */
  "unconfirmed-record",
  /** First reported after the order was placed. */
  "after-order",
  /** It came with a fresh cart and visitor minutes after the same network source brought another creator's click. */
  "identity-changed",
  /** Only reports that did not carry the order's checkout token named it. */
  "unbound",
] as const;

/** What the order's evidence says of a creator's click: the marks, then what an honest shopper leaves too. */
export const EVIDENCE_SIGNALS = [
  ...TAMPERING_MARKS,
  /** Another creator's click was seen first and took the order. */
  "later",
  /** The order waits for the merchant with this click among its claims. */
  "contested",
] as const;
export type EvidenceSignal = (typeof EVIDENCE_SIGNALS)[number];

export const TAMPERING_SIGNALS: ReadonlySet<EvidenceSignal> = new Set(TAMPERING_MARKS);

export const CLAIM_OUTCOMES = ["stood-down", "refused", "contested"] as const;
export type ClaimOutcome = (typeof CLAIM_OUTCOMES)[number];

export interface CreatorEvidenceClaim {
  creatorId: string;
  /** The creator's clicks the order names (most orders: one). */
  clickIds: string[];
  outcome: ClaimOutcome;
  signals: EvidenceSignal[];
  tampering: boolean;
}

/** Each creator the order names but did not credit (every creator named, when it is contested). */
export function creatorEvidence(facts: OrderWitnesses, judged: Attribution): CreatorEvidenceClaim[] {
  if (judged.kind === "read-journey") return [];
  const { touches, pixel, cart, shopify } = facts;
  const pixelLandings = new Set((pixel?.landings ?? []).map((t) => t.clickId));
  const touched = new Set(touches.map((t) => t.clickId));
  const checkout = new Set((pixel?.checkout ?? []).map((c) => c.clickId));
  const visits = new Map(recordedClicks(shopify).map((r) => [r.clickId, r.at?.getTime() ?? null]));
  const recorded = new Set(visits.keys());
  const unbound = new Set(facts.unbound);
  const firstSeen = new Map<string, number>();
  for (const seen of [...touches, ...(pixel?.landings ?? [])]) {
    const at = seen.seenAt.getTime();
    if (!(firstSeen.get(seen.clickId)! <= at)) firstSeen.set(seen.clickId, at);
  }

  const credited = judged.kind === "attributed" ? judged.evidence.clickId : null;
  const contest = judged.kind === "attributed" ? judged.contest : null;
  const creatorOf = (clickId: string) => facts.creators.get(clickId) ?? null;
  const creditedCreator = credited === null ? null : creatorOf(credited);

  // Every click the order names (a contest's claims include the linked journey's); a click of no
  // known creator (not looked up, or the service did not know it) says nothing of anyone.
  const named = new Set([
    ...touched,
    ...pixelLandings,
    ...checkout,
    cart.clickId,
    ...recorded,
    ...unbound,
    ...(facts.linked ? [facts.linked.first.clickId] : []),
  ]);
  const byCreator = new Map<string, CreatorEvidenceClaim>();
  for (const clickId of named) {
    const creatorId = clickId === null ? null : creatorOf(clickId);
    if (creatorId === null || clickId === null || facts.unknown?.has(clickId)) continue;
    if (!contest && (clickId === credited || creatorId === creditedCreator)) continue;
    const signals = new Set<EvidenceSignal>();
    const byScript =
      touched.has(clickId) || pixelLandings.has(clickId) || checkout.has(clickId) || cart.clickId === clickId;
    const pageWitnessMissed =
      (touches.length > 0 && !touched.has(clickId)) || (pixel !== null && !pixelLandings.has(clickId));
    if (byScript && pageWitnessMissed) signals.add("not-a-landing");
    // A visit of its own begun within the hour after the credited click was seen, which Shopify
    // did not record: the visitor changed mid-journey. Days later, it is a shopper coming back.
    const visitBegan = visits.get(clickId);
    const creditedSeen = credited === null ? undefined : firstSeen.get(credited);
    if (
      visitBegan != null &&
      creditedSeen !== undefined &&
      !recorded.has(credited!) &&
      visitBegan - creditedSeen <= JOURNEY_ACTIVE_MS
    )
      signals.add("late-record");
    // Unattributed although Shopify recorded it: the policy found the record unconfirmed.
    if (judged.kind === "unattributed" && recorded.has(clickId) && !byScript) signals.add("unconfirmed-record");
    const seenAt = firstSeen.get(clickId);
    if (
      facts.orderAt &&
      seenAt !== undefined &&
      seenAt >= facts.orderAt.getTime() + ORDER_TIME_RESOLUTION_MS &&
      !recorded.has(clickId)
    )
      signals.add("after-order");
    if (contest?.reason === "identity-changed" && clickId === credited) signals.add("identity-changed");
    if (unbound.has(clickId) && !byScript && !recorded.has(clickId)) signals.add("unbound");
    if (credited !== null && clickId !== credited) signals.add("later");
    if (contest) signals.add("contested");

    const outcome: ClaimOutcome = contest ? "contested" : credited === null ? "refused" : "stood-down";
    const claim = byCreator.get(creatorId) ?? { creatorId, clickIds: [], outcome, signals: [], tampering: false };
    claim.clickIds.push(clickId);
    claim.signals = EVIDENCE_SIGNALS.filter((s) => signals.has(s) || claim.signals.includes(s));
    claim.tampering = claim.signals.some((s) => TAMPERING_SIGNALS.has(s));
    byCreator.set(creatorId, claim);
  }
  return [...byCreator.values()].sort((a, b) => (a.creatorId < b.creatorId ? -1 : 1));
}
