import { Prisma } from "@prisma/client";
import { sqlTime } from "../database/db.server";
import { dayNumber, zoneOffset } from "../database/dialect-sql.server";
import { OUTCOMES } from "../verification/outcomes";
import { Commission, DataRequest, Verification, VerificationHour } from "../database/tables";

/** Every evidence source an order's click can come from (ClickEvidence["source"]). */
const CAPTURE_SOURCES = ["app_proxy", "pixel", "cart_attributes", "landing_site"] as const;

const HOUR_MS = 3_600_000;

/**
 * The counts of decided orders over a period come from VerificationHour, the trigger-kept rollup
 * by hour (a sum over its rows, folded or not, is the count), and only the partial first hour of
 * the period is read from Verification, so their cost no longer grows with the orders. In-progress
 * orders are not in the rollup and are counted from Verification, where they are few.
 *
 * A shop's day starts at the same minute of every UTC hour it starts in (`split`, 0 for a zone
 * offset by whole hours): the quarters of an hour before that minute fall in one day, the rest in
 * the next. Every zone in use today is offset by a multiple of 15 minutes, so quarters nest in
 * its days.
 */
function hourRollup(firstHour: number, offsetMinutes: number) {
  const offset = zoneOffset(offsetMinutes);
  // The minute of a UTC hour at which the shop's day starts, to the quarter.
  const split = Math.floor((((-offset % 60) + 60) % 60) / 15) * 15;
  const quarters = [VerificationHour.q0, VerificationHour.q1, VerificationHour.q2, VerificationHour.q3];
  const sum = (from: number, to: number) => Prisma.join(quarters.slice(from, to), " + ");
  // The day as days since 1970, in the text (not bound) for GROUP BY to match it, as dayNumber.
  const day = (minutes: number) =>
    Prisma.sql`(${VerificationHour.hour} * 60 + ${Prisma.raw(String(offset + minutes))}) / 1440`;
  const since = Prisma.sql`${VerificationHour.hour} >= ${firstHour}`;
  return {
    since,
    /** Orders of a row, whatever their day. */
    all: sum(0, 4),
    /** (day, orders) for each part of the hour a day of the shop holds: one part, or two. */
    parts:
      split === 0
        ? [{ day: day(0), orders: sum(0, 4) }]
        : [
            { day: day(0), orders: sum(0, split / 15) },
            { day: day(split), orders: sum(split / 15, 4) },
          ],
  };
}

// The dashboard's SQL, kept apart so the benchmark runs EXPLAIN QUERY PLAN on exactly the
// statements the page runs. One text for SQLite and PostgreSQL: identifiers are quoted (PostgreSQL
// folds unquoted ones to lower case), times go through sqlTime (Unix milliseconds on SQLite), and
// TRUE is 1 to SQLite. Every statement starts from an index on (shop, ...).

export function dashboardQueries(shop: string, since: Date, dayOffsetMinutes = 0) {
  const time = sqlTime(since);
  const DAY_OF = dayNumber(Verification.createdAt, dayOffsetMinutes);
  const firstHour = Math.ceil(since.getTime() / HOUR_MS);
  const firstHourAt = sqlTime(new Date(firstHour * HOUR_MS));
  const hours = hourRollup(firstHour, dayOffsetMinutes);
  const outcomes = Prisma.join([...OUTCOMES]);
  const sources = Prisma.join([...CAPTURE_SOURCES]);
  /** The period's orders before its first whole hour, from Verification. */
  const partialHour = Prisma.sql`${Verification.shop} = ${shop} AND ${Verification.createdAt} >= ${time} AND ${Verification.createdAt} < ${firstHourAt}`;
  /** The rollup's orders per day for `where`, each part of an hour under its own day; per source if asked. */
  const rollupByDay = (where: Prisma.Sql, perSource: boolean) =>
    Prisma.join(
      hours.parts.map((part) => {
        const source = perSource ? VerificationHour.source : Prisma.sql`NULL`;
        return Prisma.sql`
      SELECT ${source} AS source, ${part.day} AS day, SUM(${part.orders}) AS n FROM ${VerificationHour}
      WHERE ${VerificationHour.shop} = ${shop} AND ${hours.since} AND ${where}
      GROUP BY ${perSource ? Prisma.sql`${VerificationHour.source}, ` : Prisma.empty}${part.day}`;
      }),
      " UNION ALL ",
    );
  return {
    /**
     * Orders per outcome in the period (NULL = still being verified), a row or more each: the
     * rollup's whole hours, the first partial hour (one covering range per outcome on (shop,
     * outcome, createdAt)), and the orders still in progress (one range).
     */
    outcomeCounts: Prisma.sql`
      SELECT ${VerificationHour.outcome} AS outcome, SUM(${hours.all}) AS n FROM ${VerificationHour}
      WHERE ${VerificationHour.shop} = ${shop} AND ${hours.since} AND ${VerificationHour.outcome} IN (${outcomes})
      GROUP BY ${VerificationHour.outcome}
      UNION ALL
      SELECT ${Verification.outcome} AS outcome, COUNT(*) AS n FROM ${Verification}
      WHERE ${partialHour} AND ${Verification.outcome} IN (${outcomes})
      GROUP BY ${Verification.outcome}
      UNION ALL
      SELECT NULL AS outcome, COUNT(*) AS n FROM ${Verification}
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
     * as source NULL, a row or more per day. The period's totals per witness are these rows
     * summed. Decided orders come from the rollup and the partial first hour (one covering range
     * per source on (shop, captureSource, createdAt)); orders still in progress that named a
     * click, from Verification (a range on (shop, outcome, createdAt)).
     */
    coverageByDay: Prisma.sql`
      ${rollupByDay(Prisma.sql`${VerificationHour.source} IN (${sources})`, true)}
      UNION ALL
      ${rollupByDay(Prisma.sql`${VerificationHour.outcome} = 'unattributed'`, false)}
      UNION ALL
      SELECT ${Verification.captureSource} AS source, ${DAY_OF} AS day, COUNT(*) AS n FROM ${Verification}
      WHERE ${partialHour} AND ${Verification.captureSource} IN (${sources})
      GROUP BY ${Verification.captureSource}, ${DAY_OF}
      UNION ALL
      SELECT NULL AS source, ${DAY_OF} AS day, COUNT(*) AS n FROM ${Verification}
      WHERE ${partialHour} AND ${Verification.outcome} = 'unattributed'
      GROUP BY ${DAY_OF}
      UNION ALL
      SELECT ${Verification.captureSource} AS source, ${DAY_OF} AS day, COUNT(*) AS n FROM ${Verification}
      WHERE ${Verification.shop} = ${shop} AND ${Verification.outcome} IS NULL AND ${Verification.createdAt} >= ${firstHourAt}
        AND ${Verification.captureSource} IN (${sources})
      GROUP BY ${Verification.captureSource}, ${DAY_OF}`,
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
