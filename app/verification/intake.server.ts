import { randomUUID } from "node:crypto";
import { Prisma } from "@prisma/client";
import {
  eventSourceId,
  readCancellation,
  readEdit,
  readRefund,
  type OrderEventFacts,
  type OrderEventRead,
} from "../commissions/order-events";
import { isUniqueViolation } from "../database/db.server";
import { insertRows, lockKeys, rowsMatching, sql, type Sql } from "../database/sql.server";
import { logger } from "../platform/logger.server";
import { orderSource } from "../platform/network-source-hash.server";
import { intakeArrived } from "../queue/intake-first.server";
import { enqueueNew, reopen } from "../queue/queue.server";
import { wakeWorker } from "../queue/wake.server";
import type { VerifiedDelivery } from "../webhooks/receive.server";
import { discountCodeRows } from "./discount-code-rows";
import { readOrderFacts, type OrderFacts } from "./order-facts";
import { OrderEvent } from "../database/tables";

// Records order deliveries durably and answers at once; the worker does the rest.
// - orders/create: an order is verified once per (shop, order id).
// - refunds/create, orders/cancelled, orders/edited: an order event, once per refund id, per
//   order edit id and per cancelled order, holding only the amounts the ledger needs; the order's verify-order job applies it
//   (reopened here when the order is already known; an event for an order not seen yet waits
//   for its orders/create, whose job then runs again once it has an outcome).
// A delivery is recorded once per (shop, topic, event id). Deliveries that arrive together are
// written together: one transaction for the whole group (a group commit), so a burst costs a
// few statements, not a few per order. Within a process groups are written one at a time;
// across instances the unique keys decide, and a group that loses such a race is read and
// written again. Each lost race means a row that the next read sees, so a group needs at most
// one try per row it writes, plus one.

export type IntakeResult =
  | { status: "queued"; verificationId: string }
  | { status: "recorded"; eventId: string }
  | { status: "duplicate-delivery" }
  | { status: "duplicate-order" }
  | { status: "duplicate-event" }
  | { status: "invalid"; reason: string };

/** Largest group written in one transaction. */
const MAX_GROUP = 200;

type Read =
  /** networkSource: where Shopify says the shopper checked out from, as a keyed hash. */
  | { ok: true; order: OrderFacts; networkSource: string | null; event?: undefined }
  | { ok: true; event: OrderEventFacts; order?: undefined }
  | { ok: false; reason: string };

interface Pending {
  delivery: VerifiedDelivery;
  read: Read;
  resolve(result: IntakeResult): void;
  reject(error: unknown): void;
}

let waiting: Pending[] = [];
let writing: Promise<void> | null = null;

export function recordOrderDelivery(delivery: VerifiedDelivery): Promise<IntakeResult> {
  return enter(delivery, () => {
    const read = readOrderFacts(delivery.payload);
    return read.ok
      ? {
          ok: true,
          order: read.facts,
          networkSource: orderSource(delivery.shop, read.shopper.browserIp, read.shopper.userAgent),
        }
      : read;
  });
}

/** refunds/create, orders/cancelled and orders/edited. */
export function recordOrderEventDelivery(delivery: VerifiedDelivery): Promise<IntakeResult> {
  const readEvent =
    delivery.topic === "refunds/create" ? readRefund : delivery.topic === "orders/edited" ? readEdit : readCancellation;
  return enter(delivery, () => {
    const read: OrderEventRead = readEvent(delivery.payload, delivery.rawBody);
    return read.ok ? { ok: true, event: read.facts } : read;
  });
}

function enter(delivery: VerifiedDelivery, readPayload: () => Read): Promise<IntakeResult> {
  intakeArrived();
  const read: Read =
    delivery.notJson !== undefined
      ? { ok: false, reason: `body is not JSON (${delivery.notJson.slice(0, 200)})` }
      : readPayload();
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
      const results = await sql.transaction((tx) => writeGroup(tx, group, new Date()));
      group.forEach((pending, index) => pending.resolve(results[index]!));
      if (results.some((result) => result.status === "queued" || result.status === "recorded")) wakeWorker();
      return;
    } catch (error) {
      // Another instance wrote one of these rows between our read and our write: read again.
      if (isUniqueViolation(error) && attempt < tries) continue;
      logger.error("webhook.group_not_recorded", "could not record webhook deliveries", { count: group.length, error });
      for (const pending of group) pending.reject(error);
      return;
    }
  }
}

