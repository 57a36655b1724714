import { Prisma, type ClickRecord } from "@prisma/client";
import type { LandingTouchFact } from "../attribution/server-record";
import prisma, { sqlTime, type Db } from "../database/db.server";
import { modelRows, readDate, sql } from "../database/sql.server";

// Reading the landing record back: an order's journey (the touches of its cart), the click
// records a verdict can fall back on, and their retention and redaction.

const DAY_MS = 24 * 60 * 60 * 1000;
/** Touches a little after the order still count: the storefront's clock is the server's, not Shopify's. */
const ORDER_CLOCK_SKEW_MS = 5 * 60 * 1000;
/** The most touches of one cart an order is judged on (the latest ones). */
const MAX_TOUCHES = 200;

/** The cart's touches inside the attribution window before the order, oldest first. */
export async function cartTouches(
  shop: string,
  cartToken: string,
  orderAt: Date,
  windowDays: number,
): Promise<LandingTouchFact[]> {
  // Raw: the worker reads it for every order with a cart (docs/lab/throughput-notes.md,
  // "Per-order statements on the driver (decision 016)").
  const rows = await sql.rows<{ clickId: string; tag: string | null; seenAt: unknown }>(Prisma.sql`
    SELECT "clickId", "tag", "seenAt" FROM "LandingTouch"
    WHERE "shop" = ${shop} AND "cartToken" = ${cartToken}
      AND "seenAt" >= ${sqlTime(new Date(orderAt.getTime() - windowDays * DAY_MS))}
      AND "seenAt" <= ${sqlTime(new Date(orderAt.getTime() + ORDER_CLOCK_SKEW_MS))}
    ORDER BY "seenAt" DESC LIMIT ${MAX_TOUCHES}`);
  return rows.map((row) => ({ clickId: row.clickId, tag: row.tag, seenAt: readDate(row.seenAt) })).reverse();
}

/** What lookup-click learned of a click at landing, when it learned anything. */
export async function knownClick(shop: string, clickId: string): Promise<ClickRecord | null> {
  const rows = await sql.rows(
    Prisma.sql`SELECT * FROM "ClickRecord" WHERE "shop" = ${shop} AND "clickId" = ${clickId} AND "state" = 'known' LIMIT 1`,
  );
  return modelRows<ClickRecord>("ClickRecord", rows)[0] ?? null;
}

/** A cart's touches and their click records, as the order page shows the journey. */
export async function journeyOf(shop: string, cartToken: string | null) {
  if (!cartToken) return { touches: [], clicks: [] };
  const touches = await prisma.landingTouch.findMany({
    where: { shop, cartToken },
    orderBy: { seenAt: "asc" },
    take: MAX_TOUCHES,
    select: { clickId: true, tag: true, seenAt: true },
  });
  const clicks = await prisma.clickRecord.findMany({
    where: { shop, clickId: { in: [...new Set(touches.map((t) => t.clickId))] } },
    select: { clickId: true, state: true, expectedTag: true, creatorId: true, clickedAt: true, lookedUpAt: true },
  });
  return { touches, clicks };
}

/**
 * Deletes what no order can use any more: touches and click records older than each shop's
 * attribution window. Idempotent; safe to run on every instance.
 */
export async function purgeLandingRecord(now: Date): Promise<number> {
  const shops = await prisma.shopSettings.findMany({ select: { shop: true, attributionWindowDays: true } });
  let deleted = 0;
  for (const { shop, attributionWindowDays } of shops) {
    const before = new Date(now.getTime() - attributionWindowDays * DAY_MS);
    const [touches, clicks] = await prisma.$transaction([
      prisma.landingTouch.deleteMany({ where: { shop, seenAt: { lt: before } } }),
      prisma.clickRecord.deleteMany({ where: { shop, firstSeenAt: { lt: before } } }),
    ]);
    deleted += touches.count + clicks.count;
  }
  // Shops that no longer have settings (redacted, never configured) keep nothing.
  const configured = shops.map((s) => s.shop);
  const [orphanTouches, orphanClicks] = await prisma.$transaction([
    prisma.landingTouch.deleteMany({ where: { shop: { notIn: configured } } }),
    prisma.clickRecord.deleteMany({ where: { shop: { notIn: configured } } }),
  ]);
  return deleted + orphanTouches.count + orphanClicks.count;
}

/** The touches of the given carts (customers/data_request). */
export async function touchesOfCarts(tx: Db, shop: string, cartTokens: string[]) {
  if (cartTokens.length === 0) return [];
  return tx.landingTouch.findMany({
    where: { shop, cartToken: { in: cartTokens } },
    orderBy: { seenAt: "asc" },
    select: { cartToken: true, clickId: true, tag: true, seenAt: true },
  });
}

/** Removes the carts' touches and the click records of their clicks (customers/redact). */
export async function redactCarts(tx: Db, shop: string, cartTokens: string[]): Promise<void> {
  if (cartTokens.length === 0) return;
  const touched = await tx.landingTouch.findMany({
    where: { shop, cartToken: { in: cartTokens } },
    distinct: ["clickId"],
    select: { clickId: true },
  });
  await tx.landingTouch.deleteMany({ where: { shop, cartToken: { in: cartTokens } } });
  const clickIds = touched.map((t) => t.clickId);
  if (clickIds.length > 0) await tx.clickRecord.deleteMany({ where: { shop, clickId: { in: clickIds } } });
}
