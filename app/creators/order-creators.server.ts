import { Prisma } from "@prisma/client";
import type { ClaimOutcome, EvidenceSignal } from "../attribution/creator-evidence";
import { HELD_STATES, type CreatorState } from "../commissions/creator-standing";
import { readBoolean, sql } from "../database/sql.server";
import { CreatorClaim, CreatorStanding } from "../database/tables";

// The creators an order named, for its page (docs/admin.md, "Order detail"): each creator whose
// click it named without crediting them (CreatorClaim), with what its evidence says of that
// click, and which of the creators it names (those and the one its commission credits) are
// held: suspected or blocked, so the page can say so and link to them.

export interface OrderCreators {
  claims: {
    creatorId: string;
    clickId: string | null;
    outcome: ClaimOutcome;
    signals: EvidenceSignal[];
    tampering: boolean;
  }[];
  held: { creatorId: string; state: "suspected" | "blocked" }[];
}

export async function orderCreators(
  shop: string,
  verificationId: string,
  creditedCreatorId: string | null,
): Promise<OrderCreators> {
  const claims = await sql.rows<{
    creatorId: string;
    clickId: string | null;
    outcome: string;
    signals: string;
    tampering: unknown;
  }>(Prisma.sql`
    SELECT ${CreatorClaim.columns("creatorId", "clickId", "outcome", "signals", "tampering")} FROM ${CreatorClaim}
    WHERE ${CreatorClaim.verificationId} = ${verificationId} AND ${CreatorClaim.shop} = ${shop}
    ORDER BY ${CreatorClaim.creatorId}`);
  const named = [...new Set([...(creditedCreatorId ? [creditedCreatorId] : []), ...claims.map((c) => c.creatorId)])];
  const held =
    named.length === 0
      ? []
      : await sql.rows<{ creatorId: string; state: string }>(Prisma.sql`
          SELECT ${CreatorStanding.columns("creatorId", "state")} FROM ${CreatorStanding}
          WHERE ${CreatorStanding.shop} = ${shop} AND ${CreatorStanding.creatorId} IN (${Prisma.join(named)})
            AND ${CreatorStanding.state} IN (${Prisma.join([...HELD_STATES])})`);
  return {
    claims: claims.map((claim) => ({
      creatorId: claim.creatorId,
      clickId: claim.clickId,
      outcome: claim.outcome as ClaimOutcome,
      signals: (claim.signals ? claim.signals.split(",") : []) as EvidenceSignal[],
      tampering: readBoolean(claim.tampering),
    })),
    held: named.flatMap((creatorId) => {
      const state = held.find((row) => row.creatorId === creatorId)?.state as CreatorState | undefined;
      return state === "suspected" || state === "blocked" ? [{ creatorId, state }] : [];
    }),
  };
}
