import { Prisma } from "@prisma/client";
import { sqlTime } from "../database/db.server";
import { readDate, sql } from "../database/sql.server";
import { formatMoney, percentage, type MoneyText } from "../units/money";
import { periodStart } from "../units/periods";
import type { CodeFilter } from "./code-filter";
import { CodeDeactivation, OrderDiscountCode } from "../database/tables";

// Per discount code, over the orders with a click in the period: how often it rode on a
// hijacked order, what it gave away there, and the commission Tag Guard redirected on those
// orders. Money is summed in SQL as integer minor units (exact), per currency, and formatted
// from the text of the sum, never through a float. Shopify matches codes without regard to
// case, and the payload carries the code as the shopper typed it: so a code is counted (and
// shown) in capitals. (SQLite's UPPER folds ASCII letters only; PostgreSQL's folds all.)

export interface CodeTotals {
  code: string;
  currency: string;
  orders: number;
  hijacked: number;
  /** hijacked ÷ orders, one decimal ("66.7%"). */
  hijackedShare: string;
  /** Discount the code gave on hijacked orders ("USD 12.50" in the CSV; the page's locale on the page). */
  discountOnHijacked: string;
  /** Commission redirected to the rightful creators on those orders. */
  redirectedOnHijacked: string;
  firstHijackedAt: string | null;
  lastHijackedAt: string | null;
  /** The latest switch-off from the Codes page, when there is one. */
  deactivation: { at: string; userId: string | null } | null;
}

export const CODES_LIMIT = 500;

interface Row {
  code: string;
  currency: string;
  orders: number | bigint | string;
  hijacked: number | bigint | string;
  discount: string | null;
  redirected: string | null;
  firstAt: unknown;
  lastAt: unknown;
}

/** LIKE's own characters in a merchant's search, escaped. */
function likePattern(search: string): string {
  return `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The page's statement (exported for tests). It reads the shop's codes of the period alone: each
 * row carries the facts of its order it is counted by (clicked, hijacked, when, the redirected
 * commission), kept by triggers, so no code is joined to its order here.
 */
export function codeTotalsQuery(shop: string, filter: CodeFilter, now: Date, limit = CODES_LIMIT): Prisma.Sql {
  const hijacked = Prisma.sql`d.${OrderDiscountCode.hijacked} = TRUE`;
  const hijackedCount = Prisma.sql`SUM(CASE WHEN ${hijacked} THEN 1 ELSE 0 END)`;
  const discount = Prisma.sql`SUM(CASE WHEN ${hijacked} THEN d.${OrderDiscountCode.amountMinor} ELSE 0 END)`;
  const order =
    filter.sort === "code"
      ? Prisma.sql`UPPER(d.${OrderDiscountCode.code}), d.${OrderDiscountCode.currency}`
      : filter.sort === "orders"
        ? Prisma.sql`COUNT(*) DESC, ${hijackedCount} DESC, UPPER(d.${OrderDiscountCode.code}), d.${OrderDiscountCode.currency}`
        : // Harm: the codes riding on most hijacked orders first, then the discount they gave there.
          Prisma.sql`${hijackedCount} DESC, ${discount} DESC, COUNT(*) DESC, UPPER(d.${OrderDiscountCode.code}), d.${OrderDiscountCode.currency}`;
  return Prisma.sql`
    SELECT UPPER(d.${OrderDiscountCode.code}) AS code, d.${OrderDiscountCode.currency}, COUNT(*) AS orders, ${hijackedCount} AS hijacked,
           CAST(${discount} AS TEXT) AS discount,
           CAST(SUM(CASE WHEN ${hijacked} THEN d.${OrderDiscountCode.redirectedMinor} ELSE 0 END) AS TEXT) AS redirected,
           MIN(CASE WHEN ${hijacked} THEN d.${OrderDiscountCode.orderCreatedAt} END) AS "firstAt",
           MAX(CASE WHEN ${hijacked} THEN d.${OrderDiscountCode.orderCreatedAt} END) AS "lastAt"
    FROM ${OrderDiscountCode} d
    WHERE d.${OrderDiscountCode.shop} = ${shop} AND d.${OrderDiscountCode.createdAt} >= ${sqlTime(periodStart(filter.period, now))}
      AND d.${OrderDiscountCode.clicked} = TRUE
      ${filter.search ? Prisma.sql`AND LOWER(d.${OrderDiscountCode.code}) LIKE ${likePattern(filter.search)} ESCAPE '\\'` : Prisma.empty}
    GROUP BY UPPER(d.${OrderDiscountCode.code}), d.${OrderDiscountCode.currency}
    ${filter.hijackedOnly ? Prisma.sql`HAVING ${hijackedCount} > 0` : Prisma.empty}
    ORDER BY ${order}
    LIMIT ${limit}`;
}

const count = (value: number | bigint | string) => Number(value);

export async function codeTotals(
  shop: string,
  filter: CodeFilter,
  now = new Date(),
  limit = CODES_LIMIT,
  money: MoneyText = formatMoney,
): Promise<CodeTotals[]> {
  const rows = await sql.rows<Row>(codeTotalsQuery(shop, filter, now, limit));
  const deactivations = await latestDeactivations(
    shop,
    rows.map((row) => row.code),
  );
  return rows.map((row) => {
    const orders = count(row.orders);
    const hijacked = count(row.hijacked);
    const deactivation = deactivations.get(row.code);
    return {
      code: row.code,
      currency: row.currency,
      orders,
      hijacked,
      // Stryker disable next-line StringLiteral: never read, a code's row counts at least one order
      hijackedShare: percentage(hijacked, orders) ?? "0.0%",
      // Stryker disable next-line StringLiteral: never read, a SUM of CASE ... ELSE 0 over one row or more is never NULL
      discountOnHijacked: money(row.discount ?? "0", row.currency),
      // Stryker disable next-line StringLiteral: never read, a SUM of CASE ... ELSE 0 over one row or more is never NULL
      redirectedOnHijacked: money(row.redirected ?? "0", row.currency),
      firstHijackedAt: row.firstAt == null ? null : readDate(row.firstAt).toISOString(),
      lastHijackedAt: row.lastAt == null ? null : readDate(row.lastAt).toISOString(),
      deactivation: deactivation ?? null,
    };
  });
}

/** The latest switch-off of each of these codes. */
export async function latestDeactivations(
  shop: string,
  codes: string[],
): Promise<Map<string, { at: string; userId: string | null }>> {
  const found = new Map<string, { at: string; userId: string | null }>();
  if (codes.length === 0) return found;
  const rows = await sql.rows<{ code: string; userId: string | null; createdAt: unknown }>(Prisma.sql`
    SELECT ${CodeDeactivation.columns("code", "userId", "createdAt")} FROM ${CodeDeactivation}
    WHERE ${CodeDeactivation.shop} = ${shop} AND UPPER(${CodeDeactivation.code}) IN (${Prisma.join([...new Set(codes)])})
    ORDER BY ${CodeDeactivation.createdAt}`);
  for (const row of rows)
    found.set(row.code.toUpperCase(), { at: readDate(row.createdAt).toISOString(), userId: row.userId });
  return found;
}
