import prisma from "../db.server";

// Uninstall ends access, not the merchant's records: Shopify sends shop/redact 48 hours
// later, and a merchant who reinstalls before then finds their ledger intact.
export async function handleAppUninstalled(shop: string): Promise<void> {
  await prisma.session.deleteMany({ where: { shop } });
  await prisma.shopSettings.updateMany({ where: { shop, uninstalledAt: null }, data: { uninstalledAt: new Date() } });
}

export async function handleReinstalled(shop: string): Promise<void> {
  await prisma.shopSettings.updateMany({
    where: { shop, uninstalledAt: { not: null } },
    data: { uninstalledAt: null },
  });
}

export async function handleScopesUpdate(shop: string, payload: unknown): Promise<void> {
  const current = (payload as { current?: unknown } | null)?.current;
  if (!Array.isArray(current) || !current.every((scope) => typeof scope === "string")) return;
  await prisma.session.updateMany({ where: { shop }, data: { scope: current.join(",") } });
}
