// The creator-level rule (docs/attribution.md, "Suspicion"): one place, with its reasons. An
// extension that plants clicks gets unlimited tries at the order level, but every try names
// its own creator account, and across orders that account looks like no honest creator: its
// clicks keep standing down behind another creator's, and they come through scripts rather
// than page landings, on visitors reset mid-journey, after the order. An honest creator's
// clicks stand down too (a shopper follows two creators' links), but seldom, and never with
// those marks: the arena's honest journeys and the population run leave none (the figures are
// in docs/attribution.md).

export const SUSPICION = {
  /** Orders older than this no longer count: a creator is judged on their recent conduct. */
  windowDays: 90,
  /**
   * Orders that name the creator without crediting them, at least this many, and at least one
   * with a mark no honest journey leaves: one odd order is a glitch (a pixel report lost), two
   * with a mark among them is a pattern. Within 3 orders of an attacker account in the
   * population run.
   */
  minClaims: 2,
  minTampering: 1,
  /**
   * Without a mark, standing down this many times: a creator whose links keep coming second to
   * another creator's in the same journeys is taking orders others brought (an affiliate
   * network's stand-down rule), but a shopper follows two links now and then.
   */
  minStoodDown: 4,
  /** And in either case at least this share of the creator's orders: a busy honest creator stands down now and then. */
  minShare: 0.5,
} as const;

/** What the rule reads of a creator: their orders in the window since evidenceFrom. */
export interface CreatorEvidenceCounts {
  /** Orders that named the creator: their credited records and their claims, each order once. */
  orders: number;
  /** Orders that named the creator and did not credit them (or wait for the merchant). */
  claims: number;
  /** Of those, orders whose evidence carries a mark no honest journey leaves. */
  tampering: number;
}

export type SuspicionReason = "marked-claims" | "stood-down";

/** Whether the creator is suspected, and why (null: not). */
export function suspicionOf(counts: CreatorEvidenceCounts): SuspicionReason | null {
  const share = counts.orders === 0 ? 0 : counts.claims / counts.orders;
  if (share < SUSPICION.minShare) return null;
  if (counts.claims >= SUSPICION.minClaims && counts.tampering >= SUSPICION.minTampering) return "marked-claims";
  if (counts.claims >= SUSPICION.minStoodDown) return "stood-down";
  return null;
}
