import Decimal from "decimal.js";
import { ExactDecimal, minorDigits } from "../units/minor-units";

export interface CommissionAmount {
  amount: string;
  amountMinor: bigint;
}

/** orderValue and ratePercent are decimal strings; e.g. ("120.00", "10", "USD") -> "12.00". */
export function commissionAmount(orderValue: string, ratePercent: string, currency: string): CommissionAmount {
  const digits = minorDigits(currency);
  const amount = new ExactDecimal(orderValue)
    .times(ratePercent)
    .dividedBy(100)
    .toDecimalPlaces(digits, Decimal.ROUND_HALF_UP);
  return {
    amount: amount.toFixed(digits),
    amountMinor: BigInt(amount.times(new ExactDecimal(10).pow(digits)).toFixed(0)),
  };
}
