import { Prisma } from "@prisma/client";
import { sql } from "../database/sql.server";
import { formatMoney, type MoneyText } from "../units/money";
import { Commission, CommissionEntry } from "../database/tables";

// What the merchant can pay each creator: approved records less the clawbacks no payout has
// netted yet, per creator and currency. The Payouts page lists them; a payout sums them again.

export interface PayableBalance {
  /** `${currency}:${creatorId}`: what the form sends back for a chosen balance. */
  key: string;
  creatorId: string;
  currency: string;
  approved: string;
  /** Clawbacks not netted yet (negative or zero). */
  owed: string;
  balance: string;
  balanceMinor: string;
  records: number;
  payable: boolean;
}

export function balanceKey(creatorId: string, currency: string): string {
  return `${currency}:${creatorId}`;
}

export function parseBalanceKey(key: string): { creatorId: string; currency: string } | null {
  const match = /^([A-Z]{3}):(.{1,200})$/s.exec(key);
  return match ? { currency: match[1]!, creatorId: match[2]! } : null;
}

/** Every creator and currency with approved records or clawbacks to net; payable when the sum is positive. */
export async function payableBalances(shop: string, money: MoneyText = formatMoney): Promise<PayableBalance[]> {
  // Sums as decimal text: one type from both drivers, read exactly into bigints.
  const [approved, owed] = await Promise.all([
    sql.rows<{ creatorId: string; currency: string; approved: string; records: number | bigint | string }>(Prisma.sql`
      SELECT ${Commission.creatorId}, ${Commission.currency}, CAST(SUM(${Commission.amountMinor}) AS TEXT) AS "approved", COUNT(*) AS "records"
      FROM ${Commission} WHERE ${Commission.shop} = ${shop} AND ${Commission.status} = 'approved'
      GROUP BY ${Commission.creatorId}, ${Commission.currency}`),
    sql.rows<{ creatorId: string; currency: string; owed: string }>(Prisma.sql`
      SELECT c.${Commission.creatorId}, c.${Commission.currency}, CAST(SUM(e.${CommissionEntry.amountMinor}) AS TEXT) AS "owed"
      FROM ${CommissionEntry} e JOIN ${Commission} c ON c.${Commission.id} = e.${CommissionEntry.commissionId}
      WHERE e.${CommissionEntry.shop} = ${shop} AND e.${CommissionEntry.kind} = 'clawback' AND e.${CommissionEntry.payoutId} IS NULL
      GROUP BY c.${Commission.creatorId}, c.${Commission.currency}`),
  ]);
  const balances = new Map<
    string,
    { creatorId: string; currency: string; approved: bigint; owed: bigint; records: number }
  >();
  const entry = (creatorId: string, currency: string) => {
    const key = balanceKey(creatorId, currency);
    const found = balances.get(key) ?? { creatorId, currency, approved: 0n, owed: 0n, records: 0 };
    balances.set(key, found);
    return found;
  };
  for (const row of approved) {
    const balance = entry(row.creatorId, row.currency);
    balance.approved += BigInt(row.approved);
    balance.records += Number(row.records);
  }
  for (const row of owed) entry(row.creatorId, row.currency).owed += BigInt(row.owed);
  return [...balances.entries()]
    .sort(([a], [b]) =>
      // Stryker disable next-line EqualityOperator: the keys are distinct, a key is never weighed against itself
      a < b
        ? -1
        : // Stryker disable next-line EqualityOperator,ConditionalExpression: the keys are distinct and V8's sort only asks whether the answer is below 0, so 0 and 1 for a later key sort alike
          a > b
          ? 1
          : 0,
    )
    .map(([key, b]) => ({
      key,
      creatorId: b.creatorId,
      currency: b.currency,
      approved: money(b.approved, b.currency),
      owed: money(b.owed, b.currency),
      balance: money(b.approved + b.owed, b.currency),
      balanceMinor: String(b.approved + b.owed),
      records: b.records,
      payable:
        b.approved + b.owed > 0n &&
        // Stryker disable next-line ConditionalExpression,EqualityOperator: with no approved record approved is 0 and a clawback's amount is below 0, so the sum is not above 0
        b.records > 0,
    }));
}
