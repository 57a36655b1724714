import { readFileSync } from "node:fs";
import { Session } from "@shopify/shopify-api";
import { databaseClient } from "../../app/database/db.server";
import { sessionStorage } from "../../app/shopify.server";
import { buildOrderCreatePayload, type OrderDescription } from "../../sandbox/shopify";

const prisma = databaseClient();

let nextOrderId = 6_100_000_000_000;

/**
 * Shopify's documented orders/create example for API 2026-07, as its exact text (see
 * tests/fixtures/webhooks/README.md): deliver it unchanged. Its order is
 * gid://shopify/Order/820982911946154508, an id beyond 2^53.
 */
export const DOCUMENTED_ORDERS_CREATE_2026_07 = readFileSync(
  new URL("../fixtures/webhooks/orders-create-2026-07.json", import.meta.url),
  "utf8",
);

/** An orders/create payload with a realistic, exactly representable Shopify order id. */
export function orderPayload(description: OrderDescription = {}) {
  nextOrderId += 1;
  return buildOrderCreatePayload({ id: nextOrderId, number: nextOrderId % 100_000, ...description });
}

export async function storeOfflineSession(
  shop: string,
  accessToken = "shpat_test",
  scope = "read_orders,write_orders",
) {
  const session = new Session({ id: `offline_${shop}`, shop, state: "", isOnline: false, accessToken, scope });
  await sessionStorage.storeSession(session);
  return session;
}

/**
 * Row counts of every table the app owns, read from Prisma's own model list so a new table is
 * covered without editing tests. A table without a shop column is scoped through its parent.
 */
export async function rowCounts(shop: string): Promise<Record<string, number>> {
  const { Prisma } = await import("@prisma/client");
  const models = Prisma.dmmf.datamodel.models;
  const owned = new Set(
    models.filter((model) => model.fields.some((field) => field.name === "shop")).map((model) => model.name),
  );
  const counts: Record<string, number> = {};
  for (const model of models) {
    const parent = model.fields.find((field) => field.kind === "object" && !field.isList && owned.has(field.type));
    const where = owned.has(model.name) ? { shop } : parent ? { [parent.name]: { shop } } : null;
    if (!where)
      throw new Error(
        `${model.name} has no shop column and no parent that has one: add one so shop/redact can find its rows`,
      );
    const delegate = (prisma as unknown as Record<string, { count(args?: unknown): Promise<number> }>)[
      model.name.charAt(0).toLowerCase() + model.name.slice(1)
    ];
    if (!delegate) throw new Error(`no Prisma delegate for ${model.name}`);
    counts[model.name] = await delegate.count({ where });
  }
  return counts;
}
