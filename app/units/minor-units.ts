import Decimal from "decimal.js";

// Money is exact decimal arithmetic end to end: decimal strings in, decimal.js in between,
// decimal strings (or integer minor units) out. Rounding is half away from zero to the
// currency's minor unit (JPY 0 digits, USD 2, KWD 3), as most payout terms state.

export const ExactDecimal = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });

/** Currencies already looked up: an Intl.NumberFormat costs about 0.03 ms to build, several times an order. */
const knownDigits = new Map<string, number>();
/** Codes come from webhooks: the memo stops growing here (ISO 4217 has fewer than 200). */
const MAX_KNOWN_CURRENCIES = 500;

/** Digits after the point in the currency's minor unit; 2 for a code Intl does not know. */
export function minorDigits(currency: string): number {
  const known = knownDigits.get(currency);
  if (known !== undefined) return known;
  let digits: number;
  try {
    digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
  if (knownDigits.size < MAX_KNOWN_CURRENCIES) knownDigits.set(currency, digits);
  return digits;
}