async function writeGroup(tx: Sql, group: Pending[], now: Date): Promise<IntakeResult[]> {
  const deliveryKey = ({ delivery: d }: Pending) => `${d.shop} ${d.topic} ${d.eventId}`;
  const orderKey = (shop: string, orderId: string) => `${shop} ${orderId}`;
  const eventKey = (shop: string, kind: string, sourceId: string) => `${shop} ${kind} ${sourceId}`;
  const orderIdOf = (read: Read) => (read.ok ? (read.order?.id ?? read.event!.orderId) : null);

  const orders = group.flatMap((p) => {
    const orderId = orderIdOf(p.read);
    return orderId ? [{ shop: p.delivery.shop, orderId }] : [];
  });
  // An order and its refund can reach two instances at once. Each must see the other's rows once
  // both are written, or neither reopens the order's job for the refund and it is never applied:
  // so groups touching the same order are written one after the other (the chaos run found two
  // refunds of unattributed orders left unapplied).
  await lockKeys(
    tx,
    orders.map((o) => orderKey(o.shop, o.orderId)),
  );
  // Reads and writes here are raw SQL: through the ORM each call cost a millisecond or more,
  // and intake answers Shopify only once its group has committed (docs/lab/throughput-notes.md,
  // "Intake before Remix (decision 015)").
  const seenDeliveries = new Set(
    (
      await rowsMatching(
        tx,
        "WebhookDelivery",
        ["shop", "topic", "eventId"],
        group.map(({ delivery: d }) => ({ shop: d.shop, topic: d.topic, eventId: d.eventId })),
      )
    ).map((d) => `${d.shop} ${d.topic} ${d.eventId}`),
  );
  const knownOrders = new Map(
    (await rowsMatching(tx, "Verification", ["id", "shop", "orderId"], orders)).map((v) => [
      orderKey(v.shop, v.orderId),
      v.id,
    ]),
  );
  const events = group.flatMap((p) =>
    p.read.ok && p.read.event ? [{ shop: p.delivery.shop, event: p.read.event }] : [],
  );
  const seenEvents = new Set(
    (
      await rowsMatching(
        tx,
        "OrderEvent",
        ["shop", "kind", "sourceId"],
        events.map((e) => ({ shop: e.shop, kind: e.event.kind, sourceId: eventSourceId(e.event) })),
      )
    ).map((e) => eventKey(e.shop, e.kind, e.sourceId)),
  );

  const results: IntakeResult[] = [];
  const deliveries: Prisma.WebhookDeliveryCreateManyInput[] = [];
  const verifications: (Prisma.VerificationCreateManyInput & { id: string })[] = [];
  const newEvents: (Prisma.OrderEventCreateManyInput & { id: string })[] = [];
  const discountCodes: Prisma.OrderDiscountCodeCreateManyInput[] = [];
  for (const pending of group) {
    const { delivery, read } = pending;
    const key = deliveryKey(pending);
    if (seenDeliveries.has(key)) {
      results.push({ status: "duplicate-delivery" });
      continue;
    }
    seenDeliveries.add(key);
    const base = {
      shop: delivery.shop,
      topic: delivery.topic,
      eventId: delivery.eventId,
      webhookId: delivery.webhookId,
      apiVersion: delivery.apiVersion,
      source: delivery.source ?? "webhook",
      receivedAt: now,
    };
    if (!read.ok) {
      deliveries.push({ ...base, status: "invalid", reason: read.reason, payload: delivery.bodySlice });
      results.push({ status: "invalid", reason: read.reason });
      continue;
    }
    if (read.event) {
      const event = read.event;
      const sourceId = eventSourceId(event);
      if (seenEvents.has(eventKey(delivery.shop, event.kind, sourceId))) {
        // The same refund or cancellation again, under a new event id.
        deliveries.push({
          ...base,
          orderId: event.orderId,
          status: "duplicate-event",
          reason: "event already recorded",
        });
        results.push({ status: "duplicate-event" });
        continue;
      }
      seenEvents.add(eventKey(delivery.shop, event.kind, sourceId));
      const id = randomUUID();
      deliveries.push({ ...base, orderId: event.orderId, status: "recorded" });
      newEvents.push({
        id,
        shop: delivery.shop,
        orderId: event.orderId,
        kind: event.kind,
        sourceId,
        facts: JSON.stringify(event),
        receivedAt: now,
      });
      results.push({ status: "recorded", eventId: id });
      continue;
    }
    const facts = read.order;
    if (knownOrders.has(orderKey(delivery.shop, facts.id))) {
      // A different event for an order we already have (Shopify re-sent it under a new id).
      deliveries.push({ ...base, orderId: facts.id, status: "duplicate-order", reason: "order already recorded" });
      results.push({ status: "duplicate-order" });
      continue;
    }
    const verificationId = randomUUID();
    knownOrders.set(orderKey(delivery.shop, facts.id), verificationId);
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
      networkSource: read.networkSource,
      createdAt: now,
      updatedAt: now,
    });
    discountCodes.push(...discountCodeRows(delivery.shop, verificationId, facts, now));
    results.push({ status: "queued", verificationId });
  }

  await insertRows(tx, "WebhookDelivery", deliveries);
  await insertRows(tx, "OrderEvent", newEvents);
  if (verifications.length > 0) {
    await insertRows(tx, "Verification", verifications);
    // The whole group's codes in one statement, after the verifications they point at.
    await insertRows(tx, "OrderDiscountCode", discountCodes);
    // Their verifications were created just above: no job can exist for them yet.
    await enqueueNew(
      tx,
      verifications.map((v) => ({ shop: v.shop, kind: "verify-order", subject: v.id, runAt: now })),
      now,
    );
  }
  await reopenForEvents(tx, newEvents, verifications, knownOrders, now);
  return results;
}

/**
 * The jobs that must run (again) for events: the order's job for each new event of a known
 * order, and the new job of an order whose events came before it, which then runs once more
 * after its outcome so that they are applied (or marked as finding no commission).
 */
async function reopenForEvents(
  tx: Sql,
  newEvents: { shop: string; orderId: string }[],
  verifications: { id: string; shop: string; orderId: string }[],
  knownOrders: Map<string, string>,
  now: Date,
): Promise<void> {
  const jobs = new Set<string>();
  for (const event of newEvents) {
    const verificationId = knownOrders.get(`${event.shop} ${event.orderId}`);
    if (verificationId) jobs.add(verificationId);
  }
  if (verifications.length > 0) {
    const waiting = await rowsMatching(
      tx,
      "OrderEvent",
      ["shop", "orderId"],
      verifications.map((v) => ({ shop: v.shop, orderId: v.orderId })),
      Prisma.sql`${OrderEvent.appliedAt} IS NULL`,
    );
    for (const event of waiting) jobs.add(knownOrders.get(`${event.shop} ${event.orderId}`)!);
  }
  for (const verificationId of jobs) await reopen(tx, "verify-order", verificationId, now);
}
