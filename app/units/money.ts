import Decimal from "decimal.js";
import { minorDigits } from "./minor-units";

// Money leaves the database as integer minor units (a BigInt SUM) and reaches the merchant
// as text: the decimal point is placed by string manipulation, never through a float, so a
// total of 9,007,199,254,740,993 cents prints exactly.

/** e.g. (123456n, "USD") -> "1,234.56"; (-5n, "USD") -> "-0.05"; (1200n, "JPY") -> "1,200". */
export function formatMinor(minor: bigint | string, currency: string): string {
  const value = typeof minor === "bigint" ? minor : BigInt(minor);
  const digits = minorDigits(currency);
  const negative = value < 0n;
  const text = (negative ? -value : value).toString().padStart(digits + 1, "0");
  const whole = text.slice(0, text.length - digits);
  const fraction = digits > 0 ? text.slice(text.length - digits) : "";
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${negative ? "-" : ""}${grouped}${fraction ? `.${fraction}` : ""}`;
}

/** A stored decimal amount as the totals show it: ("2000", "JPY") -> "JPY 2,000". */
export function formatAmount(amount: string, currency: string): string {
  const [whole = "0", fraction] = amount.split(".");
  return `${currency} ${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${fraction ? `.${fraction}` : ""}`;
}

/** How a module writes integer minor units for its reader: formatMoney for files, a locale's for pages. */
export type MoneyText = (minor: bigint | string, currency: string) => string;

/** "USD 1,234.56" */
export function formatMoney(minor: bigint | string, currency: string): string {
  return `${currency} ${formatMinor(minor, currency)}`;
}

/** part / whole as a percentage with one decimal ("12.5%"), exact decimal arithmetic; null when whole is 0. */
export function percentage(part: number | bigint, whole: number | bigint): string | null {
  const denominator = new Decimal(whole.toString());
  if (denominator.isZero()) return null;
  return `${new Decimal(part.toString()).times(100).dividedBy(denominator).toDecimalPlaces(1, Decimal.ROUND_HALF_UP).toFixed(1)}%`;
}
