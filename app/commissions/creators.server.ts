import { Prisma } from "@prisma/client";
import { sql } from "../database/sql.server";
import { formatMoney, type MoneyText } from "../units/money";
import { DEFAULT_LOCALE, localeMoney } from "../units/shop-format";
import { creatorProfiles, type CreatorProfileView } from "./creator-profiles.server";
import { openAdjustments } from "./payable-balances.server";
import { Commission, CommissionCreator, CommissionEntry } from "../database/tables";

// Per creator and currency: what is pending, approved and paid (each record's net amount),
// what refunds and cancellations took back, what the merchant recovered from hijackers (net
// amounts of redirected records), and the balance due: approved less clawbacks not yet netted,
// plus top-ups whose hold has passed, as the Payouts page counts it.

export interface CreatorTotals {
  creatorId: string;
  currency: string;
  records: number;
  pending: string;
  approved: string;
  paid: string;
  reversed: string;
  redirected: string;
  balanceDue: string;
}

export const CREATORS_LIMIT = 500;

interface RecordSums {
  creatorId: string;
  currency: string;
  /** A count: a number or bigint (SQLite), or its decimal text (PostgreSQL's bigint). */
  records: number | bigint | string;
  pending: string | null;
  approved: string | null;
  paid: string | null;
  redirected: string | null;
}

interface EntrySums {
  creatorId: string;
  currency: string;
  reversed: string | null;
  owed: string | null;
}

/** One creator, some creators (an empty list: none), or every creator (null). */
export type CreatorChoice = string | readonly string[] | null;

function creatorFilter(column: Prisma.Sql, creatorId: CreatorChoice): Prisma.Sql {
  if (creatorId === null || creatorId === "") return Prisma.empty;
  if (typeof creatorId === "string") return Prisma.sql` AND ${column} = ${creatorId}`;
  return creatorId.length === 0 ? Prisma.sql` AND 1 = 0` : Prisma.sql` AND ${column} IN (${Prisma.join(creatorId)})`;
}

/** The page's two statements (exported for tests/admin/query-plans.test.ts). */
export function creatorQueries(shop: string, creatorId: CreatorChoice = null, now = new Date()) {
  const creator = creatorFilter(CommissionCreator.creatorId, creatorId);
  const entryCreator = creatorFilter(Prisma.sql`c.${Commission.creatorId}`, creatorId);
  const sum = (condition: Prisma.Sql) =>
    Prisma.sql`CAST(SUM(CASE WHEN ${condition} THEN ${CommissionCreator.amountMinor} ELSE 0 END) AS TEXT)`;
  return {
    /**
     * From CommissionCreator, the trigger-kept rollup of every record by creator, currency,
     * status and redirected (app/database/rollups.server.ts): a few rows per creator, however
     * many records. Index: (shop, creatorId).
     */
    records: Prisma.sql`
      SELECT ${CommissionCreator.creatorId}, ${CommissionCreator.currency}, SUM(${CommissionCreator.records}) AS records,
             ${sum(Prisma.sql`${CommissionCreator.status} = 'pending'`)} AS pending,
             ${sum(Prisma.sql`${CommissionCreator.status} = 'approved'`)} AS approved,
             ${sum(Prisma.sql`${CommissionCreator.status} = 'paid'`)} AS paid,
             ${sum(Prisma.sql`${CommissionCreator.redirected} = TRUE`)} AS redirected
      FROM ${CommissionCreator} WHERE ${CommissionCreator.shop} = ${shop}${creator}
      GROUP BY ${CommissionCreator.creatorId}, ${CommissionCreator.currency}
      HAVING SUM(${CommissionCreator.records}) > 0
      ORDER BY ${CommissionCreator.creatorId}, ${CommissionCreator.currency} LIMIT ${CREATORS_LIMIT}`,
    entries: Prisma.sql`
      SELECT c.${Commission.creatorId}, c.${Commission.currency},
             CAST(SUM(CASE WHEN e.${CommissionEntry.kind} IN ('edit', 'top_up') THEN 0 ELSE -e.${CommissionEntry.amountMinor} END) AS TEXT) AS reversed,
             CAST(SUM(CASE WHEN ${openAdjustments(shop, now)} THEN e.${CommissionEntry.amountMinor} ELSE 0 END) AS TEXT) AS owed
      FROM ${CommissionEntry} e JOIN ${Commission} c ON c.${Commission.id} = e.${CommissionEntry.commissionId}
      WHERE e.${CommissionEntry.shop} = ${shop} AND e.${CommissionEntry.kind} <> 'credit'${entryCreator}
      GROUP BY c.${Commission.creatorId}, c.${Commission.currency}`,
  };
}

export async function creatorTotals(
  shop: string,
  creatorId: CreatorChoice = null,
  write: MoneyText = formatMoney,
  now = new Date(),
): Promise<CreatorTotals[]> {
  const queries = creatorQueries(shop, creatorId, now);
  const [records, entries] = await Promise.all([
    sql.rows<RecordSums>(queries.records),
    sql.rows<EntrySums>(queries.entries),
  ]);
  const taken = new Map(entries.map((row) => [`${row.currency}:${row.creatorId}`, row]));
  return records.map((row) => {
    const entry = taken.get(`${row.currency}:${row.creatorId}`);
    const money = (minor: string | null | undefined) => write(BigInt(minor ?? "0"), row.currency);
    return {
      creatorId: row.creatorId,
      currency: row.currency,
      records: Number(row.records),
      pending: money(row.pending),
      approved: money(row.approved),
      paid: money(row.paid),
      reversed: money(entry?.reversed),
      redirected: money(row.redirected),
      balanceDue: write(BigInt(row.approved ?? "0") + BigInt(entry?.owed ?? "0"), row.currency),
    };
  });
}

/**
 * The Creators page: the totals, and the merchant's details for each creator listed and for
 * `named`, creators the page shows beside the totals (app/creators/creators-page.server.ts).
 */
export async function creatorsPage(
  shop: string,
  creatorId: CreatorChoice,
  locale: string = DEFAULT_LOCALE,
  named: readonly string[] = [],
) {
  const rows = await creatorTotals(shop, creatorId, localeMoney(locale));
  const profiles: Record<string, CreatorProfileView> = {};
  for (const [id, profile] of await creatorProfiles(shop, [...rows.map((row) => row.creatorId), ...named]))
    profiles[id] = profile;
  return { creator: typeof creatorId === "string" ? creatorId : null, rows, profiles, limit: CREATORS_LIMIT };
}
