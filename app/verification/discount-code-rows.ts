import Decimal from "decimal.js";
import { ExactDecimal, minorDigits } from "../units/minor-units";
import type { OrderFacts } from "./order-facts";

// An order's discount codes as OrderDiscountCode rows, written by intake in the same group
// insert as the order itself (no extra round trip per order). The amount is kept both as the
// decimal string Shopify sent and in minor units, so the Codes page totals it exactly in SQL.

/** Its id is given as it is written (insertRows). */
export interface DiscountCodeRow {
  shop: string;
  verificationId: string;
  orderId: string;
  code: string;
  amount: string;
  amountMinor: bigint;
  type: string | null;
  currency: string;
  createdAt: Date;
}

export function discountCodeRows(
  shop: string,
  verificationId: string,
  facts: OrderFacts,
  now: Date,
): DiscountCodeRow[] {
  const digits = minorDigits(facts.currency);
  return facts.discountCodes.map((discount) => {
    const amount = new ExactDecimal(discount.amount).toDecimalPlaces(digits, Decimal.ROUND_HALF_UP);
    return {
      shop,
      verificationId,
      orderId: facts.id,
      code: discount.code,
      amount: amount.toFixed(digits),
      amountMinor: BigInt(amount.times(new ExactDecimal(10).pow(digits)).toFixed(0)),
      type: discount.type,
      currency: facts.currency,
      createdAt: now,
    };
  });
}
