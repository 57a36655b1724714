import { Prisma } from "@prisma/client";
import { dialect, sqlTime } from "../database/db.server";
import { OUTCOMES } from "../verification/outcomes";

/**
 * The shop's day of "createdAt", as days since 1970 (SQLite keeps Unix milliseconds, PostgreSQL a
 * timestamp), shifted by the zone's offset from UTC in whole minutes. Written into the text, not
 * bound: PostgreSQL would see the SELECT's and the GROUP BY's parameters as two expressions.
 */
function dayOf(offsetMinutes: number): Prisma.Sql {
  const minutes = Math.trunc(offsetMinutes);
  if (!Number.isSafeInteger(minutes) || Math.abs(minutes) > 24 * 60) throw new RangeError("offset out of range");
  return dialect === "sqlite"
    ? Prisma.raw(`CAST(("createdAt" + ${minutes * 60_000}) / 86400000 AS INTEGER)`)
    : Prisma.raw(`CAST(FLOOR((EXTRACT(EPOCH FROM "createdAt") + ${minutes * 60}) / 86400) AS INTEGER)`);
}

/** Every evidence source an order's click can come from (ClickEvidence["source"]). */
const CAPTURE_SOURCES = ["app_proxy", "pixel", "cart_attributes", "landing_site"] as const;

// The dashboard's SQL, kept apart so the benchmark runs EXPLAIN QUERY PLAN on exactly the
// statements the page runs. One text for SQLite and PostgreSQL: identifiers are quoted (PostgreSQL
// folds unquoted ones to lower case), times go through sqlTime (Unix milliseconds on SQLite), and
// TRUE is 1 to SQLite. Every statement starts from an index on (shop, ...).

