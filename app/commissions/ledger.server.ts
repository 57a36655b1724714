import { Prisma } from "@prisma/client";
import { sqlTime } from "../database/db.server";
import { unindexed } from "../database/dialect-sql.server";
import { readBoolean, readDate, sql } from "../database/sql.server";
import { formatMoney } from "../units/money";
import {
  DEFAULT_LOCALE,
  formatCurrency,
  formatMinorCurrency,
  timesIn,
  UTC,
  type ShopFormat,
} from "../units/shop-format";
import { adminOrderUrl } from "../units/shopify-ids";
import { shopFormat } from "../shop-profile/shop-profile.server";
import { PERIODS, periodStart } from "../units/periods";
import { creatorProfiles } from "./creator-profiles.server";
import { COMMISSION_STATUSES, isCommissionStatus } from "./statuses";
import { Commission, CommissionDay, CommissionEntry } from "../database/tables";

// The commission ledger: filtered, keyset-paginated on (createdAt, id) newest first, totals
// per currency of the whole filtered set summed in SQL over integer minor units, and an
// export that walks the same filter in keyset batches so memory stays flat for any size.

/** The statuses the ledger filters by: every status a record can have. */
export const LEDGER_STATUSES = COMMISSION_STATUSES;
export const PAGE_SIZE = 50;

export interface LedgerFilter {
  creatorId: string | null;
  status: string | null;
  redirectedOnly: boolean;
  /** 7, 30 or 90 days; null for all time. */
  days: number | null;
}

export interface LedgerCursor {
  createdAt: number;
  id: string;
}

export interface LedgerRow {
  id: string;
  orderId: string;
  orderName: string | null;
  verificationId: string;
  creatorId: string;
  expectedTag: string;
  arrivedTag: string;
  orderValue: string;
  currency: string;
  rate: string;
  amount: string;
  status: string;
  redirected: boolean;
  createdAt: string;
  /** The merchant's name and email for the creator (CreatorProfile), empty when not given. */
  creatorName: string;
  creatorEmail: string;
  /**
   * The export only: the record's entries oldest first, each its kind and amount ("credit 10.00;
   * edit -2.00"), so a spreadsheet shows what moved a record since its credit (decision 045).
   */
  entries?: string;
}

export interface LedgerPage {
  filter: LedgerFilter;
  /** Each row with its amount as the merchant's locale writes it, and its order in Shopify admin. */
  rows: (LedgerRow & { amountText: string; adminOrderUrl: string })[];
  nextCursor: string | null;
  /** total: "USD 1,234.56"; totalText: the same sum in the merchant's locale ("$1,234.56"). */
  totals: { currency: string; total: string; totalText: string; records: number }[];
  /** Every time on the page in the shop's zone, by its ISO text (timesIn). */
  times: Record<string, string>;
}

export function parseLedgerFilter(params: URLSearchParams): LedgerFilter {
  const creator = params.get("creator")?.trim().slice(0, 200) || null;
  const status = params.get("status");
  const days = Number(params.get("days"));
  return {
    creatorId: creator,
    status: isCommissionStatus(status) ? status : null,
    redirectedOnly: params.get("redirected") === "1" || params.get("redirected") === "true",
    days: (PERIODS as readonly number[]).includes(days) ? days : null,
  };
}

export function encodeCursor(cursor: LedgerCursor): string {
  return Buffer.from(`${cursor.createdAt}:${cursor.id}`, "utf8").toString("base64url");
}

export function decodeCursor(value: string | null | undefined): LedgerCursor | null {
  if (!value) return null;
  const text = Buffer.from(value, "base64url").toString("utf8");
  const match = /^(\d{1,16}):([A-Za-z0-9_-]{1,64})$/.exec(text);
  return match ? { createdAt: Number(match[1]), id: match[2]! } : null;
}

