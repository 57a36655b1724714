import { Prisma, type ClickRecord, type LandingTouch } from "@prisma/client";
import { JOURNEY_ACTIVE_MS, type LandingTouchFact } from "../attribution/witnesses";
import { sqlTime } from "../database/db.server";
import { modelRows, readDate, rowsOf, sql, type Sql } from "../database/sql.server";
import {
  ClickRecord as ClickRecordTable,
  LandingTouch as LandingTouchTable,
  PixelSighting,
  ShopSettings,
  Verification,
} from "../database/tables";

// Reading the landing record back: an order's journey (the touches of its cart), the click
// records a verdict can fall back on, and their retention and redaction.

const DAY_MS = 24 * 60 * 60 * 1000;
/** Touches a little after the order still count: the storefront's clock is the server's, not Shopify's. */
const ORDER_CLOCK_SKEW_MS = 5 * 60 * 1000;
/** The most touches of one cart an order is judged on (the latest ones). */
const MAX_TOUCHES = 200;

/** The cart's touches inside the attribution window before the order, oldest first. */
export async function cartTouches(
  db: Sql,
  shop: string,
  cartToken: string,
  orderAt: Date,
  windowDays: number,
): Promise<LandingTouchFact[]> {
  // Raw: the worker reads it for every order with a cart (docs/lab/throughput-notes.md,
  // "Per-order statements on the driver (decision 016)").
  const rows = await db.rows<{ clickId: string; tag: string | null; seenAt: unknown }>(Prisma.sql`
    SELECT ${LandingTouchTable.columns("clickId", "tag", "seenAt")} FROM ${LandingTouchTable}
    WHERE ${LandingTouchTable.shop} = ${shop} AND ${LandingTouchTable.cartToken} = ${cartToken}
      AND ${LandingTouchTable.seenAt} >= ${sqlTime(new Date(orderAt.getTime() - windowDays * DAY_MS))}
      AND ${LandingTouchTable.seenAt} <= ${sqlTime(new Date(orderAt.getTime() + ORDER_CLOCK_SKEW_MS))}
    ORDER BY ${LandingTouchTable.seenAt} DESC LIMIT ${MAX_TOUCHES}`);
  return rows.map((row) => ({ clickId: row.clickId, tag: row.tag, seenAt: readDate(row.seenAt) })).reverse();
}

/**
 * The first click a network source brought on carts and visitors other than the order's, in the
 * hour before the order's own cart or visitor was first seen (`until`): the journey a browser was
 * on before its cookies were reset. null: none.
 */
export async function linkedJourney(
  db: Sql,
  shop: string,
  source: string,
  own: { cartToken: string | null; visitors: string[]; until: Date },
): Promise<(LandingTouchFact & { witness: "landing" | "pixel" }) | null> {
  const from = sqlTime(new Date(own.until.getTime() - JOURNEY_ACTIVE_MS));
  const until = sqlTime(own.until);
  // One statement: the worker asks it for every order some witness names a click for.
  const [first] = await db.rows<{ clickId: string; tag: string | null; seenAt: unknown; witness: string }>(Prisma.sql`
    SELECT * FROM (
      SELECT * FROM (
        SELECT ${LandingTouchTable.columns("clickId", "tag", "seenAt")}, 'landing' AS "witness" FROM ${LandingTouchTable}
        WHERE ${LandingTouchTable.shop} = ${shop} AND ${LandingTouchTable.source} = ${source}
          AND ${LandingTouchTable.seenAt} >= ${from} AND ${LandingTouchTable.seenAt} < ${until}
          ${own.cartToken ? Prisma.sql`AND (${LandingTouchTable.cartToken} IS NULL OR ${LandingTouchTable.cartToken} <> ${own.cartToken})` : Prisma.empty}
        ORDER BY ${LandingTouchTable.seenAt} ASC LIMIT 1
      ) AS "touch"
      UNION ALL
      SELECT * FROM (
        SELECT ${PixelSighting.columns("clickId", "tag", "seenAt")}, 'pixel' AS "witness" FROM ${PixelSighting}
        WHERE ${PixelSighting.shop} = ${shop} AND ${PixelSighting.source} = ${source} AND ${PixelSighting.kind} = 'landing'
          AND ${PixelSighting.clickId} IS NOT NULL AND ${PixelSighting.seenAt} >= ${from} AND ${PixelSighting.seenAt} < ${until}
          ${own.visitors.length > 0 ? Prisma.sql`AND ${PixelSighting.clientId} NOT IN (${Prisma.join(own.visitors)})` : Prisma.empty}
        ORDER BY ${PixelSighting.seenAt} ASC LIMIT 1
      ) AS "landing"
    ) AS "linked" ORDER BY ${LandingTouchTable.seenAt} ASC LIMIT 1`);
  if (!first) return null;
  return {
    clickId: first.clickId,
    tag: first.tag,
    seenAt: readDate(first.seenAt),
    witness: first.witness === "pixel" ? "pixel" : "landing",
  };
}

