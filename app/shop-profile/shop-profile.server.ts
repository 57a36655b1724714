import type { ShopProfile } from "@prisma/client";
import { Prisma } from "@prisma/client";
import { rowsOf, sql, upsertRow } from "../database/sql.server";
import { logger } from "../platform/logger.server";
import { requestAdmin, type AdminGraphql } from "../shopify-admin/admin-client.server";
import { SHOP_PROFILE } from "../shopify-admin/documents";
import { isTimeZone, UTC, type ShopFormat } from "../units/shop-format";
import { ShopProfile as ShopProfileTable } from "../database/tables";

// The shop's time zone and currency as Shopify knows them. Read at every authorization (a
// merchant who moves the shop to another zone sees it after their next visit re-authorizes, at
// the latest at the next token exchange) and kept with the shop, so a page never waits on
// Shopify to show a time. Until the first read succeeds the admin shows UTC, and says so.

export interface ShopZone {
  /** An IANA zone Intl accepts; UTC until Shopify has answered. */
  timeZone: string;
  /** The shop's currency (ISO 4217), null until known. */
  currency: string | null;
  /** False while the zone is the UTC fallback rather than Shopify's word. */
  known: boolean;
}

export type ProfileRead = { stored: true; timeZone: string; currency: string } | { stored: false; message: string };

/** Asks Shopify for the shop's zone and currency and stores them. Never throws: the fallback stays. */
export async function readShopProfile(shop: string, graphql: AdminGraphql, now = new Date()): Promise<ProfileRead> {
  try {
    const answer = await requestAdmin(graphql, SHOP_PROFILE, {}, { maxAttempts: 2, maxWaitMs: 2_000 });
    if (!answer.ok) return failed(shop, answer.message);
    const { ianaTimezone, currencyCode } = answer.data.shop;
    // A zone this runtime cannot format would break every page; keep the last good one instead.
    if (!isTimeZone(ianaTimezone)) return failed(shop, `unknown time zone ${JSON.stringify(ianaTimezone)}`);
    await upsertRow(sql, "ShopProfile", ["shop"], { shop, ianaTimezone, currencyCode, readAt: now }, [
      "ianaTimezone",
      "currencyCode",
      "readAt",
    ]);
    return { stored: true, timeZone: ianaTimezone, currency: currencyCode };
  } catch (error) {
    return failed(shop, error instanceof Error ? error.message : String(error));
  }
}

function failed(shop: string, message: string): ProfileRead {
  logger.warn("shop.timezone_unread", "could not read the shop's time zone", { shop, reason: message });
  return { stored: false, message };
}

/** The zone and currency the admin formats with for this shop. */
export async function shopZone(shop: string): Promise<ShopZone> {
  const [row] = await rowsOf<ShopProfile>(
    sql,
    "ShopProfile",
    Prisma.sql`SELECT * FROM ${ShopProfileTable} WHERE ${ShopProfileTable.shop} = ${shop}`,
  );
  if (!row || !isTimeZone(row.ianaTimezone))
    return { timeZone: UTC, currency: row?.currencyCode ?? null, known: false };
  return { timeZone: row.ianaTimezone, currency: row.currencyCode, known: true };
}

/**
 * What a page formats with: the shop's zone and the merchant's locale. A shop installed before
 * the zone was kept has none until its next authorization; given Shopify's client, the page asks
 * once now instead of showing UTC until then.
 */
export async function shopFormat(
  shop: string,
  locale: string,
  graphql?: AdminGraphql,
): Promise<ShopFormat & { zoneKnown: boolean; currency: string | null }> {
  let zone = await shopZone(shop);
  if (!zone.known && graphql) {
    const read = await readShopProfile(shop, graphql);
    if (read.stored) zone = { timeZone: read.timeZone, currency: read.currency, known: true };
  }
  return { locale, timeZone: zone.timeZone, zoneKnown: zone.known, currency: zone.currency };
}
