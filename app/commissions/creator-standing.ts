import { Prisma } from "@prisma/client";
import { Commission, CreatorStanding } from "../database/tables";

// A creator's standing with the shop, and the merchant's decisions on it (docs/commissions.md,
// "Suspected creators"):
//
//   (no row)   --the rule suspects them (suspicion.ts)-->        suspected
//   suspected  --release-->  released   (paid as credited; evidence up to now no longer counts)
//   suspected  --reverse-->  reversed   (their unpaid records reversed, the rightful claims credited)
//   suspected | released | reversed  --block-->  blocked (reversed too; their claims never take an order)
//   released | reversed  --the rule suspects them again, on newer evidence-->  suspected
//   any decision  --undo-->  the state before it, every record it moved moved back
//
// suspected and blocked hold the creator's commissions: the approval sweep leaves their pending
// records pending, and no payout takes their approved ones.

export const CREATOR_STATES = ["suspected", "released", "reversed", "blocked"] as const;
export type CreatorState = (typeof CREATOR_STATES)[number];

/** The states whose commissions wait: out of approval and out of payouts. */
export const HELD_STATES: readonly CreatorState[] = ["suspected", "blocked"];

export const DECISION_KINDS = ["release", "reverse", "block"] as const;
export type DecisionKind = (typeof DECISION_KINDS)[number];

export function isDecisionKind(value: unknown): value is DecisionKind {
  return (DECISION_KINDS as readonly unknown[]).includes(value);
}

/** The state a decision leaves the creator in. */
export const STATE_AFTER: Record<DecisionKind, CreatorState> = {
  release: "released",
  reverse: "reversed",
  block: "blocked",
};

/** The states a decision can be made in: a blocked creator is unblocked by undoing the block. */
export const DECIDABLE: Record<DecisionKind, readonly CreatorState[]> = {
  release: ["suspected"],
  reverse: ["suspected"],
  block: ["suspected", "released", "reversed"],
};

/**
 * Whether the record `alias` names (a Commission row) belongs to a creator whose commissions are
 * held: for the approval sweep, payable balances and payouts to leave it out.
 */
export function creatorHeld(alias: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`EXISTS (SELECT 1 FROM ${CreatorStanding} s WHERE s.${CreatorStanding.shop} = ${alias}.${Commission.shop}
    AND s.${CreatorStanding.creatorId} = ${alias}.${Commission.creatorId} AND s.${CreatorStanding.state} IN (${Prisma.join([...HELD_STATES])}))`;
}