/** WHERE clause of the filtered set. The leading (shop, x, createdAt) columns match an index each. */
function whereFilter(shop: string, filter: LedgerFilter, now: Date): Prisma.Sql {
  // One index leads: the most selective filter given (creator, then status, then redirected).
  const lead = filter.creatorId ? "creator" : filter.status ? "status" : filter.redirectedOnly ? "redirected" : null;
  const parts = [Prisma.sql`${Commission.shop} = ${shop}`];
  if (filter.creatorId) parts.push(Prisma.sql`${Commission.creatorId} = ${filter.creatorId}`);
  if (filter.status)
    parts.push(
      lead === "status"
        ? Prisma.sql`${Commission.status} = ${filter.status}`
        : Prisma.sql`${unindexed(Commission.status)} = ${filter.status}`,
    );
  if (filter.redirectedOnly)
    parts.push(
      lead === "redirected"
        ? Prisma.sql`${Commission.redirected} = TRUE`
        : Prisma.sql`${unindexed(Commission.redirected)} = TRUE`,
    );
  if (filter.days) parts.push(Prisma.sql`${Commission.createdAt} >= ${sqlTime(periodStart(filter.days, now))}`);
  return Prisma.join(parts, " AND ");
}

function afterCursor(cursor: LedgerCursor | null): Prisma.Sql {
  if (!cursor) return Prisma.empty;
  // Written so the index range stays on createdAt: <= bounds it, the OR breaks ties by id.
  const at = sqlTime(new Date(cursor.createdAt));
  return Prisma.sql` AND ${Commission.createdAt} <= ${at} AND (${Commission.createdAt} < ${at} OR ${Commission.id} < ${cursor.id})`;
}

