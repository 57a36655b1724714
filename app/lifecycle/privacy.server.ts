import { z } from "zod";
import prisma from "../db.server";

// Shopify's mandatory compliance webhooks. The app holds no customer profile: what it keeps
// per order is the click id, the tags and the order's amounts. Those are what we gather,
// redact or erase.

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
    prisma.commission.deleteMany({ where: { shop } }),
    prisma.commissionDay.deleteMany({ where: { shop } }),
    prisma.verification.deleteMany({ where: { shop } }),
    prisma.job.deleteMany({ where: { shop } }),
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
  if (orderIds.length > 0) {
    // The commission stays (the merchant owes the creator); what ties it to a shopper goes.
    await prisma.$transaction([
      prisma.verification.updateMany({
        where: { shop, orderId: { in: orderIds } },
        data: { clickId: null, orderFacts: "{}", reason: "customer data redacted" },
      }),
      prisma.webhookDelivery.updateMany({ where: { shop, orderId: { in: orderIds } }, data: { payload: null } }),
    ]);
  }
  if (customerId) await prisma.dataRequest.deleteMany({ where: { shop, customerId } });
}

export async function handleCustomersDataRequest(shop: string, payload: unknown): Promise<void> {
  const request = CustomerRequest.safeParse(payload);
  const orderIds = request.success ? (request.data.orders_requested ?? []) : [];
  const verifications = await prisma.verification.findMany({
    where: { shop, orderId: { in: orderIds } },
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
  });
  await prisma.dataRequest.create({
    data: {
      shop,
      customerId: request.success ? (request.data.customer?.id ?? null) : null,
      ordersAsked: JSON.stringify(orderIds),
      data: JSON.stringify({ orders: verifications }),
    },
  });
}
