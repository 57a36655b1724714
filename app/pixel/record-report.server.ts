import { Prisma } from "@prisma/client";
import type { PixelReport } from "../attribution/pixel-report";
import { sqlTime } from "../database/db.server";
import { insertRows, type Sql } from "../database/sql.server";
import { clickRecordFor, NEW_CLICKS_PER_CART_PER_HOUR, recordForShop } from "../landing/record-touch.server";
import { PixelSighting } from "../database/tables";

// Keeps one report of the web pixel: append-only, one row per Shopify event (a report sent
// again, by a retrying browser or by anyone replaying it, stores nothing). A landing's click is
// looked up once at the service, as a touch's is: the same click record and job, under the same
// durable caps: new click ids per visitor an hour (a script inventing ids cannot make the app
// look them all up; over it the landing is kept, unlooked-up), and the shop's lookups an hour
// (the merchant's setting), counted with the touches' own.

/** New click ids one visitor (Shopify's clientId) may bring in an hour: the touches' cap per cart. */
export const NEW_CLICKS_PER_CLIENT_PER_HOUR = NEW_CLICKS_PER_CART_PER_HOUR;
const HOUR_MS = 60 * 60 * 1000;

export type ReportResult =
  | { status: "recorded"; newClick: boolean }
  | { status: "duplicate" }
  | { status: "ignored"; reason: string }
  | { status: "limited"; reason: string; retryAfterMs: number };

/** `source`: the call's network source as a keyed hash, null when unknown. */
export function recordPixelReport(
  shop: string,
  report: PixelReport,
  source: string | null,
  now: Date,
): Promise<ReportResult> {
  return recordForShop(shop, (tx, lookupsPerHour) => write(tx, shop, report, source, lookupsPerHour, now));
}

async function write(
  tx: Sql,
  shop: string,
  report: PixelReport,
  source: string | null,
  lookupsPerHour: number,
  now: Date,
) {
  const [seen] = await tx.rows(
    Prisma.sql`SELECT 1 AS "seen" FROM ${PixelSighting} WHERE ${PixelSighting.shop} = ${shop} AND ${PixelSighting.eventId} = ${report.eventId}`,
  );
  if (seen) return { status: "duplicate" as const };
  let newClick = false;
  if (report.kind === "landing" && report.clickId !== null) {
    const clickId = report.clickId;
    const hourAgo = sqlTime(new Date(now.getTime() - HOUR_MS));
    const [knownToClient] = await tx.rows(Prisma.sql`
      SELECT 1 AS "known" FROM ${PixelSighting}
      WHERE ${PixelSighting.shop} = ${shop} AND ${PixelSighting.clientId} = ${report.clientId} AND ${PixelSighting.clickId} = ${clickId} LIMIT 1`);
    // Over the visitor's cap the landing is kept, unlooked-up, as a touch over its cart's is.
    let lookUp = true;
    if (!knownToClient) {
      const recent = await tx.rows(Prisma.sql`
        SELECT DISTINCT ${PixelSighting.clickId} FROM ${PixelSighting}
        WHERE ${PixelSighting.shop} = ${shop} AND ${PixelSighting.clientId} = ${report.clientId} AND ${PixelSighting.kind} = 'landing'
          AND ${PixelSighting.clickId} IS NOT NULL AND ${PixelSighting.seenAt} >= ${hourAgo}
        LIMIT ${NEW_CLICKS_PER_CLIENT_PER_HOUR}`);
      lookUp = recent.length < NEW_CLICKS_PER_CLIENT_PER_HOUR;
    }
    if (lookUp) {
      const click = await clickRecordFor(tx, shop, clickId, lookupsPerHour, now);
      if ("refused" in click) return limited(click.refused);
      newClick = click.newClick;
    }
  }
  await insertRows(tx, "PixelSighting", [
    {
      shop,
      eventId: report.eventId,
      kind: report.kind,
      clientId: report.clientId,
      clickId: report.clickId,
      tag: report.tag,
      orderId: report.orderId,
      checkoutToken: report.checkoutToken,
      seenAt: now,
      source,
    },
  ]);
  return { status: "recorded" as const, newClick };
}

function limited(reason: string): ReportResult {
  return { status: "limited", reason, retryAfterMs: HOUR_MS };
}