export function ledgerQueries(
  shop: string,
  filter: LedgerFilter,
  cursor: LedgerCursor | null,
  limit: number,
  now: Date = new Date(),
) {
  const where = whereFilter(shop, filter, now);
  return {
    page: Prisma.sql`
      SELECT ${Commission.columns("id", "orderId", "orderName", "verificationId", "creatorId", "expectedTag", "arrivedTag", "orderValue", "currency", "rate", "amount", "status", "redirected", "createdAt")}
      FROM ${Commission} WHERE ${where}${afterCursor(cursor)}
      ORDER BY ${Commission.createdAt} DESC, ${Commission.id} DESC LIMIT ${limit}`,
    totals: totalsQuery(shop, filter, where, now),
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Per-currency totals of the filtered set. By creator: that creator's records (an index range).
 * Otherwise whole days come from CommissionDay, the trigger-kept rollup, and only the partial
 * first day of a period is read from Commission, so the cost no longer grows with history.
 */
function totalsQuery(shop: string, filter: LedgerFilter, where: Prisma.Sql, now: Date): Prisma.Sql {
  if (filter.creatorId) {
    return Prisma.sql`
      SELECT ${Commission.currency}, CAST(SUM(${Commission.amountMinor}) AS TEXT) AS total, COUNT(*) AS n
      FROM ${Commission} WHERE ${where}
      GROUP BY ${Commission.currency} ORDER BY ${Commission.currency}`;
  }
  const start = filter.days ? periodStart(filter.days, now).getTime() : null;
  const firstFullDay = start === null ? null : Math.ceil(start / DAY_MS);
  const days = [Prisma.sql`${CommissionDay.shop} = ${shop}`];
  if (filter.status) days.push(Prisma.sql`${CommissionDay.status} = ${filter.status}`);
  if (filter.redirectedOnly) days.push(Prisma.sql`${CommissionDay.redirected} = TRUE`);
  if (firstFullDay !== null) days.push(Prisma.sql`${CommissionDay.day} >= ${firstFullDay}`);
  const parts = [
    Prisma.sql`SELECT ${CommissionDay.currency}, SUM(${CommissionDay.amountMinor}) AS total, SUM(${CommissionDay.records}) AS n FROM ${CommissionDay} WHERE ${Prisma.join(days, " AND ")} GROUP BY ${CommissionDay.currency}`,
  ];
  if (start !== null && firstFullDay !== null && start < firstFullDay * DAY_MS) {
    parts.push(
      Prisma.sql`SELECT ${Commission.currency}, SUM(${Commission.amountMinor}), COUNT(*) FROM ${Commission} WHERE ${where} AND ${Commission.createdAt} < ${sqlTime(new Date(firstFullDay * DAY_MS))} GROUP BY ${Commission.currency}`,
    );
  }
  return Prisma.sql`
    SELECT ${Commission.currency}, CAST(SUM(total) AS TEXT) AS total, SUM(n) AS n
    FROM (${Prisma.join(parts, " UNION ALL ")}) AS parts
    GROUP BY ${Commission.currency} HAVING SUM(n) > 0 ORDER BY ${Commission.currency}`;
}

// SQLite hands back Unix milliseconds and 0/1, PostgreSQL ISO text and a boolean.
interface RawRow extends Omit<LedgerRow, "createdAt" | "redirected" | "creatorName" | "creatorEmail"> {
  createdAt: unknown;
  redirected: unknown;
}

/** The rows as the page and the export show them, each creator's profile read once per batch. */
async function toRows(shop: string, raws: RawRow[]): Promise<LedgerRow[]> {
  const profiles = await creatorProfiles(
    shop,
    raws.map((raw) => raw.creatorId),
  );
  return raws.map((raw) => ({
    ...raw,
    redirected: readBoolean(raw.redirected),
    createdAt: readDate(raw.createdAt).toISOString(),
    creatorName: profiles.get(raw.creatorId)?.name ?? "",
    creatorEmail: profiles.get(raw.creatorId)?.email ?? "",
  }));
}

async function fetchPage(shop: string, filter: LedgerFilter, cursor: LedgerCursor | null, limit: number, now: Date) {
  const raw = await sql.rows<RawRow>(ledgerQueries(shop, filter, cursor, limit + 1, now).page);
  const more = raw.length > limit;
  const rows = raw.slice(0, limit);
  const last = rows.at(-1);
  const next = more && last ? { createdAt: readDate(last.createdAt).getTime(), id: last.id } : null;
  return { rows, next };
}

export async function listLedger(
  shop: string,
  params: URLSearchParams,
  now: Date = new Date(),
  format: ShopFormat = { locale: DEFAULT_LOCALE, timeZone: UTC },
): Promise<LedgerPage> {
  const filter = parseLedgerFilter(params);
  const cursor = decodeCursor(params.get("cursor"));
  const [page, totals] = await Promise.all([
    fetchPage(shop, filter, cursor, PAGE_SIZE, now),
    // n is a number or bigint (SQLite), or decimal text (PostgreSQL's bigint and numeric).
    sql.rows<{ currency: string; total: string | null; n: number | bigint | string }>(
      ledgerQueries(shop, filter, null, 0, now).totals,
    ),
  ]);
  const rows = (await toRows(shop, page.rows)).map((row) => ({
    ...row,
    amountText: formatCurrency(row.amount, row.currency, format.locale),
    adminOrderUrl: adminOrderUrl(row.orderId),
  }));
  return {
    filter,
    rows,
    nextCursor: page.next ? encodeCursor(page.next) : null,
    totals: totals.map((t) => ({
      currency: t.currency,
      total: formatMoney(t.total ?? "0", t.currency),
      totalText: formatMinorCurrency(t.total ?? "0", t.currency, format.locale),
      records: Number(t.n),
    })),
    times: timesIn(
      rows.map((row) => row.createdAt),
      format,
    ),
  };
}

/** The ledger for a merchant: times in the shop's zone, amounts in their locale. */
export async function listLedgerFor(shop: string, params: URLSearchParams, locale: string): Promise<LedgerPage> {
  return listLedger(shop, params, new Date(), await shopFormat(shop, locale));
}

/** Every record of the filtered set, newest first, read in keyset batches, each with its entries. */
export async function* ledgerRecords(
  shop: string,
  filter: LedgerFilter,
  now: Date = new Date(),
  batchSize = 1000,
): AsyncGenerator<LedgerRow> {
  let cursor: LedgerCursor | null = null;
  do {
    const { rows, next } = await fetchPage(shop, filter, cursor, batchSize, now);
    const entries = await entriesOf(rows.map((row) => row.id));
    for (const row of await toRows(shop, rows)) yield { ...row, entries: entries.get(row.id) ?? "" };
    cursor = next;
  } while (cursor);
}

/** Each record's entries as the export writes them, read for a batch in one statement. */
async function entriesOf(ids: string[]): Promise<Map<string, string>> {
  const written = new Map<string, string>();
  if (ids.length === 0) return written;
  const rows = await sql.rows<{ commissionId: string; kind: string; amount: string }>(Prisma.sql`
    SELECT ${CommissionEntry.columns("commissionId", "kind", "amount")} FROM ${CommissionEntry}
    WHERE ${CommissionEntry.commissionId} IN (${Prisma.join(ids)})
    ORDER BY ${CommissionEntry.commissionId}, ${CommissionEntry.createdAt}, ${CommissionEntry.amountMinor} DESC`);
  for (const row of rows) {
    const before = written.get(row.commissionId);
    written.set(row.commissionId, `${before ? `${before}; ` : ""}${row.kind} ${row.amount}`);
  }
  return written;
}
