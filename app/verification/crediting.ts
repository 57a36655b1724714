import type { CommissionInput } from "../commissions/credit.server";
import { editedValues } from "../commissions/order-edits";
import { rateForCreator } from "../settings/creator-rates";
import { orderValueBasisOf } from "../settings/order-value-basis";
import { nextAttempt } from "./retry-policy";
import { stop, type Answered, type OrderState, type OrderStep, type StepOutcome } from "./order-steps";

// The order ends with its verdict and one commission record, credited to the creator of the
// expected tag, never the arrived one; refunds and a cancellation that arrived first are applied
// in the same transaction. A contested order's record waits in review for the merchant.

export const creditingStep: OrderStep = {
  // Stryker disable next-line StringLiteral: never read, nothing logs or looks up a step by its name
  name: "crediting",
  begin(state) {
    const { row } = state;
    const outcome = row.hijacked === true ? "hijacked" : "matched";
    return stop({
      to: "end",
      outcome,
      reason: row.reason,
      change: { credit: commissionFor(state), orderEvents: { outcome } },
    });
  },
  after(_state, answered) {
    throw new Error(`crediting asked for no ${answered.call.kind}`);
  },
};

/**
 * A decided order that runs again (a refund, edit or cancellation reopened it, or a duplicate
 * run): its pending events are applied to its commission, or marked as finding none, as the job
 * ends. Edits of a live commission first read the order's amounts from Shopify (decision 045).
 */
export const orderEventsStep: OrderStep = {
  // Stryker disable next-line StringLiteral: never read, nothing logs or looks up a step by its name
  name: "order events",
  begin() {
    return { kind: "call", call: { kind: "pending-events" } };
  },
  after(state, answered) {
    if (answered.call.kind === "order-amounts")
      return afterAmounts(state, answered as Extract<Answered, { call: { kind: "order-amounts" } }>);
    if (answered.call.kind !== "pending-events") throw new Error(`order events asked for no ${answered.call.kind}`);
    const { result } = answered as Extract<Answered, { call: { kind: "pending-events" } }>;
    if (!result) return stop({ to: "finish" });
    if (typeof result === "object") return { kind: "call", call: { kind: "order-amounts", edits: result.edits } };
    return stop({ to: "finish", change: { orderEvents: { outcome: state.row.outcome } } });
  },
};

/** The order's amounts read: its edits applied with them; a bucket to wait for, or a failure retried while attempts last. */
function afterAmounts(
  state: OrderState,
  { call, result }: Extract<Answered, { call: { kind: "order-amounts" } }>,
): StepOutcome {
  const outcome = state.row.outcome;
  if (result.ok) {
    const reading = result.amounts
      ? {
          ok: true as const,
          values: editedValues(result.amounts, state.facts ?? { amounts: {} }),
          currency: result.amounts.currency,
        }
      : { ok: false as const, reason: "Shopify no longer has the order" };
    return stop({ to: "finish", change: { orderEvents: { outcome, reading: { edits: call.edits, reading } } } });
  }
  if ("waitMs" in result)
    return stop({ to: "defer", at: new Date(state.now.getTime() + result.waitMs), reason: result.reason });
  if (result.retryable && state.attemptsLeft) {
    const next = nextAttempt(state.attempts, state.now, null, state.random);
    if ("retryAt" in next)
      return stop({ to: "retry", at: next.retryAt, error: `read-order-amounts: ${result.message}` });
  }
  const reason = `the order's amounts could not be read (${result.message})`;
  const reading = { edits: call.edits, reading: { ok: false as const, reason } };
  return stop({ to: "finish", change: { orderEvents: { outcome, reading } } });
}

export function commissionFor({ row, settings }: Pick<OrderState, "row" | "settings">): CommissionInput {
  // Stryker disable next-line StringLiteral: never read, a decided order has its creator, tag, value and currency
  const creatorId = row.creatorId ?? "";
  return {
    shop: row.shop,
    verificationId: row.id,
    orderId: row.orderId,
    orderName: row.orderName,
    orderCreatedAt: row.orderCreatedAt,
    creatorId,
    // Stryker disable next-line StringLiteral: never read, a decided order has its creator, tag, value and currency
    expectedTag: row.expectedTag ?? "",
    arrivedTag: row.arrivedTag ?? "",
    // Stryker disable next-line StringLiteral: never read, a decided order has its creator, tag, value and currency
    orderValue: row.orderValue ?? "0",
    // What the value was read on, whatever the setting says now (rows from before it was kept: the setting).
    basis: orderValueBasisOf(row.orderValueBasis ?? settings.orderValueBasis),
    // Stryker disable next-line StringLiteral: never read, a decided order has its creator, tag, value and currency
    currency: row.currency ?? "USD",
    ratePercent: rateForCreator(settings, creatorId),
    holdDays: settings.holdDays,
    hijacked: row.hijacked === true,
    // Contested: held for the merchant's decision, never approved or paid meanwhile.
    review: row.contest !== null,
  };
}
