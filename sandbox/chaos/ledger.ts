import Decimal from "decimal.js";
import type { OrderValueBasis } from "../../app/settings/order-value-basis";
import { minorDigits } from "../../app/units/minor-units";
import type { PlannedOrder } from "./orders";

// What each order's commission record must end at, worked out from the run's own plan (the
// amounts it put in the orders and in the refunds it sent), never from what the app stored, by
// the ledger's rules as docs/commissions.md states them: credit = order value x rate, half-up to the
// currency's minor unit; after refunds, credit x (value - refunded so far) / value, half-up to
// the minor unit, on the order-value basis (refunded shipping moves only the total price), the
// value being the order's after its edit when it was edited; a cancellation takes it to zero. Then the record as the ledger holds it is checked against that.

const Exact = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });
const ZERO = new Exact(0);
const sum = (values: Decimal[]) => values.reduce((a, b) => a.plus(b), ZERO);

/** The commission terms the run saves for every shop. */
export interface CommissionTerms {
  commissionRate: string;
  orderValueBasis: OrderValueBasis;
  holdDays: number;
}

export interface PlannedCommission {
  amountMinor: bigint;
  status: "pending" | "approved" | "reversed";
}

/** An order's commission record as the ledger holds it. */
export interface LedgerRecord {
  amountMinor: bigint;
  status: string;
  entries: {
    kind: string;
    amountMinor: bigint;
    /** The event that made the entry ("refund <refund id>", "cancel <order id>"); null for the credit. */
    source: string | null;
  }[];
}

export function plannedCommission(order: PlannedOrder, terms: CommissionTerms): PlannedCommission {
  // The run's orders have no discounts and no tax: both subtotal bases are the lines' prices.
  const withShipping = terms.orderValueBasis === "total_price";
  const lines = (items: { price: string; quantity: number }[]) =>
    sum(items.map((line) => new Exact(line.price).times(line.quantity)));
  // An edit sets the lines' total (decision 045): the order is worth that much from then on,
  // whenever the app learns of it, and refunds are pro-rated on it.
  const linesTotal = order.edit ? new Exact(order.edit.linesTotal) : lines(order.lines);
  const value = linesTotal.plus(withShipping ? order.shipping : 0);
  const refunded = Exact.min(
    value,
    sum(order.refunds.map((refund) => lines(refund.lines).plus(withShipping ? refund.shipping : 0))),
  );
  const unit = new Exact(10).pow(minorDigits(order.payload.currency as string));
  const credit = value.times(terms.commissionRate).dividedBy(100).times(unit).toDecimalPlaces(0);
  const left = value.isZero() ? credit : credit.times(value.minus(refunded)).dividedBy(value).toDecimalPlaces(0);
  const reversed = order.cancellation !== null || refunded.equals(value);
  return {
    amountMinor: order.cancellation ? 0n : BigInt(left.toFixed(0)),
    // Orders are placed during the run: their hold has ended only when it is 0 days.
    status: reversed ? "reversed" : terms.holdDays === 0 ? "approved" : "pending",
  };
}

/** How the record differs from the plan: empty when it ends exactly where it must, each event applied once. */
export function ledgerDisagreements(record: LedgerRecord, planned: PlannedCommission): string[] {
  const found: string[] = [];
  if (record.amountMinor !== planned.amountMinor)
    found.push(`amount ${record.amountMinor} minor units, planned ${planned.amountMinor}`);
  if (record.status !== planned.status) found.push(`status ${record.status}, planned ${planned.status}`);
  const total = record.entries.reduce((a, entry) => a + entry.amountMinor, 0n);
  if (total !== record.amountMinor) found.push(`entries add up to ${total}, the record says ${record.amountMinor}`);
  const count = (kind: string) => record.entries.filter((entry) => entry.kind === kind).length;
  if (count("credit") !== 1) found.push(`${count("credit")} credit entries`);
  if (count("reversal") > 1) found.push(`${count("reversal")} reversal entries`);
  const sources = record.entries.flatMap((entry) => (entry.source === null ? [] : [entry.source]));
  for (const source of new Set(sources.filter((source, i) => sources.indexOf(source) !== i)))
    found.push(`event ${source} applied twice`);
  return found;
}