/** What lookup-click learned of a click at landing, when it learned anything. */
export async function knownClick(shop: string, clickId: string): Promise<ClickRecord | null> {
  const rows = await sql.rows(
    Prisma.sql`SELECT * FROM ${ClickRecordTable} WHERE ${ClickRecordTable.shop} = ${shop} AND ${ClickRecordTable.clickId} = ${clickId} AND ${ClickRecordTable.state} = 'known' LIMIT 1`,
  );
  return modelRows<ClickRecord>("ClickRecord", rows)[0] ?? null;
}

/** A cart's touches and their click records, as the order page shows the journey. */
export async function journeyOf(shop: string, cartToken: string | null) {
  if (!cartToken) return { touches: [], clicks: [] };
  const touches = await rowsOf<Pick<LandingTouch, "clickId" | "tag" | "seenAt">>(
    sql,
    "LandingTouch",
    Prisma.sql`
      SELECT ${LandingTouchTable.columns("clickId", "tag", "seenAt")} FROM ${LandingTouchTable} WHERE ${LandingTouchTable.shop} = ${shop} AND ${LandingTouchTable.cartToken} = ${cartToken}
      ORDER BY ${LandingTouchTable.seenAt} ASC LIMIT ${MAX_TOUCHES}`,
  );
  const clickIds = [...new Set(touches.map((t) => t.clickId))];
  const clicks =
    clickIds.length === 0
      ? []
      : await rowsOf<Pick<ClickRecord, "clickId" | "state" | "expectedTag" | "creatorId" | "clickedAt" | "lookedUpAt">>(
          sql,
          "ClickRecord",
          Prisma.sql`
            SELECT ${ClickRecordTable.columns("clickId", "state", "expectedTag", "creatorId", "clickedAt", "lookedUpAt")} FROM ${ClickRecordTable}
            WHERE ${ClickRecordTable.shop} = ${shop} AND ${ClickRecordTable.clickId} IN (${Prisma.join(clickIds)})`,
        );
  return { touches, clicks };
}

/**
 * Deletes what no order can use any more: touches and click records older than each shop's
 * attribution window. Idempotent; safe to run on every instance.
 */
