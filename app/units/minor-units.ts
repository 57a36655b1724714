import Decimal from "decimal.js";

// Money is exact decimal arithmetic end to end: decimal strings in, decimal.js in between,
// decimal strings (or integer minor units) out. Rounding is half away from zero to the
// currency's minor unit (JPY 0 digits, USD 2, KWD 3), as most payout terms state.

export const ExactDecimal = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });

/** Digits after the point in the currency's minor unit; 2 for a code Intl does not know. */
export function minorDigits(currency: string): number {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}
