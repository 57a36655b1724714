import { type Prisma } from "@prisma/client";
import prisma, { isUniqueViolation } from "../db.server";
import { readOrderFacts } from "./order-facts";
import { wakeWorker } from "./wake.server";
import type { VerifiedDelivery } from "../webhooks.server";

export const ORDERS_CREATE = "orders/create";
const MAX_STORED_BODY = 64 * 1024;

export type IntakeResult =
  | { status: "queued"; verificationId: string }
  | { status: "duplicate-delivery" }
  | { status: "duplicate-order" }
  | { status: "skipped"; reason: string }
  | { status: "invalid"; reason: string };

/**
 * Records one orders/create delivery durably and answers at once; the worker does the rest.
 * A delivery is recorded once per (shop, topic, event id) and an order is verified once per
 * (shop, order id): both are unique constraints, so concurrent duplicates cannot both win.
 */
export async function recordOrderDelivery(delivery: VerifiedDelivery): Promise<IntakeResult> {
  const base = {
    shop: delivery.shop,
    topic: ORDERS_CREATE,
    eventId: delivery.eventId,
    webhookId: delivery.webhookId,
    apiVersion: delivery.apiVersion,
  };
  const facts = delivery.unreadable ? undefined : readOrderFacts(delivery.payload);

  if (!facts || !facts.ok) {
    const reason = facts ? facts.reason : `body is not JSON (${delivery.unreadable?.slice(0, 200)})`;
    const body = delivery.unreadable ?? JSON.stringify(delivery.payload ?? null);
    return recordAlone(
      { ...base, status: "invalid", reason, payload: body.slice(0, MAX_STORED_BODY) },
      { status: "invalid", reason },
    );
  }

  const order = facts.facts;
  const skipReason = await reasonToSkip(delivery.shop);
  try {
    // One batched transaction (not an interactive one): both rows or neither, in one round trip.
    const [, verification] = await prisma.$transaction([
      prisma.webhookDelivery.create({
        data: { ...base, orderId: order.id, status: skipReason ? "skipped" : "recorded", reason: skipReason },
        select: { id: true },
      }),
      prisma.verification.create({
        data: {
          shop: delivery.shop,
          orderId: order.id,
          orderGid: order.gid,
          orderName: order.name,
          orderCreatedAt: new Date(order.createdAt),
          currency: order.currency,
          payload: JSON.stringify(order),
          ...(skipReason
            ? { state: "done", outcome: "skipped", reason: skipReason, completedAt: new Date() }
            : { state: "queued" }),
        },
        select: { id: true },
      }),
    ]);
    if (skipReason) return { status: "skipped", reason: skipReason };
    wakeWorker();
    return { status: "queued", verificationId: verification.id };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    if (await deliveryExists(base)) return { status: "duplicate-delivery" };
    // A different event for an order we already have (Shopify re-sent it under a new id).
    return recordAlone(
      { ...base, orderId: order.id, status: "duplicate-order", reason: "order already recorded" },
      { status: "duplicate-order" },
    );
  }
}

async function reasonToSkip(shop: string): Promise<string | null> {
  const settings = await prisma.shopSettings.findUnique({
    where: { shop },
    select: { autoVerify: true, uninstalledAt: true },
  });
  if (!settings) return "the shop has not configured the app";
  if (settings.uninstalledAt) return "the app was uninstalled";
  if (!settings.autoVerify) return "automatic verification is switched off";
  return null;
}

async function recordAlone<T extends IntakeResult>(
  data: Prisma.WebhookDeliveryCreateInput,
  result: T,
): Promise<T | { status: "duplicate-delivery" }> {
  try {
    await prisma.webhookDelivery.create({ data });
    return result;
  } catch (error) {
    if (isUniqueViolation(error)) return { status: "duplicate-delivery" };
    throw error;
  }
}

async function deliveryExists({
  shop,
  topic,
  eventId,
}: {
  shop: string;
  topic: string;
  eventId: string;
}): Promise<boolean> {
  const found = await prisma.webhookDelivery.findUnique({
    where: { shop_topic_eventId: { shop, topic, eventId } },
    select: { id: true },
  });
  return found !== null;
}
