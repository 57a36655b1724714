import { Prisma } from "@prisma/client";
import { sqlTime } from "../database/db.server";
import { dayNumber } from "../database/dialect-sql.server";
import { OUTCOMES } from "../verification/outcomes";
import { Commission, DataRequest, Verification } from "../database/tables";

/** Every evidence source an order's click can come from (ClickEvidence["source"]). */
const CAPTURE_SOURCES = ["app_proxy", "pixel", "cart_attributes", "landing_site"] as const;

// The dashboard's SQL, kept apart so the benchmark runs EXPLAIN QUERY PLAN on exactly the
// statements the page runs. One text for SQLite and PostgreSQL: identifiers are quoted (PostgreSQL
// folds unquoted ones to lower case), times go through sqlTime (Unix milliseconds on SQLite), and
// TRUE is 1 to SQLite. Every statement starts from an index on (shop, ...).

export function dashboardQueries(shop: string, since: Date, dayOffsetMinutes = 0) {
  const time = sqlTime(since);
  const DAY_OF = dayNumber(Verification.createdAt, dayOffsetMinutes);
  return {
    /**
     * Orders per outcome in the period (NULL = still being verified). Naming every outcome lets
     * SQLite do one covering range per outcome on (shop, outcome, createdAt) instead of reading
     * the shop's whole history.
     */
    outcomeCounts: Prisma.sql`
      SELECT ${Verification.outcome}, COUNT(*) AS n FROM ${Verification}
      WHERE ${Verification.shop} = ${shop} AND ${Verification.outcome} IN (${Prisma.join([...OUTCOMES])}) AND ${Verification.createdAt} >= ${time}
      GROUP BY ${Verification.outcome}
      UNION ALL
      SELECT NULL AS ${Verification.outcome}, COUNT(*) AS n FROM ${Verification}
      WHERE ${Verification.shop} = ${shop} AND ${Verification.outcome} IS NULL AND ${Verification.createdAt} >= ${time}`,
    /** Commission redirected to the rightful creator, per currency, exact. Index: (shop, redirected, createdAt). */
    redirectedTotals: Prisma.sql`
      SELECT ${Commission.currency}, CAST(SUM(${Commission.amountMinor}) AS TEXT) AS total, COUNT(*) AS n FROM ${Commission}
      WHERE ${Commission.shop} = ${shop} AND ${Commission.redirected} = TRUE AND ${Commission.createdAt} >= ${time}
      GROUP BY ${Commission.currency} ORDER BY ${Commission.currency}`,
    /** The tags that replaced the creator's on hijacked orders. Index: (shop, outcome, createdAt). */
    topArrivedTags: Prisma.sql`
      SELECT COALESCE(${Verification.arrivedTag}, '') AS tag, COUNT(*) AS n FROM ${Verification}
      WHERE ${Verification.shop} = ${shop} AND ${Verification.outcome} = 'hijacked' AND ${Verification.createdAt} >= ${time}
      GROUP BY COALESCE(${Verification.arrivedTag}, '') ORDER BY n DESC, tag LIMIT 5`,
    /** Did any order in the period carry the app embed's cart attributes? Index: (shop, createdAt); stops at the first. */
    captureSeen: Prisma.sql`
      SELECT EXISTS (
        SELECT 1 FROM ${Verification}
        WHERE ${Verification.shop} = ${shop} AND ${Verification.createdAt} >= ${time} AND ${Verification.captureSource} IN ('app_proxy', 'cart_attributes')
      ) AS seen`,
    /**
     * What the landing record did in the period: orders decided from it once the service had
     * forgotten their click (saved from expiry), and carts whose attributes a script rewrote.
     * Both are few: each count reads only its own rows, from (shop, verdictSource, createdAt) and
     * (shop, tampered, createdAt).
     */
    landing: Prisma.sql`
      SELECT (SELECT COUNT(*) FROM ${Verification}
              WHERE ${Verification.shop} = ${shop} AND ${Verification.verdictSource} = 'landing' AND ${Verification.createdAt} >= ${time}) AS "savedFromExpiry",
             (SELECT COUNT(*) FROM ${Verification}
              WHERE ${Verification.shop} = ${shop} AND ${Verification.tampered} = TRUE AND ${Verification.createdAt} >= ${time}) AS tampered`,
    /**
     * Capture coverage, day by day (the shop's days since 1970): orders in the period per witness
     * whose click id decided them (decision 030), and the orders that carried none (unattributed)
     * as source NULL. The period's totals per witness are these rows summed, not a statement of
     * their own: at a million orders each range read is a fifth of the page's time. Naming each
     * source gives one covering range per source on (shop, captureSource, createdAt); the NULL
     * half one on (shop, outcome, createdAt).
     */
    coverageByDay: Prisma.sql`
      SELECT ${Verification.captureSource} AS source, ${DAY_OF} AS day, COUNT(*) AS n FROM ${Verification}
      WHERE ${Verification.shop} = ${shop} AND ${Verification.captureSource} IN (${Prisma.join([...CAPTURE_SOURCES])}) AND ${Verification.createdAt} >= ${time}
      GROUP BY ${Verification.captureSource}, ${DAY_OF}
      UNION ALL
      SELECT NULL AS source, ${DAY_OF} AS day, COUNT(*) AS n FROM ${Verification}
      WHERE ${Verification.shop} = ${shop} AND ${Verification.outcome} = 'unattributed' AND ${Verification.createdAt} >= ${time}
      GROUP BY ${DAY_OF}`,
    /**
     * The latest orders that need the merchant: not checked (failed) or held for a rejected key.
     * Index: (shop, outcome, createdAt), one range per outcome.
     */
    attention: Prisma.sql`
      SELECT ${Verification.columns("id", "orderId", "orderName", "outcome", "createdAt")} FROM ${Verification}
      WHERE ${Verification.shop} = ${shop} AND ${Verification.outcome} IN ('failed', 'rejected') AND ${Verification.createdAt} >= ${time}
      ORDER BY ${Verification.createdAt} DESC LIMIT 5`,
    /**
     * Contested orders whose commission waits for the merchant (status review), whenever they
     * came: the latest five, and how many. Index: Commission (shop, status, createdAt, ...).
     */
    inReview: Prisma.sql`
      SELECT ${Commission.verificationId} AS ${Commission.columns("id", "orderId", "orderName", "createdAt")} FROM ${Commission}
      WHERE ${Commission.shop} = ${shop} AND ${Commission.status} = 'review'
      ORDER BY ${Commission.createdAt} DESC LIMIT 5`,
    inReviewCount: Prisma.sql`
      SELECT COUNT(*) AS "n" FROM ${Commission} WHERE ${Commission.shop} = ${shop} AND ${Commission.status} = 'review'`,
    /** The latest orders. Index: (shop, createdAt), read backwards. */
    recent: Prisma.sql`
      SELECT ${Verification.columns("id", "orderId", "orderName", "outcome", "expectedTag", "arrivedTag", "creatorId", "createdAt")}
      FROM ${Verification}
      WHERE ${Verification.shop} = ${shop}
      ORDER BY ${Verification.createdAt} DESC LIMIT 20`,
    /** customers/data_request results. Index: (shop). */
    dataRequests: Prisma.sql`
      SELECT ${DataRequest.columns("id", "customerId", "ordersAsked", "data", "receivedAt")} FROM ${DataRequest}
      WHERE ${DataRequest.shop} = ${shop}
      ORDER BY ${DataRequest.receivedAt} DESC LIMIT 10`,
  };
}
