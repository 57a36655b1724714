import { z } from "zod";
import prisma, { isUniqueViolation, transaction, type Db } from "../database/db.server";
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

export async function handleShopRedact(shop: string): Promise<void> {
  await prisma.$transaction([
    prisma.commissionEntry.deleteMany({ where: { shop } }),
    prisma.commission.deleteMany({ where: { shop } }),
    prisma.orderEvent.deleteMany({ where: { shop } }),
    prisma.payoutLine.deleteMany({ where: { payout: { shop } } }),
    prisma.payout.deleteMany({ where: { shop } }),
    prisma.commissionDay.deleteMany({ where: { shop } }),
    prisma.verification.deleteMany({ where: { shop } }),
    prisma.job.deleteMany({ where: { shop } }),
    prisma.landingTouch.deleteMany({ where: { shop } }),
    prisma.clickRecord.deleteMany({ where: { shop } }),
    prisma.webhookDelivery.deleteMany({ where: { shop } }),
    prisma.dataRequest.deleteMany({ where: { shop } }),
    prisma.shopSettings.deleteMany({ where: { shop } }),
    prisma.session.deleteMany({ where: { shop } }),
  ]);
}

export async function handleCustomersRedact(shop: string, payload: unknown): Promise<void> {
  const request = CustomerRequest.safeParse(payload);
  const orderIds = request.success ? (request.data.orders_to_redact ?? []) : [];
  const customerId = request.success ? request.data.customer?.id : undefined;
  // One transaction: a redaction is never left half done for Shopify's retry to find.
  await transaction(
    async (tx) => {
      for (const ids of inChunks(orderIds)) {
        await redactCarts(tx, shop, await cartTokensOf(tx, shop, ids));
        // The commission stays (the merchant owes the creator); what ties it to a shopper goes.
        await tx.verification.updateMany({
          where: { shop, orderId: { in: ids } },
          data: { clickId: null, orderFacts: "{}", tamperEvidence: null, reason: "customer data redacted" },
        });
        await tx.webhookDelivery.updateMany({ where: { shop, orderId: { in: ids } }, data: { payload: null } });
      }
      if (customerId) await tx.dataRequest.deleteMany({ where: { shop, customerId } });
    },
    { timeout: TRANSACTION_TIMEOUT_MS },
  );
}

/** Gathers what the app holds for the request; a delivery of an event already gathered (a retry) is a no-op. */
export async function handleCustomersDataRequest(shop: string, payload: unknown, eventId: string): Promise<void> {
  const request = CustomerRequest.safeParse(payload);
  const orderIds = request.success ? (request.data.orders_requested ?? []) : [];
  if (await prisma.dataRequest.findUnique({ where: { shop_eventId: { shop, eventId } }, select: { id: true } })) return;
  try {
    await gatherDataRequest(shop, eventId, request.success ? (request.data.customer?.id ?? null) : null, orderIds);
  } catch (error) {
    // The same event delivered twice at once: the other delivery recorded it.
    if (!isUniqueViolation(error)) throw error;
  }
}

async function gatherDataRequest(shop: string, eventId: string, customerId: string | null, orderIds: string[]) {
  await transaction(
    async (tx) => {
      const verifications = [];
      const landingTouches = [];
      for (const ids of inChunks(orderIds)) {
        landingTouches.push(...(await touchesOfCarts(tx, shop, await cartTokensOf(tx, shop, ids))));
        verifications.push(
          ...(await tx.verification.findMany({
            where: { shop, orderId: { in: ids } },
            orderBy: { orderId: "asc" },
            select: {
              orderId: true,
              orderName: true,
              clickId: true,
              arrivedTag: true,
              expectedTag: true,
              creatorId: true,
              outcome: true,
              capturedAt: true,
              createdAt: true,
              commission: { select: { creatorId: true, amount: true, currency: true, status: true } },
            },
          })),
        );
      }
      await tx.dataRequest.create({
        data: {
          shop,
          eventId,
          customerId,
          ordersAsked: JSON.stringify(orderIds),
          data: JSON.stringify({ orders: verifications, landingTouches }),
        },
      });
    },
    { timeout: TRANSACTION_TIMEOUT_MS },
  );
}

// Prisma binds one value per listed id and the database caps the values of one statement
// (SQLite near 1,000), so a customer with thousands of orders is handled a slice at a time.
const IDS_PER_STATEMENT = 500;
// Thousands of ids take many statements; Prisma's 5 s default would cut a slow disk short.
const TRANSACTION_TIMEOUT_MS = 60_000;

/** The carts the orders were placed from, as their stored facts name them. */
async function cartTokensOf(tx: Db, shop: string, orderIds: string[]): Promise<string[]> {
  const rows = await tx.verification.findMany({
    where: { shop, orderId: { in: orderIds } },
    select: { orderFacts: true },
  });
  return [...new Set(rows.flatMap((row) => parseStoredFacts(row.orderFacts)?.cartToken ?? []))];
}

function inChunks(ids: string[]): string[][] {
  const unique = [...new Set(ids)];
  const chunks: string[][] = [];
  for (let start = 0; start < unique.length; start += IDS_PER_STATEMENT)
    chunks.push(unique.slice(start, start + IDS_PER_STATEMENT));
  return chunks;
}
