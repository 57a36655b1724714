// The ledger's vocabulary, in one place: a record's statuses and its entries' kinds.
//
//   pending   --hold over (the worker's sweep)-->       approved
//   pending | approved --refunds take it all, or cancel-->  reversed   (amount 0)
//   approved  --a recorded payout-->                    paid
//   approved  --a payout the app sends (app/payouts)-->  paying   (reserved by its Payout: no
//             other payout takes it; a refund is a clawback, as after payment)
//   paying    --the provider says the item was paid-->  paid
//   paying | paid --the provider says it bounced (returned, failed, refunded...)--> approved
//             (a payout_void entry of 0 naming the payout says why, as a void's does)
//   paid      stays paid: a refund or cancellation after payment is a clawback entry, a
//             negative balance for the creator that the next payout nets.
//   paid      --its payout voided-->                    approved   (a payout_void entry of 0
//             naming the payout says why; the clawbacks that payout netted are open again)
//   review    a contested order's record (docs/attribution.md): refunds and a cancellation move
//             it as they move a pending one, but the hold never approves it and no payout takes
//             it; the merchant's decision (a review entry) makes it pending, approved or reversed,
//             credited to the creator they chose.
//   creator   the merchant's decision on a suspected creator (app/creators/decisions.server.ts)
//             moves each of the creator's unpaid records: reversed, or credited to the order's
//             rightful claim (a `creator_decision` entry of the difference); undone, back as it was.
//   edits     an order edit moves the record's value and amount, either way, and keeps its status
//             (decision 045): an `edit` entry before payment; after it, a lower amount is a
//             clawback as a refund's is, a higher one a `top_up` entry the next payout pays once
//             due: the shop's hold, as set when it was written, after it (its dueAt).

export const COMMISSION_STATUSES = ["pending", "approved", "paying", "paid", "reversed", "review"] as const;
export type CommissionStatus = (typeof COMMISSION_STATUSES)[number];

export const ENTRY_KINDS = [
  "credit",
  "refund",
  "reversal",
  "clawback",
  "payout_void",
  "review",
  "edit",
  "top_up",
  "creator_decision",
] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

/**
 * Whether the record's money has left, or is leaving, the shop: a refund or edit down is then a
 * clawback the next payout nets, an edit up a top-up, and no decision moves the record.
 */
export function paidOut(status: string): boolean {
  return status === "paid" || status === "paying";
}

export function isCommissionStatus(value: unknown): value is CommissionStatus {
  return (COMMISSION_STATUSES as readonly unknown[]).includes(value);
}
