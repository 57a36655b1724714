import { randomUUID } from "node:crypto";
import { Prisma, type Verification } from "@prisma/client";
import { z } from "zod";
import { isUniqueViolation } from "../database/db.server";
import { insertRows, rowsOf, sql, type Sql, updateWhere } from "../database/sql.server";
import { redactCarts, touchesOfCarts } from "../landing/journey.server";
import { parseStoredFacts } from "../verification/order-facts";

// Shopify's mandatory compliance webhooks. The app holds no customer profile: what it keeps
// per order is the click id, the tags and the order's amounts, and per cart the landing
// touches (click id, tag, time) the storefront reported. Those are what we gather, redact or
// erase.

const OrderIds = z.array(z.union([z.number(), z.string()]).transform(String)).catch([]);

const CustomerRequest = z.object({
  customer: z
    .object({ id: z.union([z.number(), z.string()]).transform(String).optional() })
    .partial()
    .optional(),
  orders_requested: OrderIds.optional(),
  orders_to_redact: OrderIds.optional(),
});

/**
 * The shop's tables, children before the rows they point at, and CommissionDay after the
 * Commission rows whose triggers keep it.
 */
const SHOP_TABLES = [
  "CommissionEntry",
  "Commission",
  "OrderEvent",
  "PayoutLine",
  "Payout",
  "CommissionDay",
  "Verification",
  "Job",
  "LandingTouch",
  "ClickRecord",
  "WebhookDelivery",
  "DataRequest",
  "ShopSettings",
  "Session",
] as const;

export async function handleShopRedact(shop: string): Promise<void> {
  await sql.transaction(async (tx) => {
    for (const table of SHOP_TABLES) {
      // A payout's lines name its payout, not the shop.
      const ofShop =
        table === "PayoutLine"
          ? Prisma.sql`"payoutId" IN (SELECT "id" FROM "Payout" WHERE "shop" = ${shop})`
          : Prisma.sql`"shop" = ${shop}`;
      await tx.execute(Prisma.sql`DELETE FROM ${Prisma.raw(`"${table}"`)} WHERE ${ofShop}`);
    }
  });
}

export async function handleCustomersRedact(shop: string, payload: unknown): Promise<void> {
  const request = CustomerRequest.safeParse(payload);
  const orderIds = request.success ? (request.data.orders_to_redact ?? []) : [];
  const customerId = request.success ? request.data.customer?.id : undefined;
  const now = new Date();
  // One transaction: a redaction is never left half done for Shopify's retry to find.
  await sql.transaction(async (tx) => {
    for (const ids of inChunks(orderIds)) {
      await redactCarts(tx, shop, await cartTokensOf(tx, shop, ids));
      const ofOrders = Prisma.sql`"shop" = ${shop} AND "orderId" IN (${Prisma.join(ids)})`;
      // The commission stays (the merchant owes the creator); what ties it to a shopper goes.
      await updateWhere(tx, "Verification", ofOrders, {
        clickId: null,
        orderFacts: "{}",
        tamperEvidence: null,
        reason: "customer data redacted",
        updatedAt: now,
      });
      await updateWhere(tx, "WebhookDelivery", ofOrders, { payload: null });
    }
    if (customerId)
      await tx.execute(Prisma.sql`DELETE FROM "DataRequest" WHERE "shop" = ${shop} AND "customerId" = ${customerId}`);
  });
}

/** Gathers what the app holds for the request; a delivery of an event already gathered (a retry) is a no-op. */
export async function handleCustomersDataRequest(shop: string, payload: unknown, eventId: string): Promise<void> {
  const request = CustomerRequest.safeParse(payload);
  const orderIds = request.success ? (request.data.orders_requested ?? []) : [];
  const [gathered] = await sql.rows(
    Prisma.sql`SELECT "id" FROM "DataRequest" WHERE "shop" = ${shop} AND "eventId" = ${eventId}`,
  );
  if (gathered) return;
  try {
    await gatherDataRequest(shop, eventId, request.success ? (request.data.customer?.id ?? null) : null, orderIds);
  } catch (error) {
    // The same event delivered twice at once: the other delivery recorded it.
    if (!isUniqueViolation(error)) throw error;
  }
}

