import { Prisma, type PixelSighting } from "@prisma/client";
import type { LandingTouchFact, PixelWitness } from "../attribution/witnesses";
import { sqlTime } from "../database/db.server";
import { readDate, rowsOf, sql, type Sql } from "../database/sql.server";

// Reading the pixel's reports back: what it saw of an order (its checkout, and the landings of
// the same visitor before it), and their retention and redaction.

const DAY_MS = 24 * 60 * 60 * 1000;
/** Sightings a little after the order still count: the app's clock is not Shopify's. */
const ORDER_CLOCK_SKEW_MS = 5 * 60 * 1000;
/** Visitors one order is joined to at most (a real checkout reports once). */
const MAX_CLIENTS = 5;
/** The most landings an order is judged on (the latest ones). */
const MAX_LANDINGS = 200;

/**
 * What the pixel saw of one order: its checkout reports (joined by the order's id) and the
 * landings of those visitors inside the attribution window before it, oldest first. null when
 * the pixel reported no checkout for the order (not connected, blocked, no consent, or not yet).
 */
export async function pixelWitness(
  shop: string,
  orderId: string,
  orderAt: Date,
  windowDays: number,
): Promise<PixelWitness | null> {
  const checkouts = await sql.rows<{ clientId: string; clickId: string | null; tag: string | null }>(Prisma.sql`
    SELECT "clientId", "clickId", "tag" FROM "PixelSighting"
    WHERE "shop" = ${shop} AND "orderId" = ${orderId} AND "kind" = 'checkout'
    ORDER BY "seenAt" ASC LIMIT ${MAX_CLIENTS}`);
  if (checkouts.length === 0) return null;
  const clientIds = [...new Set(checkouts.map((c) => c.clientId))];
  const landings = await sql.rows<{ clickId: string | null; tag: string | null; seenAt: unknown }>(Prisma.sql`
    SELECT "clickId", "tag", "seenAt" FROM "PixelSighting"
    WHERE "shop" = ${shop} AND "clientId" IN (${Prisma.join(clientIds)}) AND "kind" = 'landing'
      AND "seenAt" >= ${sqlTime(new Date(orderAt.getTime() - windowDays * DAY_MS))}
      AND "seenAt" <= ${sqlTime(new Date(orderAt.getTime() + ORDER_CLOCK_SKEW_MS))}
    ORDER BY "seenAt" DESC LIMIT ${MAX_LANDINGS}`);
  // Oldest first; a tag that came alone belongs to the click the visitor landed with before it.
  const seen: LandingTouchFact[] = [];
  let current: string | null = null;
  for (const landing of landings.reverse()) {
    current = landing.clickId ?? current;
    if (current !== null) seen.push({ clickId: current, tag: landing.tag, seenAt: readDate(landing.seenAt) });
  }
  return { checkout: checkouts.map((c) => ({ clickId: c.clickId, tag: c.tag })), landings: seen };
}

/** Whether the pixel has reported anything for the shop since `since` (the setup guide). */
export async function pixelReportedSince(shop: string, since: Date): Promise<boolean> {
  const [row] = await sql.rows(
    Prisma.sql`SELECT 1 AS "seen" FROM "PixelSighting" WHERE "shop" = ${shop} AND "seenAt" >= ${sqlTime(since)} LIMIT 1`,
  );
  return row !== undefined;
}

/** Deletes sightings older than each shop's attribution window, and all of shops without settings. */
export async function purgePixelSightings(now: Date): Promise<number> {
  const shops = await sql.rows<{ shop: string; attributionWindowDays: unknown }>(
    Prisma.sql`SELECT "shop", "attributionWindowDays" FROM "ShopSettings"`,
  );
  let deleted = 0;
  for (const { shop, attributionWindowDays } of shops) {
    const before = sqlTime(new Date(now.getTime() - Number(attributionWindowDays) * DAY_MS));
    deleted += await sql.execute(
      Prisma.sql`DELETE FROM "PixelSighting" WHERE "shop" = ${shop} AND "seenAt" < ${before}`,
    );
  }
  return (
    deleted +
    (await sql.execute(Prisma.sql`DELETE FROM "PixelSighting" WHERE "shop" NOT IN (SELECT "shop" FROM "ShopSettings")`))
  );
}

/** The visitors whose checkouts became these orders. */
async function clientsOfOrders(tx: Sql, shop: string, orderIds: string[]): Promise<string[]> {
  if (orderIds.length === 0) return [];
  const rows = await tx.rows<{ clientId: string }>(Prisma.sql`
    SELECT DISTINCT "clientId" FROM "PixelSighting"
    WHERE "shop" = ${shop} AND "orderId" IN (${Prisma.join(orderIds)})`);
  return rows.map((row) => row.clientId);
}

/** What the pixel reported of the orders' visitors (customers/data_request). */
export async function sightingsOfOrders(tx: Sql, shop: string, orderIds: string[]) {
  const clientIds = await clientsOfOrders(tx, shop, orderIds);
  if (clientIds.length === 0) return [];
  return await rowsOf<Pick<PixelSighting, "kind" | "clientId" | "clickId" | "tag" | "orderId" | "seenAt">>(
    tx,
    "PixelSighting",
    Prisma.sql`
      SELECT "kind", "clientId", "clickId", "tag", "orderId", "seenAt" FROM "PixelSighting"
      WHERE "shop" = ${shop} AND "clientId" IN (${Prisma.join(clientIds)})
      ORDER BY "seenAt" ASC`,
  );
}

/**
 * Removes every report of the orders' visitors, and the click records of the clicks they
 * landed with (customers/redact), as a cart's touches are removed with their click records.
 */
export async function redactPixelSightings(tx: Sql, shop: string, orderIds: string[]): Promise<void> {
  const clientIds = await clientsOfOrders(tx, shop, orderIds);
  if (clientIds.length === 0) return;
  const ofClients = Prisma.sql`"shop" = ${shop} AND "clientId" IN (${Prisma.join(clientIds)})`;
  const clicks = await tx.rows<{ clickId: string }>(
    Prisma.sql`SELECT DISTINCT "clickId" FROM "PixelSighting" WHERE ${ofClients} AND "clickId" IS NOT NULL`,
  );
  await tx.execute(Prisma.sql`DELETE FROM "PixelSighting" WHERE ${ofClients}`);
  const clickIds = clicks.map((c) => c.clickId);
  if (clickIds.length > 0)
    await tx.execute(
      Prisma.sql`DELETE FROM "ClickRecord" WHERE "shop" = ${shop} AND "clickId" IN (${Prisma.join(clickIds)})`,
    );
}
