import { randomUUID } from "node:crypto";
import { Prisma } from "@prisma/client";
import type { TouchRequest } from "../attribution/cart-attributes";
import { isUniqueViolation, sqlTime } from "../database/db.server";
import { insertRows, sql, type Sql } from "../database/sql.server";
import { enqueue } from "../queue/queue.server";
import { wakeWorker } from "../queue/wake.server";
import { ClickRecord, LandingTouch, ShopSettings } from "../database/tables";

// Records one touch from the storefront: append-only, plus one click record per (shop, click id)
// whose lookup-click runs once, in the background (job "lookup-click"), never on the request
// path and never per page view, at the shop's pace (lookup-pace.server.ts). Two caps kept in
// the database hold across instances: new click ids looked up per cart token per hour (a script
// inventing ids cannot make the app look them all up; a touch over it is kept, unlooked-up, so
// made-up ids cannot bury the real click after them: decision 047), and new click records per
// shop per hour, far above its lookups so that a flood of made-up ids fills the lookup line,
// where the newest click goes first, before it denies any landing (decision 033).

/** New click ids of one cart looked up in an hour. */
export const NEW_CLICKS_PER_CART_PER_HOUR = 10;
/** New click records a shop may take in an hour, per lookup an hour it allows. */
export const NEW_CLICKS_PER_LOOKUP = 10;
const HOUR_MS = 60 * 60 * 1000;

export type TouchResult =
  | { status: "recorded"; newClick: boolean }
  | { status: "ignored"; reason: string }
  | { status: "limited"; reason: string; retryAfterMs: number };

/** `source`: the call's network source as a keyed hash (network-source-hash.server.ts), null when unknown. */
export function recordTouch(shop: string, touch: TouchRequest, source: string | null, now: Date): Promise<TouchResult> {
  return recordForShop(shop, (tx, lookupsPerHour) => write(tx, shop, touch, source, lookupsPerHour, now));
}

/**
 * Runs a storefront witness's write (a touch, a pixel report) in a transaction for a shop that
 * has set the app up, again when two copies race on a unique key (the next attempt finds the
 * first's row), and wakes the worker for a new click's lookup.
 */
export async function recordForShop<R extends { status: string; newClick?: boolean }>(
  shop: string,
  write: (tx: Sql, lookupsPerHour: number) => Promise<R>,
): Promise<R | { status: "ignored"; reason: string }> {
  const [settings] = await sql.rows<{ uninstalledAt: unknown; landingLookupsPerHour: unknown }>(
    Prisma.sql`SELECT ${ShopSettings.uninstalledAt}, ${ShopSettings.landingLookupsPerHour} FROM ${ShopSettings} WHERE ${ShopSettings.shop} = ${shop}`,
  );
  // Nothing is kept for a shop that has not set the app up: it would attribute nothing.
  if (!settings || settings.uninstalledAt != null)
    return { status: "ignored", reason: "the shop has not configured the app" };
  const lookupsPerHour = Number(settings.landingLookupsPerHour);
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await sql.transaction((tx) => write(tx, lookupsPerHour));
      if (result.status === "recorded" && result.newClick) wakeWorker();
      return result;
    } catch (error) {
      if (isUniqueViolation(error) && attempt < 3) continue;
      throw error;
    }
  }
}

async function write(
  tx: Sql,
  shop: string,
  touch: TouchRequest,
  source: string | null,
  lookupsPerHour: number,
  now: Date,
) {
  // Over the cart's cap the touch is still kept, as a claim on the cart: refusing it would let
  // made-up ids posted first bury the real click that comes after them (decision 047). Only the
  // lookup is withheld; the order verifies such a click itself while it lives. An arrival without
  // a cart has no cart cap: the address limit and the shop's cap on new clicks bound it.
  const lookUp = touch.cartToken === null || (await withinCartCap(tx, shop, touch.cartToken, touch.clickId, now));
  const click = lookUp ? await clickRecordFor(tx, shop, touch.clickId, lookupsPerHour, now) : { newClick: false };
  if ("refused" in click) return limited(click.refused);
  await insertRows(tx, "LandingTouch", [
    {
      shop,
      cartToken: touch.cartToken,
      clickId: touch.clickId,
      tag: touch.tag,
      seenAt: now,
      source,
    },
  ]);
  return { status: "recorded" as const, newClick: click.newClick };
}

/** Whether a click the cart names may be looked up: one it named before, or one of its first new ones this hour. */
async function withinCartCap(tx: Sql, shop: string, cartToken: string, clickId: string, now: Date): Promise<boolean> {
  const [knownToCart] = await tx.rows(Prisma.sql`
    SELECT 1 AS "known" FROM ${LandingTouch}
    WHERE ${LandingTouch.shop} = ${shop} AND ${LandingTouch.cartToken} = ${cartToken} AND ${LandingTouch.clickId} = ${clickId} LIMIT 1`);
  if (knownToCart) return true;
  const recent = await tx.rows(Prisma.sql`
    SELECT DISTINCT ${LandingTouch.clickId} FROM ${LandingTouch}
    WHERE ${LandingTouch.shop} = ${shop} AND ${LandingTouch.cartToken} = ${cartToken} AND ${LandingTouch.seenAt} >= ${sqlTime(new Date(now.getTime() - HOUR_MS))}
    LIMIT ${NEW_CLICKS_PER_CART_PER_HOUR}`);
  return recent.length < NEW_CLICKS_PER_CART_PER_HOUR;
}

/**
 * The shop's record of a click a storefront witness reported (a touch, the pixel's landing),
 * created with its lookup queued when there is none yet, within the shop's bound on new click
 * records an hour (decision 033).
 */
export async function clickRecordFor(
  tx: Sql,
  shop: string,
  clickId: string,
  lookupsPerHour: number,
  now: Date,
): Promise<{ newClick: boolean } | { refused: string }> {
  const [record] = await tx.rows(
    Prisma.sql`SELECT ${ClickRecord.id} FROM ${ClickRecord} WHERE ${ClickRecord.shop} = ${shop} AND ${ClickRecord.clickId} = ${clickId}`,
  );
  if (record) return { newClick: false };
  const most = NEW_CLICKS_PER_LOOKUP * lookupsPerHour;
  const [counted] = await tx.rows<{ clicks: number | bigint | string }>(Prisma.sql`
    SELECT COUNT(*) AS "clicks" FROM (
      SELECT 1 FROM ${ClickRecord}
      WHERE ${ClickRecord.shop} = ${shop} AND ${ClickRecord.firstSeenAt} >= ${sqlTime(new Date(now.getTime() - HOUR_MS))} LIMIT ${most}
    ) AS "recent"`);
  if (Number(counted?.clicks ?? 0) >= most) return { refused: `at most ${most} new clicks an hour for this shop` };
  const id = randomUUID();
  await insertRows(tx, "ClickRecord", [{ id, shop, clickId, state: "pending", firstSeenAt: now }]);
  await enqueue(tx, [{ shop, kind: "lookup-click", subject: id, runAt: now }], now);
  return { newClick: true };
}

function limited(reason: string): TouchResult {
  // Both caps count the last hour: within it, the oldest counted touch makes room again.
  return { status: "limited", reason, retryAfterMs: HOUR_MS };
}
