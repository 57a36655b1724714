import { Prisma } from "@prisma/client";
import { sqlTime } from "../database/db.server";
import { readDate, sql } from "../database/sql.server";
import { formatMoney, type MoneyText } from "../units/money";
import { Commission, CommissionEntry } from "../database/tables";
import { heldCreators, type HeldState } from "./held-creators.server";

// What the merchant can pay each creator: approved records less the clawbacks no payout has
// netted yet, plus the top-ups (an order edited up after its record was paid) whose hold has
// passed, per creator and currency. The Payouts page lists them; a payout sums them again. A
// held creator's balance (suspected or blocked) is listed, not payable.

/**
 * The entries of `e` a payout settles, and not yet settled: every clawback, and each top-up
 * due by `now`, its due time fixed when it was written, so a top-up waits the hold in force at
 * the edit as a new record waits the hold in force at its credit (decision 045). Not those of a
 * record a provider still has (`paying`): if its payment bounces, the record comes back at its
 * reduced amount and the refund is settled by it; if it is paid, they are open from then on.
 * Netted meanwhile, the creator would lose the refund twice (decision 050).
 */
export function openAdjustments(shop: string, now: Date): Prisma.Sql {
  return Prisma.sql`e.${CommissionEntry.shop} = ${shop} AND e.${CommissionEntry.payoutId} IS NULL
    AND (e.${CommissionEntry.kind} = 'clawback' OR (e.${CommissionEntry.kind} = 'top_up' AND e.${CommissionEntry.dueAt} <= ${sqlTime(now)}))
    AND NOT EXISTS (SELECT 1 FROM ${Commission} c WHERE c.${Commission.id} = e.${CommissionEntry.commissionId} AND c.${Commission.status} = 'paying')`;
}

/** Entry kinds a payout settles, and a void opens again. */
export const ADJUSTMENT_KINDS = Prisma.sql`('clawback', 'top_up')`;

export interface PayableBalance {
  /** `${currency}:${creatorId}`: what the form sends back for a chosen balance. */
  key: string;
  creatorId: string;
  currency: string;
  approved: string;
  /** Clawbacks not netted yet (negative), with top-ups due (positive). */
  owed: string;
  balance: string;
  balanceMinor: string;
  records: number;
  payable: boolean;
  /** The creator's commissions are held (creator-standing.ts): suspected or blocked; null: not held. */
  held: HeldState | null;
  /**
   * Top-ups still in their hold, not in the balance: their sum, how many, and when the first
   * becomes payable (ISO). Null when none waits.
   */
  waiting: { amount: string; count: number; from: string } | null;
}

export function balanceKey(creatorId: string, currency: string): string {
  return `${currency}:${creatorId}`;
}

export function parseBalanceKey(key: string): { creatorId: string; currency: string } | null {
  const match = /^([A-Z]{3}):(.{1,200})$/s.exec(key);
  return match ? { currency: match[1]!, creatorId: match[2]! } : null;
}

/**
 * Every creator and currency with approved records, adjustments to net or top-ups waiting;
 * payable when the sum is positive.
 */
export async function payableBalances(
  shop: string,
  money: MoneyText = formatMoney,
  now: Date = new Date(),
): Promise<PayableBalance[]> {
  // Sums as decimal text: one type from both drivers, read exactly into bigints.
  const [approved, owed, waiting, held] = await Promise.all([
    sql.rows<{ creatorId: string; currency: string; approved: string; records: number | bigint | string }>(Prisma.sql`
      SELECT ${Commission.creatorId}, ${Commission.currency}, CAST(SUM(${Commission.amountMinor}) AS TEXT) AS "approved", COUNT(*) AS "records"
      FROM ${Commission} WHERE ${Commission.shop} = ${shop} AND ${Commission.status} = 'approved'
      GROUP BY ${Commission.creatorId}, ${Commission.currency}`),
    sql.rows<{ creatorId: string; currency: string; owed: string }>(Prisma.sql`
      SELECT c.${Commission.creatorId}, c.${Commission.currency}, CAST(SUM(e.${CommissionEntry.amountMinor}) AS TEXT) AS "owed"
      FROM ${CommissionEntry} e JOIN ${Commission} c ON c.${Commission.id} = e.${CommissionEntry.commissionId}
      WHERE ${openAdjustments(shop, now)}
      GROUP BY c.${Commission.creatorId}, c.${Commission.currency}`),
    sql.rows<{ creatorId: string; currency: string; waiting: string; count: number | bigint | string; from: unknown }>(
      Prisma.sql`
      SELECT c.${Commission.creatorId}, c.${Commission.currency}, CAST(SUM(e.${CommissionEntry.amountMinor}) AS TEXT) AS "waiting",
             COUNT(*) AS "count", MIN(e.${CommissionEntry.dueAt}) AS "from"
      FROM ${CommissionEntry} e JOIN ${Commission} c ON c.${Commission.id} = e.${CommissionEntry.commissionId}
      WHERE e.${CommissionEntry.shop} = ${shop} AND e.${CommissionEntry.payoutId} IS NULL
        AND e.${CommissionEntry.kind} = 'top_up' AND e.${CommissionEntry.dueAt} > ${sqlTime(now)}
      GROUP BY c.${Commission.creatorId}, c.${Commission.currency}`,
    ),
    heldCreators(sql, shop),
  ]);
  const balances = new Map<
    string,
    {
      creatorId: string;
      currency: string;
      approved: bigint;
      owed: bigint;
      records: number;
      waiting: { minor: bigint; count: number; from: Date } | null;
    }
  >();
  const entry = (creatorId: string, currency: string) => {
    const key = balanceKey(creatorId, currency);
    const found = balances.get(key) ?? { creatorId, currency, approved: 0n, owed: 0n, records: 0, waiting: null };
    balances.set(key, found);
    return found;
  };
  for (const row of approved) {
    const balance = entry(row.creatorId, row.currency);
    balance.approved += BigInt(row.approved);
    balance.records += Number(row.records);
  }
  for (const row of owed) entry(row.creatorId, row.currency).owed += BigInt(row.owed);
  for (const row of waiting)
    entry(row.creatorId, row.currency).waiting = {
      minor: BigInt(row.waiting),
      count: Number(row.count),
      from: readDate(row.from),
    };
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
      // A top-up alone (no approved record) is payable too; nothing of a held creator's is.
      payable: b.approved + b.owed > 0n && !held.has(b.creatorId),
      held: held.get(b.creatorId) ?? null,
      waiting: b.waiting && {
        amount: money(b.waiting.minor, b.currency),
        count: b.waiting.count,
        from: b.waiting.from.toISOString(),
      },
    }));
}