export async function purgeLandingRecord(now: Date): Promise<number> {
  const shops = await sql.rows<{ shop: string; attributionWindowDays: unknown }>(
    Prisma.sql`SELECT ${ShopSettings.shop}, ${ShopSettings.attributionWindowDays} FROM ${ShopSettings}`,
  );
  let deleted = 0;
  for (const { shop, attributionWindowDays } of shops) {
    const before = sqlTime(new Date(now.getTime() - Number(attributionWindowDays) * DAY_MS));
    deleted += await sql.transaction(
      async (tx) =>
        (await tx.execute(
          Prisma.sql`DELETE FROM ${LandingTouchTable} WHERE ${LandingTouchTable.shop} = ${shop} AND ${LandingTouchTable.seenAt} < ${before}`,
        )) +
        (await tx.execute(
          Prisma.sql`DELETE FROM ${ClickRecordTable} WHERE ${ClickRecordTable.shop} = ${shop} AND ${ClickRecordTable.firstSeenAt} < ${before}`,
        )) +
        // An order's network source links nothing once the window is over: kept no longer.
        (await tx.execute(
          Prisma.sql`UPDATE ${Verification} SET ${Verification.networkSource} = NULL WHERE ${Verification.shop} = ${shop} AND ${Verification.createdAt} < ${before} AND ${Verification.networkSource} IS NOT NULL`,
        )),
    );
  }
  // Shops that no longer have settings (redacted, never configured) keep nothing. Asked of the
  // table, not of the list read above: a shop configured meanwhile keeps its first touches, and
  // no statement binds one value per shop.
  const unconfigured = Prisma.sql`${ShopSettings.shop} NOT IN (SELECT ${ShopSettings.shop} FROM ${ShopSettings})`;
  return (
    deleted +
    (await sql.transaction(
      async (tx) =>
        (await tx.execute(Prisma.sql`DELETE FROM ${LandingTouchTable} WHERE ${unconfigured}`)) +
        (await tx.execute(Prisma.sql`DELETE FROM ${ClickRecordTable} WHERE ${unconfigured}`)),
    ))
  );
}

/**
 * Removes every touch and pixel report made from the network sources the orders were placed
 * from (customers/redact): the keyed hash of the shopper's address and browser is theirs.
 */
export async function redactSources(tx: Sql, shop: string, ofOrders: Prisma.Sql): Promise<void> {
  const sources = await tx.rows<{ networkSource: string }>(Prisma.sql`
    SELECT DISTINCT ${Verification.networkSource} FROM ${Verification} WHERE ${ofOrders} AND ${Verification.networkSource} IS NOT NULL`);
  const hashes = sources.map((s) => s.networkSource);
  if (hashes.length === 0) return;
  await tx.execute(
    Prisma.sql`DELETE FROM ${LandingTouchTable} WHERE ${LandingTouchTable.shop} = ${shop} AND ${LandingTouchTable.source} IN (${Prisma.join(hashes)})`,
  );
  await tx.execute(
    Prisma.sql`DELETE FROM ${PixelSighting} WHERE ${PixelSighting.shop} = ${shop} AND ${PixelSighting.source} IN (${Prisma.join(hashes)})`,
  );
}

/** The touches of the given carts (customers/data_request). */
export async function touchesOfCarts(tx: Sql, shop: string, cartTokens: string[]) {
  if (cartTokens.length === 0) return [];
  return await rowsOf<Pick<LandingTouch, "cartToken" | "clickId" | "tag" | "seenAt">>(
    tx,
    "LandingTouch",
    Prisma.sql`
      SELECT ${LandingTouchTable.columns("cartToken", "clickId", "tag", "seenAt")} FROM ${LandingTouchTable}
      WHERE ${LandingTouchTable.shop} = ${shop} AND ${LandingTouchTable.cartToken} IN (${Prisma.join(cartTokens)})
      ORDER BY ${LandingTouchTable.seenAt} ASC`,
  );
}

/** Removes the carts' touches and the click records of their clicks (customers/redact). */
export async function redactCarts(tx: Sql, shop: string, cartTokens: string[]): Promise<void> {
  if (cartTokens.length === 0) return;
  const ofCarts = Prisma.sql`${LandingTouchTable.shop} = ${shop} AND ${LandingTouchTable.cartToken} IN (${Prisma.join(cartTokens)})`;
  const touched = await tx.rows<{ clickId: string }>(
    Prisma.sql`SELECT DISTINCT ${LandingTouchTable.clickId} FROM ${LandingTouchTable} WHERE ${ofCarts}`,
  );
  await tx.execute(Prisma.sql`DELETE FROM ${LandingTouchTable} WHERE ${ofCarts}`);
  const clickIds = touched.map((t) => t.clickId);
  if (clickIds.length > 0)
    await tx.execute(
      Prisma.sql`DELETE FROM ${ClickRecordTable} WHERE ${ClickRecordTable.shop} = ${shop} AND ${ClickRecordTable.clickId} IN (${Prisma.join(clickIds)})`,
    );
}
