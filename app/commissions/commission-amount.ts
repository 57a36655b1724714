import Decimal from "decimal.js";

// Money is exact decimal arithmetic end to end: amounts arrive as decimal strings, are
// multiplied with decimal.js and leave as decimal strings rounded to the currency's minor
// unit (JPY 0 digits, USD 2, KWD 3), half away from zero as most payout terms state.

const Exact = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });

export function minorDigits(currency: string): number {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

export interface CommissionAmount {
  amount: string;
  amountMinor: bigint;
}

/** orderValue and ratePercent are decimal strings; e.g. ("120.00", "10", "USD") -> "12.00". */
export function commissionAmount(orderValue: string, ratePercent: string, currency: string): CommissionAmount {
  const digits = minorDigits(currency);
  const amount = new Exact(orderValue).times(ratePercent).dividedBy(100).toDecimalPlaces(digits, Decimal.ROUND_HALF_UP);
  return {
    amount: amount.toFixed(digits),
    amountMinor: BigInt(amount.times(new Exact(10).pow(digits)).toFixed(0)),
  };
}