type GatheredOrder = Pick<
  Verification,
  | "orderId"
  | "orderName"
  | "clickId"
  | "arrivedTag"
  | "expectedTag"
  | "creatorId"
  | "outcome"
  | "capturedAt"
  | "createdAt"
> & { commission: { creatorId: string; amount: string; currency: string; status: string } | null };

async function gatherDataRequest(shop: string, eventId: string, customerId: string | null, orderIds: string[]) {
  await sql.transaction(async (tx) => {
    const verifications: GatheredOrder[] = [];
    const landingTouches = [];
    for (const ids of inChunks(orderIds)) {
      landingTouches.push(...(await touchesOfCarts(tx, shop, await cartTokensOf(tx, shop, ids))));
      verifications.push(...(await ordersOf(tx, shop, ids)));
    }
    const now = new Date();
    await insertRows(tx, "DataRequest", [
      {
        id: randomUUID(),
        shop,
        eventId,
        customerId,
        ordersAsked: JSON.stringify(orderIds),
        data: JSON.stringify({ orders: verifications, landingTouches }),
        receivedAt: now,
      },
    ]);
  });
}

/** The orders as the data request lists them, in order id order, each with its commission or null. */
async function ordersOf(tx: Sql, shop: string, orderIds: string[]): Promise<GatheredOrder[]> {
  const rows = await rowsOf<
    Omit<GatheredOrder, "commission"> & {
      commissionId: string | null;
      commissionCreatorId: string;
      commissionAmount: string;
      commissionCurrency: string;
      commissionStatus: string;
    }
  >(
    tx,
    "Verification",
    Prisma.sql`
      SELECT v."orderId", v."orderName", v."clickId", v."arrivedTag", v."expectedTag", v."creatorId", v."outcome",
             v."capturedAt", v."createdAt", c."id" AS "commissionId", c."creatorId" AS "commissionCreatorId",
             c."amount" AS "commissionAmount", c."currency" AS "commissionCurrency", c."status" AS "commissionStatus"
      FROM "Verification" v LEFT JOIN "Commission" c ON c."verificationId" = v."id"
      WHERE v."shop" = ${shop} AND v."orderId" IN (${Prisma.join(orderIds)})
      ORDER BY v."orderId" ASC`,
  );
  // The keys in the order the ORM's select gave them: the stored JSON keeps its shape.
  return rows.map((row) => ({
    orderId: row.orderId,
    orderName: row.orderName,
    clickId: row.clickId,
    arrivedTag: row.arrivedTag,
    expectedTag: row.expectedTag,
    creatorId: row.creatorId,
    outcome: row.outcome,
    capturedAt: row.capturedAt,
    createdAt: row.createdAt,
    commission:
      row.commissionId === null
        ? null
        : {
            creatorId: row.commissionCreatorId,
            amount: row.commissionAmount,
            currency: row.commissionCurrency,
            status: row.commissionStatus,
          },
  }));
}

// Each listed id is a value bound to the statement, and the databases cap those (SQLite's build
// at 32,766, PostgreSQL at 65,535), so a customer with thousands of orders is handled a slice at
// a time.
const IDS_PER_STATEMENT = 500;

/** The carts the orders were placed from, as their stored facts name them. */
async function cartTokensOf(tx: Sql, shop: string, orderIds: string[]): Promise<string[]> {
  const rows = await tx.rows<{ orderFacts: string }>(
    Prisma.sql`SELECT "orderFacts" FROM "Verification" WHERE "shop" = ${shop} AND "orderId" IN (${Prisma.join(orderIds)})`,
  );
  return [...new Set(rows.flatMap((row) => parseStoredFacts(row.orderFacts)?.cartToken ?? []))];
}

function inChunks(ids: string[]): string[][] {
  const unique = [...new Set(ids)];
  const chunks: string[][] = [];
  for (let start = 0; start < unique.length; start += IDS_PER_STATEMENT)
    chunks.push(unique.slice(start, start + IDS_PER_STATEMENT));
  return chunks;
}
