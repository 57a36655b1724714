import { beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { env } from "../../app/platform/env.server";
import { beginReconciliation, reconciliationStatus } from "../../app/reconciliation/reconciliation.server";
import { deliver } from "../support/deliver";
import {
  cancelOrder,
  editOrder,
  placeOrder,
  refundOrder,
  reportRequestCount,
  runOrderToEnd,
  tagsAddCalls,
  useHarness,
  type Harness,
} from "../support/pipeline-harness";

const prisma = databaseClient();

// The reconciliation sweep end to end: orders, refunds and cancellations that Shopify holds but
// never delivered, found through the library's Admin client in the Shopify stand-in's `orders`
// query, recorded as deliveries and verified by the real worker; then the late webhook of the
// same order, which must change nothing (one order, one verify-click, one tag, one record).

const suite = useHarness("sweep");
const { newShop, startWorker } = suite;
let h: Harness;
beforeAll(() => {
  h = suite.h;
});
const MINUTE = 60_000;

/** Moves the harness clock on by `ms`. */
function later(ms: number): Date {
  h.clock.now = new Date(h.clock.ms() + ms);
  return h.clock.now;
}

/** Past the sweep's lag, so what happened so far is listed. */
const pastTheLag = () => later(env().RECONCILE_LAG_MS + 2_000);

async function sweepJob(shop: string) {
  return prisma.job.findUniqueOrThrow({ where: { kind_subject: { kind: "reconcile-shop", subject: shop } } });
}

/**
 * Runs the shop's sweep through to its end (and what it queued): its turns come back when the
 * shop's API bucket is half full again, so the clock follows them until the sweep has gone
 * through (sweptAt) or failed (failedAt).
 */
async function sweepNow(shop: string, w = startWorker()) {
  const start = h.clock.date();
  for (let turn = 0; turn < 200; turn++) {
    const job = await sweepJob(shop);
    if (job.runAt > h.clock.date()) h.clock.now = new Date(job.runAt.getTime());
    await w.runOnce();
    const row = await prisma.shopReconciliation.findUniqueOrThrow({ where: { shop } });
    if ((row.sweptAt ?? new Date(0)) >= start || (row.failedAt ?? new Date(0)) >= start) return w;
  }
  throw new Error("the sweep did not end in 200 turns");
}

/** A shop swept since its install, and an order of 100.00 delivered and credited 10.00 after it. */
async function creditedOrder() {
  const shop = await newShop();
  h.clock.now = new Date();
  await beginReconciliation(shop, h.clock.date());
  later(MINUTE);
  const { payload } = await placeOrder(h, { shop, subtotal: "100.00" });
  const w = startWorker();
  expect((await runOrderToEnd(h, w, shop, payload.id)).commission).toMatchObject({ amount: "10.00" });
  return { shop, payload, w };
}

describe("reconciliation sweep", () => {
  it("finds an order no webhook brought, verifies and tags it; its late webhook changes nothing", async () => {
    const shop = await newShop();
    h.clock.now = new Date();
    await beginReconciliation(shop, h.clock.date());
    later(2 * MINUTE);
    const { payload } = await placeOrder(h, { shop, arrivedTag: "honey-77", deliveries: 0 });
    pastTheLag();

    const w = await sweepNow(shop);
    const delivery = await prisma.webhookDelivery.findFirstOrThrow({ where: { shop, orderId: String(payload.id) } });
    expect(delivery).toMatchObject({ source: "reconciled", topic: "orders/create", status: "recorded" });

    const v = await runOrderToEnd(h, w, shop, payload.id);
    expect(v).toMatchObject({ outcome: "hijacked", expectedTag: "alice-20", arrivedTag: "honey-77" });
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", amount: "12.00" });
    expect(tagsAddCalls(h, payload.admin_graphql_api_id)).toBe(1);
    const status = await reconciliationStatus(shop, h.clock.date());
    expect(status?.found).toEqual({ orders: 1, refunds: 0, cancellations: 0, edits: 0 });
    expect(status?.sweptAt).not.toBeNull();

    // Shopify's own delivery, hours late, and the next sweep (the tag write updated the order).
    const late = await deliver(h.app.url, "/webhooks/orders/create", {
      topic: "orders/create",
      shop,
      body: payload,
      eventId: `evt-late-${payload.id}`,
    });
    expect(late.status).toBe(200);
    pastTheLag();
    await sweepNow(shop, w);
    await runOrderToEnd(h, w, shop, payload.id);
    expect(await prisma.verification.count({ where: { shop, orderId: String(payload.id) } })).toBe(1);
    expect(await prisma.commission.count({ where: { shop, orderId: String(payload.id) } })).toBe(1);
    expect(reportRequestCount(h)).toBe(1);
    expect(tagsAddCalls(h, payload.admin_graphql_api_id)).toBe(1);
    expect(
      await prisma.webhookDelivery.findMany({
        where: { shop },
        select: { source: true, status: true },
        orderBy: { receivedAt: "asc" },
      }),
    ).toEqual([
      { source: "reconciled", status: "recorded" },
      { source: "webhook", status: "duplicate-order" },
    ]);
    expect((await reconciliationStatus(shop, h.clock.date()))?.found.orders).toBe(1);
  });

  it("applies a refund and a cancellation no webhook brought, once, beside the delivered order", async () => {
    const { shop, payload, w } = await creditedOrder();

    later(MINUTE);
    const { refund } = await refundOrder(h, shop, payload, { subtotal: "40.00", deliveries: 0 });
    pastTheLag();
    await sweepNow(shop, w);
    let v = await runOrderToEnd(h, w, shop, payload.id);
    expect(v.commission).toMatchObject({ amount: "6.00" });

    // The refund's own webhook, late: already recorded, so applied once.
    const late = await deliver(h.app.url, "/webhooks/refunds/create", {
      topic: "refunds/create",
      shop,
      body: refund,
      eventId: `evt-late-refund-${String(refund.id)}`,
    });
    expect(late.status).toBe(200);
    later(MINUTE);
    expect(await cancelOrder(h, shop, payload, 0)).toEqual([]);
    pastTheLag();
    await sweepNow(shop, w);
    v = await runOrderToEnd(h, w, shop, payload.id);
    expect(v.commission).toMatchObject({ amount: "0.00" });
    const events = await prisma.orderEvent.findMany({ where: { shop }, select: { kind: true, appliedAt: true } });
    expect(events.map((e) => e.kind).sort()).toEqual(["cancel", "refund"]);
    expect(events.every((e) => e.appliedAt !== null)).toBe(true);
    const status = await reconciliationStatus(shop, h.clock.date());
    expect(status?.found).toEqual({ orders: 0, refunds: 1, cancellations: 1, edits: 0 });
  });

  it("applies an edit no webhook brought, as if it had come; its late webhook and the next sweep change nothing", async () => {
    const { shop, payload, w } = await creditedOrder();

    later(MINUTE);
    const { edit } = await editOrder(h, shop, payload, { subtotal: "70.00", deliveries: 0 });
    pastTheLag();
    await sweepNow(shop, w);
    const found = await prisma.webhookDelivery.findFirstOrThrow({ where: { shop, topic: "orders/edited" } });
    expect(found).toMatchObject({ source: "reconciled", status: "recorded", orderId: String(payload.id) });
    let v = await runOrderToEnd(h, w, shop, payload.id);
    expect(v.commission).toMatchObject({ amount: "7.00", orderValue: "70.00" });
    expect((await reconciliationStatus(shop, h.clock.date()))?.found).toEqual({
      orders: 0,
      refunds: 0,
      cancellations: 0,
      edits: 1,
    });

    // Shopify's own delivery of the edit, late: a new event, which finds nothing left to move.
    expect(
      (await deliver(h.app.url, "/webhooks/orders/edited", { topic: "orders/edited", shop, body: edit })).status,
    ).toBe(200);
    later(MINUTE);
    pastTheLag();
    await sweepNow(shop, w);
    v = await runOrderToEnd(h, w, shop, payload.id);
    const entries = await prisma.commissionEntry.findMany({ where: { commissionId: v.commission!.id } });
    expect(entries.map((e) => [e.kind, e.amount]).sort()).toEqual([
      ["credit", "10.00"],
      ["edit", "-3.00"],
    ]);
    const events = await prisma.orderEvent.findMany({ where: { shop, kind: "edit" }, orderBy: { receivedAt: "asc" } });
    expect(events.map((e) => e.result)).toEqual([
      "edit -3.00 USD (order value 100.00 -> 70.00, commission 10.00 -> 7.00)",
      "nothing to adjust (order value 70.00 -> 70.00)",
    ]);
    // What the webhook brought late is not found again.
    expect((await reconciliationStatus(shop, h.clock.date()))?.found.edits).toBe(1);
  });

  it("reads an edited order's amounts once a sweep, fails on a read that fails, and finds no edit where the value did not move", async () => {
    const { shop, payload, w } = await creditedOrder();
    later(MINUTE);
    // Edited, and its webhook delivered and applied: the ledger holds the edited value.
    await editOrder(h, shop, payload, { subtotal: "70.00" });
    expect((await runOrderToEnd(h, w, shop, payload.id)).commission).toMatchObject({ orderValue: "70.00" });
    pastTheLag();
    // A failed read of the amounts fails the sweep, saying which read failed.
    h.shopify.faults({ serverError: 1, status: 502, operation: "TagGuardOrderAmounts" });
    await sweepNow(shop, w);
    let row = await prisma.shopReconciliation.findUniqueOrThrow({ where: { shop } });
    expect(row.lastError).toContain(`reading order gid://shopify/Order/${payload.id}'s amounts`);
    // A throttled one puts the sweep off to a later turn rather than holding the worker to wait.
    h.shopify.faults({ throttle: 1, operation: "TagGuardOrderAmounts" });
    const job = await sweepJob(shop);
    if (job.runAt > h.clock.date()) h.clock.now = new Date(job.runAt.getTime());
    const turn = h.clock.date();
    await w.runOnce();
    row = await prisma.shopReconciliation.findUniqueOrThrow({ where: { shop } });
    expect(row.sweptAt === null || row.sweptAt < turn).toBe(true);
    expect((await sweepJob(shop)).runAt.getTime()).toBeGreaterThan(turn.getTime());
    // Its next turn reads them, finds the value where the ledger holds it, and records no edit.
    await sweepNow(shop, w);
    row = await prisma.shopReconciliation.findUniqueOrThrow({ where: { shop } });
    expect(row.lastError).toBeNull();
    expect(await prisma.webhookDelivery.count({ where: { shop, topic: "orders/edited", source: "reconciled" } })).toBe(
      0,
    );
    expect(await prisma.orderEvent.count({ where: { shop, kind: "edit" } })).toBe(1);
  });

  it("imports nothing placed before the install, and keeps its watermark when Shopify fails", async () => {
    const shop = await newShop();
    h.clock.now = new Date();
    const before = await placeOrder(h, { shop, deliveries: 0 });
    later(MINUTE);
    await beginReconciliation(shop, h.clock.date());
    later(MINUTE);
    // The order from before the install is refunded after it: listed, but not the app's to import.
    await refundOrder(h, shop, before.payload, { subtotal: "10.00", deliveries: 0 });
    pastTheLag();
    const watermark = (await prisma.shopReconciliation.findUniqueOrThrow({ where: { shop } })).watermark;
    h.shopify.faults({ serverError: 1, status: 502 });
    const w = await sweepNow(shop);
    let row = await prisma.shopReconciliation.findUniqueOrThrow({ where: { shop } });
    expect(row).toMatchObject({ watermark, foundOrders: 0 });
    expect(row.lastError).toMatch(/listing the shop's orders/);
    expect((await sweepJob(shop)).state).toBe("queued");

    await sweepNow(shop, w);
    row = await prisma.shopReconciliation.findUniqueOrThrow({ where: { shop } });
    expect(row).toMatchObject({ foundOrders: 0, foundRefunds: 0, lastError: null });
    expect(row.watermark.getTime()).toBeGreaterThan(watermark.getTime());
    expect(await prisma.verification.count({ where: { shop } })).toBe(0);
    expect(await prisma.orderEvent.count({ where: { shop } })).toBe(0);
  });

  it("pages through more orders than one listing holds, each recorded once", async () => {
    const shop = await newShop();
    h.clock.now = new Date();
    await beginReconciliation(shop, h.clock.date());
    later(MINUTE);
    const placed = [];
    for (let i = 0; i < 60; i++) placed.push((await placeOrder(h, { shop, deliveries: i % 3 === 0 ? 1 : 0 })).payload);
    pastTheLag();
    const w = await sweepNow(shop);
    expect(await prisma.verification.count({ where: { shop } })).toBe(60);
    expect(await prisma.webhookDelivery.count({ where: { shop, source: "reconciled" } })).toBe(40);
    expect((await reconciliationStatus(shop, h.clock.date()))?.found.orders).toBe(40);
    await w.runOnce();
    expect(await prisma.verification.count({ where: { shop, outcome: "matched" } })).toBe(60);
  });
});
