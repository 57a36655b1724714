import { randomUUID } from "node:crypto";
import type { Prisma } from "@prisma/client";
import prisma, { isUniqueViolation, type Db } from "../db.server";
import { logger } from "../logger.server";
import { enqueue } from "../queue/queue.server";
import { wakeWorker } from "../queue/wake.server";
import type { VerifiedDelivery } from "../webhooks/receive.server";
import { readOrderFacts, type OrderFacts } from "./order-facts";

// Records orders/create deliveries durably and answers at once; the worker does the rest.
// A delivery is recorded once per (shop, topic, event id) and an order is verified once per
// (shop, order id). Deliveries that arrive together are written together: one transaction for
// the whole group (a group commit), so a burst costs a few statements, not a few per order.
// Within a process groups are written one at a time; across instances the unique keys decide,
// and a group that loses such a race is read and written again. Each lost race means a row that
// the next read sees, so a group needs at most one try per row it writes, plus one.

export type IntakeResult =
  | { status: "queued"; verificationId: string }
  | { status: "duplicate-delivery" }
  | { status: "duplicate-order" }
  | { status: "invalid"; reason: string };

/** Largest group written in one transaction. */
const MAX_GROUP = 200;

interface Pending {
  delivery: VerifiedDelivery;
  read: { ok: true; facts: OrderFacts } | { ok: false; reason: string };
  resolve(result: IntakeResult): void;
  reject(error: unknown): void;
}

let waiting: Pending[] = [];
let writing: Promise<void> | null = null;

export function recordOrderDelivery(delivery: VerifiedDelivery): Promise<IntakeResult> {
  const read =
    delivery.notJson !== undefined
      ? { ok: false as const, reason: `body is not JSON (${delivery.notJson.slice(0, 200)})` }
      : readOrderFacts(delivery.payload);
  return new Promise((resolve, reject) => {
    waiting.push({ delivery, read, resolve, reject });
    writing ??= new Promise<void>((done) => setImmediate(done)).then(drain);
  });
}

async function drain(): Promise<void> {
  try {
    while (waiting.length > 0) {
      const group = waiting.slice(0, MAX_GROUP);
      waiting = waiting.slice(MAX_GROUP);
      await writeWithRetry(group);
    }
  } finally {
    writing = null;
  }
}

async function writeWithRetry(group: Pending[]): Promise<void> {
  const tries = 2 * group.length + 1;
  for (let attempt = 1; ; attempt++) {
    try {
      const results = await prisma.$transaction((tx) => writeGroup(tx, group, new Date()));
      group.forEach((pending, index) => pending.resolve(results[index]!));
      if (results.some((result) => result.status === "queued")) wakeWorker();
      return;
    } catch (error) {
      // Another instance wrote one of these rows between our read and our write: read again.
      if (isUniqueViolation(error) && attempt < tries) continue;
      logger.error("could not record webhook deliveries", { count: group.length, error });
      for (const pending of group) pending.reject(error);
      return;
    }
  }
}

async function writeGroup(tx: Db, group: Pending[], now: Date): Promise<IntakeResult[]> {
  const deliveryKey = ({ delivery: d }: Pending) => `${d.shop} ${d.topic} ${d.eventId}`;
  const orderKey = (shop: string, orderId: string) => `${shop} ${orderId}`;

  const seenDeliveries = new Set(
    (
      await tx.webhookDelivery.findMany({
        where: { OR: group.map(({ delivery: d }) => ({ shop: d.shop, topic: d.topic, eventId: d.eventId })) },
        select: { shop: true, topic: true, eventId: true },
      })
    ).map((d) => `${d.shop} ${d.topic} ${d.eventId}`),
  );
  const orders = group.flatMap((p) => (p.read.ok ? [{ shop: p.delivery.shop, orderId: p.read.facts.id }] : []));
  const seenOrders = new Set(
    orders.length === 0
      ? []
      : (await tx.verification.findMany({ where: { OR: orders }, select: { shop: true, orderId: true } })).map((v) =>
          orderKey(v.shop, v.orderId),
        ),
  );

  const results: IntakeResult[] = [];
  const deliveries: Prisma.WebhookDeliveryCreateManyInput[] = [];
  const verifications: (Prisma.VerificationCreateManyInput & { id: string })[] = [];
  for (const pending of group) {
    const { delivery, read } = pending;
    const key = deliveryKey(pending);
    if (seenDeliveries.has(key)) {
      results.push({ status: "duplicate-delivery" });
      continue;
    }
    seenDeliveries.add(key);
    const base = {
      id: randomUUID(),
      shop: delivery.shop,
      topic: delivery.topic,
      eventId: delivery.eventId,
      webhookId: delivery.webhookId,
      apiVersion: delivery.apiVersion,
      receivedAt: now,
    };
    if (!read.ok) {
      deliveries.push({ ...base, status: "invalid", reason: read.reason, payload: delivery.bodySlice });
      results.push({ status: "invalid", reason: read.reason });
      continue;
    }
    const facts = read.facts;
    if (seenOrders.has(orderKey(delivery.shop, facts.id))) {
      // A different event for an order we already have (Shopify re-sent it under a new id).
      deliveries.push({ ...base, orderId: facts.id, status: "duplicate-order", reason: "order already recorded" });
      results.push({ status: "duplicate-order" });
      continue;
    }
    seenOrders.add(orderKey(delivery.shop, facts.id));
    const verificationId = randomUUID();
    deliveries.push({ ...base, orderId: facts.id, status: "recorded" });
    verifications.push({
      id: verificationId,
      shop: delivery.shop,
      orderId: facts.id,
      orderGid: facts.gid,
      orderName: facts.name,
      orderCreatedAt: new Date(facts.createdAt),
      currency: facts.currency,
      orderFacts: JSON.stringify(facts),
      createdAt: now,
      updatedAt: now,
    });
    results.push({ status: "queued", verificationId });
  }

  if (deliveries.length > 0) await tx.webhookDelivery.createMany({ data: deliveries });
  if (verifications.length > 0) {
    await tx.verification.createMany({ data: verifications });
    await enqueue(
      tx,
      verifications.map((v) => ({ shop: v.shop, kind: "verify-order", subject: v.id, runAt: now })),
      now,
    );
  }
  return results;
}
