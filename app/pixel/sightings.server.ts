import { Prisma, type PixelSighting } from "@prisma/client";
import type { LandingTouchFact, PixelWitness } from "../attribution/witnesses";
import { sqlTime } from "../database/db.server";
import { readDate, rowsOf, sql, type Sql } from "../database/sql.server";
import { ClickRecord, PixelSighting as PixelSightingTable, ShopSettings } from "../database/tables";

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
 * What the pixel saw of one order. `bound`: the checkout reports carrying the order's checkout
 * token (Shopify's webhook gives it; a report naming the order's id alone is no proof) and the
 * landings of those visitors inside the attribution window before it, oldest first; null when
 * none (not connected, blocked, no consent, not yet, or an order without a checkout token).
 * `unbound`: the clicks of reports that named the order's id without its token (evidence only).
 */
export async function pixelWitness(
  db: Sql,
  shop: string,
  order: { id: string; checkoutToken: string | null },
  orderAt: Date,
  windowDays: number,
): Promise<{ bound: PixelWitness | null; unbound: string[]; visitors: string[]; checkoutSource: string | null }> {
  const byToken =
    order.checkoutToken === null
      ? Prisma.empty
      : Prisma.sql` OR ${PixelSightingTable.checkoutToken} = ${order.checkoutToken}`;
  const checkouts = await db.rows<{
    clientId: string;
    clickId: string | null;
    tag: string | null;
    checkoutToken: string | null;
    source: string | null;
  }>(Prisma.sql`
    SELECT ${PixelSightingTable.columns("clientId", "clickId", "tag", "checkoutToken", "source")} FROM ${PixelSightingTable}
    WHERE ${PixelSightingTable.shop} = ${shop} AND ${PixelSightingTable.kind} = 'checkout' AND (${PixelSightingTable.orderId} = ${order.id}${byToken})
    ORDER BY ${PixelSightingTable.seenAt} ASC LIMIT ${MAX_CLIENTS * 2}`);
  const isBound = (c: (typeof checkouts)[number]) =>
    order.checkoutToken !== null && c.checkoutToken === order.checkoutToken;
  const bound = checkouts.filter(isBound).slice(0, MAX_CLIENTS);
  const unboundReports = checkouts.filter((c) => !isBound(c));
  const window = {
    from: new Date(orderAt.getTime() - windowDays * DAY_MS),
    to: new Date(orderAt.getTime() + ORDER_CLOCK_SKEW_MS),
  };
  const visitors = distinct(bound.map((c) => c.clientId));
  // Issued together: one round trip where `db` is one connection (sql.together).
  const [unboundLandings, landings] = await Promise.all([
    unboundReports.length === 0 ? [] : landingsOf(db, shop, distinct(unboundReports.map((c) => c.clientId)), window),
    visitors.length === 0 ? [] : landingsOf(db, shop, visitors, window),
  ]);
  const unbound = distinct([
    ...unboundReports.flatMap((c) => (c.clickId ? [c.clickId] : [])),
    ...unboundLandings.map((l) => l.clickId),
  ]);
  if (bound.length === 0) return { bound: null, unbound, visitors: [], checkoutSource: null };
  return {
    bound: { checkout: bound.map((c) => ({ clickId: c.clickId, tag: c.tag })), landings },
    unbound,
    visitors,
    checkoutSource: bound.find((c) => c.source !== null)?.source ?? null,
  };
}

/** The visitors' landings inside the window, oldest first; a tag that came alone belongs to the click before it. */
async function landingsOf(db: Sql, shop: string, clientIds: string[], window: { from: Date; to: Date }) {
  const landings = await db.rows<{ clickId: string | null; tag: string | null; seenAt: unknown }>(Prisma.sql`
    SELECT ${PixelSightingTable.columns("clickId", "tag", "seenAt")} FROM ${PixelSightingTable}
    WHERE ${PixelSightingTable.shop} = ${shop} AND ${PixelSightingTable.clientId} IN (${Prisma.join(clientIds)}) AND ${PixelSightingTable.kind} = 'landing'
      AND ${PixelSightingTable.seenAt} >= ${sqlTime(window.from)} AND ${PixelSightingTable.seenAt} <= ${sqlTime(window.to)}
    ORDER BY ${PixelSightingTable.seenAt} DESC LIMIT ${MAX_LANDINGS}`);
  const seen: LandingTouchFact[] = [];
  let current: string | null = null;
  for (const landing of landings.reverse()) {
    current = landing.clickId ?? current;
    if (current !== null) seen.push({ clickId: current, tag: landing.tag, seenAt: readDate(landing.seenAt) });
  }
  return seen;
}

