import type { Commission } from "@prisma/client";
import type Decimal from "decimal.js";
import { orderValueBasisOf, type OrderValueBasis } from "../settings/order-value-basis";
import { MAX_ORDER_VALUE } from "../units/amounts";
import { ExactDecimal, minorDigits } from "../units/minor-units";
import { commissionAmount, minorToAmount, remainingAfterRefunds } from "./commission-amount";
import type { OrderAmounts } from "../shopify-admin/orders.server";
import { paidOut, type EntryKind } from "./statuses";

// What an order edit does to a commission, decided without a database (decision 045). Shopify's
// orders/edited lists what an edit added and removed, not what the order is worth after it, so
// the order's amounts are read from Shopify when the edit is applied; the record then owes
// rate x (edited value - refunded so far), exactly as a refund computes it. The value read is
// the order's as it stands (every edit up to now, before refunds), so edits and refunds applied
// in any order, or an edit delivered twice, end at the same amount: a second reading that finds
// nothing new moves nothing.

/**
 * The order's amounts handed to the ledger with a run's events (or why there are none), and the
 * pending edits they were read for: an edit recorded after the read may not be in the amounts,
 * so it waits for the next run's read.
 */
export interface EditsRead {
  edits: readonly string[];
  reading: EditReading;
}

/** The order's value on each basis after its edits, in its currency, or why it could not be read. */
export type EditReading =
  { ok: true; values: Partial<Record<OrderValueBasis, string>>; currency: string } | { ok: false; reason: string };

const isAmount = (value: string | null | undefined): value is string =>
  typeof value === "string" && /^-?\d{1,13}(\.\d+)?$/.test(value);

/**
 * The order's value on each basis after its edits. The subtotal before discounts is no field of
 * a GraphQL order after an edit (a line's `quantity` still counts removed units): it moves from
 * the value orders/create brought (`placed`) by what the subtotal after discounts moved and by
 * what the order's discounts moved, since an edit adds and removes lines with their line
 * discounts and a shipping discount, which no edit changes, cancels out. Facts kept before the
 * order's discounts were (no `discounts`) move it by the subtotal alone; without the amounts
 * orders/create brought, it is the subtotal plus the order's discounts. A basis Shopify gave no
 * amount within bounds for is undefined.
 */
export function editedValues(
  reading: OrderAmounts,
  placed: { amounts: Partial<Record<OrderValueBasis, string>>; discounts?: string },
): Partial<Record<OrderValueBasis, string>> {
  const values: Partial<Record<OrderValueBasis, string>> = {};
  const bounded = (value: Decimal) => (value.gte(0) && value.lte(MAX_ORDER_VALUE) ? value.toFixed() : undefined);
  if (isAmount(reading.subtotal)) {
    const subtotal = new ExactDecimal(reading.subtotal);
    values.subtotal_after_discounts = bounded(subtotal);
    const before = placed.amounts.subtotal_before_discounts;
    const after = placed.amounts.subtotal_after_discounts;
    if (isAmount(before) && isAmount(after)) {
      const discountsMoved =
        isAmount(placed.discounts) && isAmount(reading.discounts)
          ? new ExactDecimal(reading.discounts).minus(placed.discounts)
          : 0;
      values.subtotal_before_discounts = bounded(subtotal.minus(after).plus(discountsMoved).plus(before));
    } else if (isAmount(reading.discounts))
      values.subtotal_before_discounts = bounded(subtotal.plus(reading.discounts));
  }
  if (isAmount(reading.total)) values.total_price = bounded(new ExactDecimal(reading.total));
  return values;
}

export type EditDecision =
  | { change: false; result: string; orderValue?: string }
  | {
      change: true;
      kind: EntryKind;
      orderValue: string;
      amountMinor: bigint;
      delta: bigint;
      result: string;
    };

/**
 * An edit applied to a record: its new value and amount, and the entry that says so. A record
 * paid already keeps its status: a lower amount is a clawback the next payout nets, a higher one
 * a top-up paid once its hold has passed. A reversed record, or one whose order was cancelled,
 * stays as it is: nothing revives it.
 */
export function decideEdit(
  record: Pick<Commission, "status" | "orderValue" | "refunded" | "rate" | "currency" | "amountMinor" | "basis">,
  reading: EditReading,
  cancelled: boolean,
): EditDecision {
  if (record.status === "reversed" || cancelled)
    return { change: false, result: "nothing to adjust: the commission is already reversed" };
  if (!reading.ok) return { change: false, result: `not applied: ${reading.reason}` };
  if (reading.currency !== record.currency)
    return {
      change: false,
      result: `not applied: the order is in ${reading.currency}, the commission is in ${record.currency}`,
    };
  const basis = orderValueBasisOf(record.basis);
  const value = reading.values[basis];
  if (value === undefined) return { change: false, result: `not applied: Shopify gave no ${basis} for the order` };
  // Written as the order's amounts are, to the currency's minor unit ("80.00"), as the credit wrote it.
  const digits = minorDigits(record.currency);
  const orderValue = new ExactDecimal(value).toFixed(digits);
  const credit = commissionAmount(orderValue, record.rate, record.currency).amountMinor;
  const amountMinor = remainingAfterRefunds(credit, orderValue, record.refunded);
  const delta = amountMinor - record.amountMinor;
  const before = new ExactDecimal(record.orderValue).toFixed(digits);
  const moved = `order value ${before} -> ${orderValue}`;
  if (delta === 0n) return { change: false, orderValue, result: `nothing to adjust (${moved})` };
  // Stryker disable next-line EqualityOperator: a difference of 0 returned above, so `delta <= 0n` is this
  const lower = delta < 0n;
  const kind: EntryKind = !paidOut(record.status) ? "edit" : lower ? "clawback" : "top_up";
  return {
    change: true,
    kind,
    orderValue,
    amountMinor,
    delta,
    result: `${kind} ${minorToAmount(delta, record.currency)} ${record.currency} (${moved}, commission ${minorToAmount(record.amountMinor, record.currency)} -> ${minorToAmount(amountMinor, record.currency)})`,
  };
}

/** What an edit's entry moved, as decideEdit's result says: the order's value and the commission, each before and after. */
export interface EditMoves {
  valueBefore: string;
  valueAfter: string;
  commissionBefore: string;
  commissionAfter: string;
}

/** The moves an applied edit's result names (decideEdit writes it above); null for any other result. */
export function editMoves(result: string): EditMoves | null {
  const match = /\(order value ([\d.]+) -> ([\d.]+), commission ([\d.]+) -> ([\d.]+)\)$/.exec(result);
  if (!match) return null;
  const [valueBefore, valueAfter, commissionBefore, commissionAfter] = match.slice(1) as [
    string,
    string,
    string,
    string,
  ];
  return { valueBefore, valueAfter, commissionBefore, commissionAfter };
}
