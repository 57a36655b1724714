import { Prisma } from "@prisma/client";
import { readDate, sql, updateWhere } from "../database/sql.server";
import { logger } from "../platform/logger.server";

// Uninstall ends access, not the merchant's records: Shopify sends shop/redact 48 hours
// later, and a merchant who reinstalls before then finds their ledger intact.
//
// Shopify delivers app/uninstalled again until it is answered (8 times over 4 hours). One that
// arrives after the merchant has reinstalled belongs to the install before: acting on it would
// delete the new token and switch a live shop off (every order skipped). So an uninstall
// triggered before the app was last authorized changes nothing.

export async function handleAppUninstalled(shop: string, triggeredAt: Date | null): Promise<void> {
  const [settings] = await sql.rows<{ authorizedAt: unknown }>(
    Prisma.sql`SELECT "authorizedAt" FROM "ShopSettings" WHERE "shop" = ${shop}`,
  );
  const authorizedAt = settings?.authorizedAt == null ? null : readDate(settings.authorizedAt);
  if (triggeredAt && authorizedAt && authorizedAt > triggeredAt) {
    logger.info("app/uninstalled from before the last install: nothing to do", { shop });
    return;
  }
  await sql.execute(Prisma.sql`DELETE FROM "Session" WHERE "shop" = ${shop}`);
  const now = new Date();
  await updateWhere(sql, "ShopSettings", Prisma.sql`"shop" = ${shop} AND "uninstalledAt" IS NULL`, {
    uninstalledAt: now,
    updatedAt: now,
  });
}

/** After every offline token the app is given (install, reinstall): the shop is installed as of now. */
export async function handleAuthorized(shop: string, now: Date = new Date()): Promise<void> {
  await updateWhere(sql, "ShopSettings", Prisma.sql`"shop" = ${shop}`, {
    uninstalledAt: null,
    authorizedAt: now,
    updatedAt: now,
  });
}

export async function handleScopesUpdate(shop: string, payload: unknown): Promise<void> {
  const current = (payload as { current?: unknown } | null)?.current;
  if (!Array.isArray(current) || !current.every((scope) => typeof scope === "string")) return;
  await updateWhere(sql, "Session", Prisma.sql`"shop" = ${shop}`, { scope: current.join(",") });
}
