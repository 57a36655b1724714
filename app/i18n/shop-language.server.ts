import { Prisma } from "@prisma/client";
import { sql, upsertRow } from "../database/sql.server";
import { ShopLanguage } from "../database/tables";
import { logger } from "../platform/logger.server";
import { localeOfUrl, runInLocale } from "./translators.server";

// The language of what the app writes for a shop outside any request (decision 055): the payout
// notes PayPal and Shopify show a creator, and the reasons the worker records for the merchant.
// It is the language the shop's admin was last opened in, as Shopify admin's `locale` said it:
// kept with the shop when an admin request brings a tag other than the one kept, and read by the
// worker for each job that writes words.

/** The tag last kept per shop by this process: an admin request costs a write only when it changes. */
const kept = new Map<string, string>();

/** Keeps the tag an admin request for the shop carries, when it carries one. Never throws: a page must not fail on it. */
export async function rememberAdminLocale(shop: string, url: string, now = new Date()): Promise<void> {
  const tag = localeOfUrl(url);
  if (!tag || kept.get(shop) === tag) return;
  try {
    await upsertRow(sql, "ShopLanguage", ["shop"], { shop, adminLocale: tag, seenAt: now }, ["adminLocale", "seenAt"]);
    // A process serves a few thousand shops at most; the map is only a shortcut, and may start over.
    if (kept.size > 10_000) kept.clear();
    kept.set(shop, tag);
  } catch (error) {
    logger.warn("i18n.admin_locale_unsaved", "could not keep the admin's language for the shop", { shop, error });
  }
}

/** The tag the shop's admin was last opened in, or null before any admin request brought one. */
export async function shopAdminLocale(shop: string): Promise<string | null> {
  const [row] = await sql.rows<{ adminLocale: string }>(
    Prisma.sql`SELECT ${ShopLanguage.adminLocale} FROM ${ShopLanguage} WHERE ${ShopLanguage.shop} = ${shop}`,
  );
  return row?.adminLocale ?? null;
}

/** Runs work for a shop outside any request in the shop's admin language (English until one is known). */
export async function inShopLanguage<T>(shop: string, work: () => Promise<T>): Promise<T> {
  return runInLocale(await shopAdminLocale(shop), work);
}

/** For tests: forgets what this process kept, as a restarted process would. */
export function forgetKeptAdminLocales(): void {
  kept.clear();
}

/** Shopify's authenticate.admin that also keeps the language the admin request was made in. */
export function rememberingAdminLocale<
  Authenticate extends (request: Request) => Promise<{ session: { shop: string } }>,
>(authenticateAdmin: Authenticate): Authenticate {
  return (async (request: Request) => {
    const context = await authenticateAdmin(request);
    await rememberAdminLocale(context.session.shop, request.url);
    return context;
  }) as Authenticate;
}
