import { formatMinorCurrency } from "../units/shop-format";

// What the merchant has chosen on the Payouts page, summed in the browser as they choose:
// exactly, from the minor units the page was given, never through a float.

/** What is chosen, per currency, summed exactly from the minor units the page was given. */
export function chosenTotals(
  chosen: { currency: string; balanceMinor: string }[],
  locale: string,
): { currency: string; total: string }[] {
  const sums = new Map<string, bigint>();
  for (const b of chosen) sums.set(b.currency, (sums.get(b.currency) ?? 0n) + BigInt(b.balanceMinor));
  return [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([currency, minor]) => ({ currency, total: formatMinorCurrency(minor, currency, locale) }));
}