export function dashboardQueries(shop: string, since: Date, dayOffsetMinutes = 0) {
  const time = sqlTime(since);
  const DAY_OF = dayOf(dayOffsetMinutes);
  return {
    /**
     * Orders per outcome in the period (NULL = still being verified). Naming every outcome lets
     * SQLite do one covering range per outcome on (shop, outcome, createdAt) instead of reading
     * the shop's whole history.
     */
    outcomeCounts: Prisma.sql`
      SELECT "outcome", COUNT(*) AS n FROM "Verification"
      WHERE "shop" = ${shop} AND "outcome" IN (${Prisma.join([...OUTCOMES])}) AND "createdAt" >= ${time}
      GROUP BY "outcome"
      UNION ALL
      SELECT NULL AS "outcome", COUNT(*) AS n FROM "Verification"
      WHERE "shop" = ${shop} AND "outcome" IS NULL AND "createdAt" >= ${time}`,
    /** Commission redirected to the rightful creator, per currency, exact. Index: (shop, redirected, createdAt). */
    redirectedTotals: Prisma.sql`
      SELECT "currency", CAST(SUM("amountMinor") AS TEXT) AS total, COUNT(*) AS n FROM "Commission"
      WHERE "shop" = ${shop} AND "redirected" = TRUE AND "createdAt" >= ${time}
      GROUP BY "currency" ORDER BY "currency"`,
    /** The tags that replaced the creator's on hijacked orders. Index: (shop, outcome, createdAt). */
    topArrivedTags: Prisma.sql`
      SELECT COALESCE("arrivedTag", '') AS tag, COUNT(*) AS n FROM "Verification"
      WHERE "shop" = ${shop} AND "outcome" = 'hijacked' AND "createdAt" >= ${time}
      GROUP BY COALESCE("arrivedTag", '') ORDER BY n DESC, tag LIMIT 5`,
    /** Did any order in the period carry the app embed's cart attributes? Index: (shop, createdAt); stops at the first. */
    captureSeen: Prisma.sql`
      SELECT EXISTS (
        SELECT 1 FROM "Verification"
        WHERE "shop" = ${shop} AND "createdAt" >= ${time} AND "captureSource" IN ('app_proxy', 'cart_attributes')
      ) AS seen`,
    /**
     * What the landing record did in the period: orders decided from it once the service had
     * forgotten their click (saved from expiry), and carts whose attributes a script rewrote.
     * Both are few: each count reads only its own rows, from (shop, verdictSource, createdAt) and
     * (shop, tampered, createdAt).
     */
    landing: Prisma.sql`
      SELECT (SELECT COUNT(*) FROM "Verification"
              WHERE "shop" = ${shop} AND "verdictSource" = 'landing' AND "createdAt" >= ${time}) AS "savedFromExpiry",
             (SELECT COUNT(*) FROM "Verification"
              WHERE "shop" = ${shop} AND "tampered" = TRUE AND "createdAt" >= ${time}) AS tampered`,
    /**
     * Capture coverage: orders in the period per witness whose click id decided them (decision
     * 030). Naming each source gives one covering range per source on (shop, captureSource,
     * createdAt). The orders with none are the unattributed ones (outcomeCounts).
     */
    coverage: Prisma.sql`
      SELECT "captureSource" AS source, COUNT(*) AS n FROM "Verification"
      WHERE "shop" = ${shop} AND "captureSource" IN (${Prisma.join([...CAPTURE_SOURCES])}) AND "createdAt" >= ${time}
      GROUP BY "captureSource"`,
    /**
     * The same, day by day (the shop's days since 1970), with the orders that carried none
     * (unattributed) as source NULL: each half one covering range, on (shop, captureSource,
     * createdAt) and (shop, outcome, createdAt).
     */
    coverageByDay: Prisma.sql`
      SELECT "captureSource" AS source, ${DAY_OF} AS day, COUNT(*) AS n FROM "Verification"
      WHERE "shop" = ${shop} AND "captureSource" IN (${Prisma.join([...CAPTURE_SOURCES])}) AND "createdAt" >= ${time}
      GROUP BY "captureSource", ${DAY_OF}
      UNION ALL
      SELECT NULL AS source, ${DAY_OF} AS day, COUNT(*) AS n FROM "Verification"
      WHERE "shop" = ${shop} AND "outcome" = 'unattributed' AND "createdAt" >= ${time}
      GROUP BY ${DAY_OF}`,
    /**
     * The latest orders that need the merchant: not checked (failed) or held for a rejected key.
     * Index: (shop, outcome, createdAt), one range per outcome.
     */
    attention: Prisma.sql`
      SELECT "id", "orderId", "orderName", "outcome", "createdAt" FROM "Verification"
      WHERE "shop" = ${shop} AND "outcome" IN ('failed', 'rejected') AND "createdAt" >= ${time}
      ORDER BY "createdAt" DESC LIMIT 5`,
    /**
     * Contested orders whose commission waits for the merchant (status review), whenever they
     * came: the latest five, and how many. Index: Commission (shop, status, createdAt, ...).
     */
    inReview: Prisma.sql`
      SELECT "verificationId" AS "id", "orderId", "orderName", "createdAt" FROM "Commission"
      WHERE "shop" = ${shop} AND "status" = 'review'
      ORDER BY "createdAt" DESC LIMIT 5`,
    inReviewCount: Prisma.sql`
      SELECT COUNT(*) AS "n" FROM "Commission" WHERE "shop" = ${shop} AND "status" = 'review'`,
    /** The latest orders. Index: (shop, createdAt), read backwards. */
    recent: Prisma.sql`
      SELECT "id", "orderId", "orderName", "outcome", "expectedTag", "arrivedTag", "creatorId", "createdAt"
      FROM "Verification"
      WHERE "shop" = ${shop}
      ORDER BY "createdAt" DESC LIMIT 20`,
    /** customers/data_request results. Index: (shop). */
    dataRequests: Prisma.sql`
      SELECT "id", "customerId", "ordersAsked", "data", "receivedAt" FROM "DataRequest"
      WHERE "shop" = ${shop}
      ORDER BY "receivedAt" DESC LIMIT 10`,
  };
}