function distinct(values: string[]): string[] {
  return [...new Set(values)];
}

/**
 * Which of these clicks the pixel reported a landing of, from any visitor: a hint that a checkout
 * report is on its way, never evidence (a report binds only through its checkout token).
 */
export async function pixelLandingsOf(db: Sql, shop: string, clickIds: readonly string[]): Promise<Set<string>> {
  if (clickIds.length === 0) return new Set();
  const rows = await db.rows<{ clickId: string }>(
    Prisma.sql`SELECT DISTINCT ${PixelSightingTable.clickId} FROM ${PixelSightingTable} WHERE ${PixelSightingTable.shop} = ${shop} AND ${PixelSightingTable.clickId} IN (${Prisma.join(clickIds)}) AND ${PixelSightingTable.kind} = 'landing'`,
  );
  return new Set(rows.map((r) => r.clickId));
}

/** Whether the pixel has reported anything for the shop since `since` (the setup guide). */
export async function pixelReportedSince(shop: string, since: Date): Promise<boolean> {
  const [row] = await sql.rows(
    Prisma.sql`SELECT 1 AS "seen" FROM ${PixelSightingTable} WHERE ${PixelSightingTable.shop} = ${shop} AND ${PixelSightingTable.seenAt} >= ${sqlTime(since)} LIMIT 1`,
  );
  return row !== undefined;
}

/** Deletes sightings older than each shop's attribution window, and all of shops without settings. */
export async function purgePixelSightings(now: Date): Promise<number> {
  const shops = await sql.rows<{ shop: string; attributionWindowDays: unknown }>(
    Prisma.sql`SELECT ${ShopSettings.shop}, ${ShopSettings.attributionWindowDays} FROM ${ShopSettings}`,
  );
  let deleted = 0;
  for (const { shop, attributionWindowDays } of shops) {
    const before = sqlTime(new Date(now.getTime() - Number(attributionWindowDays) * DAY_MS));
    deleted += await sql.execute(
      Prisma.sql`DELETE FROM ${PixelSightingTable} WHERE ${PixelSightingTable.shop} = ${shop} AND ${PixelSightingTable.seenAt} < ${before}`,
    );
  }
  return (
    deleted +
    (await sql.execute(
      Prisma.sql`DELETE FROM ${PixelSightingTable} WHERE ${PixelSightingTable.shop} NOT IN (SELECT ${ShopSettings.shop} FROM ${ShopSettings})`,
    ))
  );
}

/** The visitors whose checkouts became these orders. */
async function clientsOfOrders(tx: Sql, shop: string, orderIds: string[]): Promise<string[]> {
  if (orderIds.length === 0) return [];
  const rows = await tx.rows<{ clientId: string }>(Prisma.sql`
    SELECT DISTINCT ${PixelSightingTable.clientId} FROM ${PixelSightingTable}
    WHERE ${PixelSightingTable.shop} = ${shop} AND ${PixelSightingTable.orderId} IN (${Prisma.join(orderIds)})`);
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
      SELECT ${PixelSightingTable.columns("kind", "clientId", "clickId", "tag", "orderId", "seenAt")} FROM ${PixelSightingTable}
      WHERE ${PixelSightingTable.shop} = ${shop} AND ${PixelSightingTable.clientId} IN (${Prisma.join(clientIds)})
      ORDER BY ${PixelSightingTable.seenAt} ASC`,
  );
}

/**
 * Removes every report of the orders' visitors, and the click records of the clicks they
 * landed with (customers/redact), as a cart's touches are removed with their click records.
 */
export async function redactPixelSightings(tx: Sql, shop: string, orderIds: string[]): Promise<void> {
  const clientIds = await clientsOfOrders(tx, shop, orderIds);
  if (clientIds.length === 0) return;
  const ofClients = Prisma.sql`${PixelSightingTable.shop} = ${shop} AND ${PixelSightingTable.clientId} IN (${Prisma.join(clientIds)})`;
  const clicks = await tx.rows<{ clickId: string }>(
    Prisma.sql`SELECT DISTINCT ${PixelSightingTable.clickId} FROM ${PixelSightingTable} WHERE ${ofClients} AND ${PixelSightingTable.clickId} IS NOT NULL`,
  );
  await tx.execute(Prisma.sql`DELETE FROM ${PixelSightingTable} WHERE ${ofClients}`);
  const clickIds = clicks.map((c) => c.clickId);
  if (clickIds.length > 0)
    await tx.execute(
      Prisma.sql`DELETE FROM ${ClickRecord} WHERE ${ClickRecord.shop} = ${shop} AND ${ClickRecord.clickId} IN (${Prisma.join(clickIds)})`,
    );
}
