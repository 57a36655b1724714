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
  return { amount: amount.toFixed(digits), amountMinor: toMinor(amount, digits) };
}

/**
 * What is left of a credit once `refunded` of the order value `basis` has been refunded:
 * credit x (basis - refunded) / basis, rounded half-up to the minor unit. It is computed from the
 * cumulative refunded amount, never refund by refund, so refunds that add up to the whole basis
 * leave exactly zero however they were split. refunded is capped at basis; a zero basis leaves
 * the credit whole until the order is refunded in full.
 */
export function remainingAfterRefunds(creditMinor: bigint, basis: string, refunded: string): bigint {
  const whole = new ExactDecimal(basis);
  const given = Decimal.min(new ExactDecimal(refunded), whole);
  if (whole.lte(0)) return creditMinor;
  const left = new ExactDecimal(creditMinor.toString())
    .times(whole.minus(given))
    .dividedBy(whole)
    .toDecimalPlaces(0, Decimal.ROUND_HALF_UP);
  return BigInt(left.toFixed(0));
}

/** Integer minor units as the decimal string stored beside them: (-1250n, "USD") -> "-12.50". */
export function minorToAmount(minor: bigint, currency: string): string {
  const digits = minorDigits(currency);
  return new ExactDecimal(minor.toString()).dividedBy(new ExactDecimal(10).pow(digits)).toFixed(digits);
}

function toMinor(amount: Decimal, digits: number): bigint {
  return BigInt(amount.times(new ExactDecimal(10).pow(digits)).toFixed(0));
}
