import { beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { sql } from "../../app/database/sql.server";
import { env } from "../../app/platform/env.server";
import type { ClaimedJob } from "../../app/queue/job-states";
import type { JobContext } from "../../app/queue/runner.server";
import { beginReconciliation } from "../../app/reconciliation/reconciliation.server";
import { reconcileShopHandler, type SweepDeps } from "../../app/reconciliation/sweep.server";
import type { AdminGraphql } from "../../app/shopify-admin/admin-client.server";
import { noteThrottled, reserveRead } from "../../app/shopify-admin/write-schedule.server";
import { offlineAdmin } from "../../app/shopify.server";
import { orderPayload } from "../support/fixtures";
import {
  cancelOrder,
  editOrder,
  placeOrder,
  refundOrder,
  runOrderToEnd,
  useHarness,
  type Harness,
} from "../support/pipeline-harness";

const prisma = databaseClient();

// One run of the sweep at a time, called as the worker calls it, against the Shopify stand-in
// through the library's client: what it asks Shopify, what it records, how far it moves the
// watermark, and the turn it asks for next, exactly. tests/reconciliation/sweep.test.ts runs
// the same job through the worker, end to end.

const suite = useHarness("turns");
let h: Harness;
beforeAll(() => {
  h = suite.h;
});

const MINUTE = 60_000;
const LIST = "TagGuardReconcileOrders";
const ORDER = "TagGuardReconcileOrder";
const REFUND = "TagGuardReconcileRefund";
const AMOUNTS = "TagGuardOrderAmounts";
/** Shopify's search syntax keeps times to the second. */
const searchTime = (time: Date) => time.toISOString().replace(/\.\d{3}Z$/, "Z");

function ctxOf(shop: string, now: () => Date = h.clock.date): JobContext {
  return {
    job: {
      id: `job-${shop}`,
      shop,
      kind: "reconcile-shop",
      subject: shop,
      attempts: 1,
      runAt: now(),
      owner: "t",
    } as ClaimedJob,
    now,
    random: () => 0.5,
    signal: new AbortController().signal,
    write: (fn) => sql.transaction(fn),
  };
}

/**
 * The shop's Admin client, with `before[n]` run before its n-th call (1-based), and the n-th
 * answer's body passed through `answer[n]` (to say what Shopify would have said instead).
 */
function withHooks(
  before: Record<number, () => void | Promise<void>> = {},
  answer: Record<number, (body: any) => unknown> = {},
): SweepDeps {
  return {
    async shopifyAdmin(shop) {
      const access = await offlineAdmin(shop);
      if (!access.ok) return access;
      let calls = 0;
      const graphql: AdminGraphql = async (query, options) => {
        const call = ++calls;
        await before[call]?.();
        const response = await access.graphql(query, options);
        const change = answer[call];
        if (!change) return response;
        return new Response(JSON.stringify(change(await response.json())), {
          status: response.status,
          headers: response.headers,
        });
      };
      return { ok: true, graphql };
    },
  };
}

/** Shopify's answer, saying the shop's bucket holds only `points` of its 2,000. */
const bucketHolds = (points: number) => (body: any) => {
  body.extensions.cost.throttleStatus.currentlyAvailable = points;
  return body;
};

const run = (shop: string, deps: SweepDeps = withHooks(), ctx = ctxOf(shop)) => reconcileShopHandler(deps).run(ctx);

/** The stand-in's GraphQL calls for the shop since the last clearRequests, by operation. */
const calls = (shop: string) =>
  h.shopify
    .requests()
    .filter((r) => r.kind === "graphql" && r.shop === shop)
    .map((r) => ({ operation: r.operationName, variables: r.variables as Record<string, unknown> }));

const rowOf = (shop: string) => prisma.shopReconciliation.findUniqueOrThrow({ where: { shop } });

/** A shop installed at the harness clock's now, then `ms` later. */
async function installedShop(ms = MINUTE) {
  const shop = await suite.newShop();
  h.clock.now = new Date(Math.floor(Date.now() / 1000) * 1000);
  await beginReconciliation(shop, h.clock.date());
  h.clock.now = new Date(h.clock.ms() + ms);
  return shop;
}

/** Moves the clock past the sweep's lag: what happened so far is listed. */
function pastTheLag(): Date {
  h.clock.now = new Date(h.clock.ms() + env().RECONCILE_LAG_MS + 2_000);
  return h.clock.date();
}

const nextSweep = (now: Date) => ({
  to: "defer",
  at: new Date(now.getTime() + env().RECONCILE_INTERVAL_MS),
  reason: "next sweep",
});

describe("a sweep's run", () => {
  it("lists the orders changed since the watermark up to the lag, records the one no webhook brought, and moves on", async () => {
    const shop = await installedShop();
    const since = (await rowOf(shop)).watermark;
    const { payload } = await placeOrder(h, { shop, deliveries: 0 });
    const now = pastTheLag();
    h.shopify.clearRequests();

    expect(await run(shop)).toEqual(nextSweep(now));
    const until = new Date(now.getTime() - env().RECONCILE_LAG_MS);
    expect(calls(shop)).toEqual([
      {
        operation: LIST,
        variables: {
          query: `updated_at:>='${searchTime(since)}' AND updated_at:<='${searchTime(until)}'`,
          first: 50,
          after: null,
        },
      },
      { operation: ORDER, variables: { id: payload.admin_graphql_api_id, linesAfter: null } },
    ]);
    const { order } = h.shopify.store.findOrder(payload.id)!;
    expect(await rowOf(shop)).toMatchObject({
      watermark: new Date(order.updatedAt),
      sweptAt: now,
      failedAt: null,
      lastError: null,
      foundOrders: 1,
      foundRefunds: 0,
      foundCancellations: 0,
      foundEdits: 0,
      updatedAt: now,
    });
    expect(
      await prisma.webhookDelivery.findMany({
        where: { shop },
        select: { topic: true, eventId: true, webhookId: true, status: true, source: true, orderId: true },
      }),
    ).toEqual([
      {
        topic: "orders/create",
        eventId: `reconciled-order-${payload.id}`,
        webhookId: `reconciled-order-${payload.id}`,
        status: "recorded",
        source: "reconciled",
        orderId: String(payload.id),
      },
    ]);
  });

  it("lists nothing while the lag has not passed the watermark, to the millisecond", async () => {
    const shop = await installedShop(0);
    const watermark = (await rowOf(shop)).watermark;
    h.shopify.clearRequests();
    let now = new Date(watermark.getTime() + env().RECONCILE_LAG_MS - 1);
    expect(
      await run(
        shop,
        withHooks(),
        ctxOf(shop, () => now),
      ),
    ).toEqual(nextSweep(now));
    now = new Date(watermark.getTime() + env().RECONCILE_LAG_MS);
    expect(
      await run(
        shop,
        withHooks(),
        ctxOf(shop, () => now),
      ),
    ).toEqual(nextSweep(now));
    expect(calls(shop)).toEqual([]);
    // Nothing was written: the sweep has not gone through.
    expect(await rowOf(shop)).toMatchObject({ watermark, sweptAt: null, foundOrders: 0 });
  });

  it("goes on to the next page after the last one's cursor, and moves the watermark to each page's last order", async () => {
    const shop = await installedShop();
    const placed = [];
    for (let i = 0; i < 55; i++) {
      placed.push((await placeOrder(h, { shop, deliveries: 1 })).payload);
      h.clock.now = new Date(h.clock.ms() + 1_000);
    }
    const now = pastTheLag();
    const { watermark } = await rowOf(shop);
    h.shopify.clearRequests();
    expect(await run(shop)).toEqual(nextSweep(now));
    const listings = calls(shop);
    // Every order was delivered: listed, none read.
    expect(listings.map((c) => [c.operation, c.variables.first])).toEqual([
      [LIST, 50],
      [LIST, 50],
    ]);
    expect(listings[0]!.variables.after).toBeNull();
    expect(listings[1]!.variables.after).toEqual(expect.any(String));
    // The second page is listed from the watermark the first moved to, after the first's cursor.
    const { order: fiftieth } = h.shopify.store.findOrder(placed[49]!.id)!;
    const until = searchTime(new Date(now.getTime() - env().RECONCILE_LAG_MS));
    expect(listings.map((c) => c.variables.query)).toEqual([
      `updated_at:>='${searchTime(watermark)}' AND updated_at:<='${until}'`,
      `updated_at:>='${searchTime(new Date(fiftieth.updatedAt))}' AND updated_at:<='${until}'`,
    ]);
    const { order: last } = h.shopify.store.findOrder(placed.at(-1)!.id)!;
    expect(await rowOf(shop)).toMatchObject({ watermark: new Date(last.updatedAt), sweptAt: now, foundOrders: 0 });
  });

  it("never moves the watermark back to a listed order changed earlier in the watermark's own second", async () => {
    const shop = await installedShop();
    // Shopify keeps times to the second: an order changed at .200 says .000, and is listed from
    // a watermark of .500 (the install's own time, say).
    const second = h.clock.ms();
    h.clock.now = new Date(second + 200);
    const { payload } = await placeOrder(h, { shop, deliveries: 1 });
    expect(new Date(h.shopify.store.findOrder(payload.id)!.order.updatedAt)).toEqual(new Date(second));
    const watermark = new Date(second + 500);
    await prisma.shopReconciliation.update({ where: { shop }, data: { watermark } });
    const now = pastTheLag();
    h.shopify.clearRequests();
    expect(await run(shop)).toEqual(nextSweep(now));
    expect(calls(shop).map((c) => c.variables.query)).toEqual([
      `updated_at:>='${searchTime(watermark)}' AND updated_at:<='${searchTime(new Date(now.getTime() - env().RECONCILE_LAG_MS))}'`,
    ]);
    expect(await rowOf(shop)).toMatchObject({ watermark, sweptAt: now });
  });

  it("hands the worker back after ten pages and comes again at once", async () => {
    const shop = await installedShop();
    const at = new Date(h.clock.ms() - 30_000);
    const ids = [];
    for (let i = 0; i < 501; i++) {
      const payload = orderPayload({ createdAt: at });
      h.shopify.createOrder(shop, payload);
      ids.push(payload.id);
    }
    // Known to the app already: listed, never read.
    await prisma.verification.createMany({
      data: ids.map((id) => ({
        shop,
        orderId: String(id),
        orderGid: `gid://shopify/Order/${id}`,
        orderCreatedAt: at,
        currency: "USD",
        orderFacts: "{}",
      })),
    });
    pastTheLag();
    // Time passes between calls, as it does with Shopify answering: the bucket never runs low.
    const clock = () => {
      h.clock.now = new Date(h.clock.ms() + 20_000);
      return h.clock.date();
    };
    h.shopify.clearRequests();
    const result = await run(shop, withHooks(), ctxOf(shop, clock));
    expect(result).toEqual({ to: "defer", at: expect.any(Date), reason: "more orders to list" });
    expect(result && "at" in result && result.at.getTime() - h.clock.ms()).toBeLessThanOrEqual(0);
    expect(calls(shop).map((c) => c.operation)).toEqual(Array(10).fill(LIST));
    expect((await rowOf(shop)).sweptAt).toBeNull();
  });
});

describe("a sweep's run that cannot go on", () => {
  it("waits for the shop's bucket to be half full before listing, changing nothing", async () => {
    const shop = await installedShop();
    await placeOrder(h, { shop, deliveries: 0 });
    const now = pastTheLag();
    const before = await rowOf(shop);
    noteThrottled(shop, now, 30_000);
    h.shopify.clearRequests();
    const result = await run(shop);
    expect(result).toMatchObject({ to: "defer", reason: "waiting for the shop's Admin API bucket to be half full" });
    expect(result && "at" in result && result.at.getTime() - now.getTime()).toBeGreaterThanOrEqual(30_000);
    expect(calls(shop)).toEqual([]);
    expect(await rowOf(shop)).toEqual(before);
  });

  it("keeps what a page recorded when the bucket runs low in its middle, and lists the page again", async () => {
    const shop = await installedShop();
    const known = (await placeOrder(h, { shop, deliveries: 1 })).payload;
    h.clock.now = new Date(h.clock.ms() + MINUTE);
    await refundOrder(h, shop, known, { subtotal: "10.00", deliveries: 0 });
    await cancelOrder(h, shop, known, 0);
    h.clock.now = new Date(h.clock.ms() + MINUTE);
    const unknown = (await placeOrder(h, { shop, deliveries: 0 })).payload;
    const now = pastTheLag();
    const watermark = (await rowOf(shop)).watermark;
    h.shopify.clearRequests();
    // While the refund is read (the 2nd call), the bucket runs low: the new order is not read.
    const result = await run(shop, withHooks({ 2: () => noteThrottled(shop, now, 30_000) }));
    expect(result).toMatchObject({ to: "defer", reason: "waiting for the shop's Admin API bucket to be half full" });
    expect(calls(shop).map((c) => c.operation)).toEqual([LIST, REFUND]);
    expect(await rowOf(shop)).toMatchObject({
      watermark,
      sweptAt: null,
      foundOrders: 0,
      foundRefunds: 1,
      foundCancellations: 1,
      updatedAt: now,
    });
    expect(await prisma.verification.count({ where: { shop, orderId: String(unknown.id) } })).toBe(0);
  });

  it("counts an edit it recorded when the bucket runs low before the next order's amounts, and that one next time", async () => {
    const shop = await suite.newShop();
    const installed = new Date(Math.floor(Date.now() / 1000) * 1000);
    h.clock.now = new Date(installed.getTime() + MINUTE);
    // Credited, and the worker stopped, before the sweep's job exists: only `run` runs the sweep.
    const w = suite.startWorker();
    const orders = [];
    for (const subtotal of ["100.00", "200.00"]) {
      const { payload } = await placeOrder(h, { shop, subtotal });
      expect((await runOrderToEnd(h, w, shop, payload.id)).commission).not.toBeNull();
      orders.push(payload);
    }
    await w.stop();
    await beginReconciliation(shop, installed);
    const watermark = (await rowOf(shop)).watermark;
    h.clock.now = new Date(h.clock.ms() + MINUTE);
    for (const order of orders) await editOrder(h, shop, order, { subtotal: "50.00", deliveries: 0 });
    const now = pastTheLag();
    h.shopify.clearRequests();
    // While the first order's amounts are read (the 2nd call), the bucket runs low.
    const result = await run(shop, withHooks({ 2: () => noteThrottled(shop, now, 30_000) }));
    expect(result).toMatchObject({ to: "defer", reason: "waiting for the shop's Admin API bucket to be half full" });
    expect(calls(shop).map((c) => c.operation)).toEqual([LIST, AMOUNTS]);
    expect(await rowOf(shop)).toMatchObject({ watermark, sweptAt: null, foundEdits: 1, updatedAt: now });

    // The page again: the edit recorded waits for its order's job, so only the other is read.
    h.shopify.clearRequests();
    h.clock.now = (result as { at: Date }).at;
    await run(shop);
    expect(calls(shop).map((c) => c.operation)).toEqual([LIST, AMOUNTS]);
    expect(await rowOf(shop)).toMatchObject({ sweptAt: h.clock.date(), foundEdits: 2 });
    expect(await prisma.webhookDelivery.count({ where: { shop, topic: "orders/edited", source: "reconciled" } })).toBe(
      2,
    );
  });

  it("learns from each answer how full Shopify says the bucket is, and waits before the next read when it is low", async () => {
    const shop = await installedShop();
    await placeOrder(h, { shop, deliveries: 0 });
    await placeOrder(h, { shop, deliveries: 0 });
    pastTheLag();
    const waiting = { to: "defer", reason: "waiting for the shop's Admin API bucket to be half full" };
    // After the listing: no order is read.
    h.shopify.clearRequests();
    expect(await run(shop, withHooks({}, { 1: bucketHolds(100) }))).toMatchObject(waiting);
    expect(calls(shop).map((c) => c.operation)).toEqual([LIST]);
    // After the first order's read: the second is not read.
    h.clock.now = new Date(h.clock.ms() + 10 * MINUTE);
    h.shopify.clearRequests();
    expect(await run(shop, withHooks({}, { 2: bucketHolds(100) }))).toMatchObject(waiting);
    expect(calls(shop).map((c) => c.operation)).toEqual([LIST, ORDER]);
    expect((await rowOf(shop)).foundOrders).toBe(1);
  });

  it("comes back when Shopify's bucket has room again after a THROTTLED answer, without noting a failure", async () => {
    const shop = await installedShop();
    await placeOrder(h, { shop, deliveries: 0 });
    const now = pastTheLag();
    h.shopify.faults({ throttle: 1 });
    const result = await run(shop);
    expect(result).toMatchObject({ to: "defer", reason: "the shop's Admin API bucket is empty" });
    const waitMs = result && "at" in result ? result.at.getTime() - now.getTime() : 0;
    expect(waitMs).toBeGreaterThan(0);
    expect(await rowOf(shop)).toMatchObject({ failedAt: null, lastError: null, foundOrders: 0 });
    // The app's own estimate of the bucket now waits as long.
    expect(reserveRead(shop, now, 0)).toBeGreaterThanOrEqual(waitMs);
  });

  it("says which call failed, and tries again at the next turn", async () => {
    const shop = await installedShop();
    const order = (await placeOrder(h, { shop, deliveries: 0 })).payload;
    const now = pastTheLag();
    const watermark = (await rowOf(shop)).watermark;
    h.shopify.faults({ serverError: 1, status: 502 });
    const listing = await run(shop);
    const row = await rowOf(shop);
    expect(row).toMatchObject({ watermark, failedAt: now, foundOrders: 0 });
    expect(row.lastError).toMatch(/^listing the shop's orders: .*502/);
    expect(listing).toEqual({
      to: "defer",
      at: new Date(now.getTime() + env().RECONCILE_INTERVAL_MS),
      reason: row.lastError,
    });

    const reading = await run(shop, withHooks({ 2: () => h.shopify.faults({ serverError: 1, status: 502 }) }));
    expect((await rowOf(shop)).lastError).toMatch(
      new RegExp(`^reading order ${String(order.admin_graphql_api_id)}: .*502`),
    );
    expect(reading).toMatchObject({ reason: (await rowOf(shop)).lastError });
  });

  it("says so when a refund cannot be read", async () => {
    const shop = await installedShop();
    const known = (await placeOrder(h, { shop, deliveries: 1 })).payload;
    const { refund } = await refundOrder(h, shop, known, { subtotal: "10.00", deliveries: 0 });
    pastTheLag();
    await run(shop, withHooks({ 2: () => h.shopify.faults({ serverError: 1, status: 502 }) }));
    expect((await rowOf(shop)).lastError).toMatch(
      new RegExp(`^reading refund ${String(refund.admin_graphql_api_id)}: .*502`),
    );
  });

  it("reads with one attempt each, so a THROTTLED read ends the run instead of sleeping in it", async () => {
    const shop = await installedShop();
    const known = (await placeOrder(h, { shop, deliveries: 1 })).payload;
    await refundOrder(h, shop, known, { subtotal: "10.00", deliveries: 0 });
    h.clock.now = new Date(h.clock.ms() + MINUTE);
    await placeOrder(h, { shop, deliveries: 0 });
    pastTheLag();
    const throttled = { to: "defer", reason: "the shop's Admin API bucket is empty" };
    // The refund read, then (the refund recorded) the order read.
    expect(await run(shop, withHooks({ 2: () => h.shopify.faults({ throttle: 1 }) }))).toMatchObject(throttled);
    expect((await rowOf(shop)).foundRefunds).toBe(0);
    h.clock.now = new Date(h.clock.ms() + 10 * MINUTE);
    expect(await run(shop, withHooks({ 3: () => h.shopify.faults({ throttle: 1 }) }))).toMatchObject(throttled);
    expect(await rowOf(shop)).toMatchObject({ foundRefunds: 1, foundOrders: 0 });
  });

  it("finishes for a shop without access or without its row, and notes a token that cannot be refreshed", async () => {
    const shop = await installedShop();
    const now = pastTheLag();
    const refused = (reason: "no-session" | "refresh-failed"): SweepDeps => ({
      shopifyAdmin: async () => ({ ok: false, retryable: false, reason, message: `no access (${reason})` }),
    });
    expect(await run(shop, refused("no-session"))).toEqual({ to: "finish" });
    expect(await rowOf(shop)).toMatchObject({ failedAt: null, lastError: null });
    expect(await run(shop, refused("refresh-failed"))).toEqual({
      to: "defer",
      at: new Date(now.getTime() + env().RECONCILE_INTERVAL_MS),
      reason: "no access (refresh-failed)",
    });
    expect(await rowOf(shop)).toMatchObject({ failedAt: now, lastError: "no access (refresh-failed)" });
    expect(await run("never-installed.myshopify.com")).toEqual({ to: "finish" });
  });

  it("gives up noting why, in at most 500 characters", async () => {
    const shop = await installedShop();
    const now = h.clock.date();
    await reconcileShopHandler(withHooks()).giveUp(ctxOf(shop), `crashed: ${"x".repeat(600)}`);
    const row = await rowOf(shop);
    expect(row).toMatchObject({ failedAt: now, updatedAt: now });
    expect(row.lastError).toBe(`crashed: ${"x".repeat(491)}`);
  });
});

describe("what a sweep records", () => {
  it("reads an order whole, every page of its lines", async () => {
    const shop = await installedShop();
    const lineItems = Array.from({ length: 25 }, (_, i) => ({ title: `Line ${i}`, price: "2.00" }));
    const { payload } = await placeOrder(h, { shop, deliveries: 0, amounts: { lineItems } });
    pastTheLag();
    h.shopify.clearRequests();
    await run(shop);
    const reads = calls(shop).filter((c) => c.operation === ORDER);
    expect(reads.map((c) => c.variables.linesAfter)).toEqual([null, expect.any(String)]);
    const verification = await prisma.verification.findFirstOrThrow({ where: { shop, orderId: String(payload.id) } });
    expect(JSON.parse(verification.orderFacts).amounts.subtotal_before_discounts).toBe("50");
  });

  it("records an order it cannot read as a refused delivery, its body cut to 2,000 characters, and finds nothing", async () => {
    const shop = await installedShop();
    const payload = orderPayload({ createdAt: h.clock.date() });
    payload.name = `#${"9".repeat(3_000)}`;
    h.shopify.createOrder(shop, payload);
    pastTheLag();
    await run(shop);
    const [delivery] = await prisma.webhookDelivery.findMany({ where: { shop } });
    expect(delivery).toMatchObject({
      source: "reconciled",
      status: "invalid",
      eventId: `reconciled-order-${payload.id}`,
    });
    expect(delivery!.reason).toMatch(/^name /);
    expect(delivery!.payload).toHaveLength(2_000);
    expect(delivery!.payload!.startsWith(`{"id":"${payload.id}"`)).toBe(true);
    expect(await rowOf(shop)).toMatchObject({ foundOrders: 0, sweptAt: h.clock.date() });
  });

  it("reads no refund or cancellation the app already has, and records each one it lacks once", async () => {
    const shop = await installedShop();
    const delivered = (await placeOrder(h, { shop, deliveries: 1 })).payload;
    await refundOrder(h, shop, delivered, { subtotal: "5.00", deliveries: 1 });
    await cancelOrder(h, shop, delivered, 1);
    const first = (await placeOrder(h, { shop, deliveries: 1 })).payload;
    const second = (await placeOrder(h, { shop, deliveries: 1 })).payload;
    h.clock.now = new Date(h.clock.ms() + MINUTE);
    const refunds = [
      (await refundOrder(h, shop, first, { subtotal: "5.00", deliveries: 0 })).refund,
      (await refundOrder(h, shop, second, { subtotal: "6.00", deliveries: 0 })).refund,
    ];
    await cancelOrder(h, shop, first, 0);
    await cancelOrder(h, shop, second, 0);
    pastTheLag();
    h.shopify.clearRequests();
    await run(shop);
    expect(
      calls(shop)
        .filter((c) => c.operation === REFUND)
        .map((c) => c.variables.id),
    ).toEqual(refunds.map((refund) => refund.admin_graphql_api_id));
    expect(await rowOf(shop)).toMatchObject({ foundOrders: 0, foundRefunds: 2, foundCancellations: 2 });
    expect(
      (
        await prisma.webhookDelivery.findMany({
          where: { shop, source: "reconciled" },
          select: { topic: true, eventId: true },
          orderBy: { eventId: "asc" },
        })
      ).map((d) => `${d.topic} ${d.eventId}`),
    ).toEqual(
      [
        `orders/cancelled reconciled-cancel-${first.id}`,
        `orders/cancelled reconciled-cancel-${second.id}`,
        ...refunds.map((refund) => `refunds/create reconciled-refund-${String(refund.id)}`),
      ].sort(),
    );
    // The next sweep finds them all recorded: nothing read, nothing found.
    h.shopify.clearRequests();
    h.clock.now = new Date(h.clock.ms() + env().RECONCILE_INTERVAL_MS);
    pastTheLag();
    await run(shop);
    expect(calls(shop).filter((c) => c.operation !== LIST)).toEqual([]);
    expect(await rowOf(shop)).toMatchObject({ foundRefunds: 2, foundCancellations: 2 });
  });
});
