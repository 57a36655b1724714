import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { offlineAdmin } from "../../app/shopify.server";
import { startWorker } from "../../app/worker/worker.server";
import { servePublicRoutes } from "../support/app-routes";
import { deliver } from "../support/deliver";
import { sendTouch } from "../support/touch";
import { checkoutReport, landingReport, sendPixelReport } from "../support/pixel";
import { buildRefundCreatePayload } from "../../sandbox/shopify";
import { orderPayload, rowCounts, storeOfflineSession } from "../support/fixtures";
import type { RouteServer } from "../support/route-server";

const prisma = databaseClient();

let app: RouteServer;
beforeAll(async () => {
  app = await servePublicRoutes();
});
afterAll(() => app.close());

const settings = { clickServiceUrl: "https://clicks.example.com", apiKey: "ck_live_abcdef123456" };

/** Runs the background worker over what is queued (orders these tests skip never reach the service). */
async function runWorker() {
  const worker = startWorker({ pollIntervalMs: 3_600_000, deps: { shopifyAdmin: offlineAdmin } });
  await worker.runOnce();
  await worker.stop();
}

async function configure(shop: string) {
  const saved = await saveSettings(shop, settings);
  expect(saved.ok).toBe(true);
}

describe("HMAC verification by the library", () => {
  const shop = "hmac-shop.myshopify.com";

  it("accepts a correctly signed orders/create delivery and records it", async () => {
    await configure(shop);
    const payload = orderPayload();
    const response = await deliver(app.url, "/webhooks/orders/create", {
      topic: "orders/create",
      shop,
      body: payload,
      eventId: "evt-signed",
    });
    expect(response.status).toBe(200);
    const delivery = await prisma.webhookDelivery.findUniqueOrThrow({
      where: { shop_topic_eventId: { shop, topic: "orders/create", eventId: "evt-signed" } },
    });
    expect(delivery.status).toBe("recorded");
    expect(delivery.orderId).toBe(String(payload.id));
    const verification = await prisma.verification.findUniqueOrThrow({
      where: { shop_orderId: { shop, orderId: String(payload.id) } },
    });
    expect(verification.outcome).toBeNull();
    const job = await prisma.job.findUniqueOrThrow({
      where: { kind_subject: { kind: "verify-order", subject: verification.id } },
    });
    expect(job).toMatchObject({ state: "queued", attempts: 0, shop });
  });

  it("answers 401 to a forged signature and records nothing", async () => {
    const before = await prisma.webhookDelivery.count();
    const response = await deliver(app.url, "/webhooks/orders/create", {
      topic: "orders/create",
      shop,
      body: orderPayload(),
      secret: "not-the-secret",
    });
    expect(response.status).toBe(401);
    expect(await prisma.webhookDelivery.count()).toBe(before);
  });

  it("answers 400 when the signature header is missing", async () => {
    const response = await deliver(app.url, "/webhooks/orders/create", {
      topic: "orders/create",
      shop,
      body: orderPayload(),
      hmac: null,
    });
    expect(response.status).toBe(400);
  });

  it("rejects forged lifecycle and compliance webhooks too", async () => {
    await storeOfflineSession(shop);
    for (const [path, topic] of [
      ["/webhooks/app/uninstalled", "app/uninstalled"],
      ["/webhooks/shop/redact", "shop/redact"],
      ["/webhooks/customers/redact", "customers/redact"],
      ["/webhooks/customers/data_request", "customers/data_request"],
      ["/webhooks/app/scopes_update", "app/scopes_update"],
    ] as const) {
      const response = await deliver(app.url, path, { topic, shop, body: { shop_domain: shop }, secret: "forged" });
      expect(response.status, path).toBe(401);
    }
    expect(await prisma.session.count({ where: { shop } })).toBe(1);
    expect(await prisma.shopSettings.count({ where: { shop } })).toBe(1);
  });

  it("records a signed body that is not JSON as invalid instead of failing", async () => {
    const response = await deliver(app.url, "/webhooks/orders/create", {
      topic: "orders/create",
      shop,
      body: "{not json",
      eventId: "evt-garbage",
    });
    expect(response.status).toBe(200);
    const delivery = await prisma.webhookDelivery.findUniqueOrThrow({
      where: { shop_topic_eventId: { shop, topic: "orders/create", eventId: "evt-garbage" } },
    });
    expect(delivery.status).toBe("invalid");
    expect(delivery.reason).toMatch(/not JSON/);
  });
});

describe("orders/create intake", () => {
  it("records an order from a shop without settings, or with verification off; the worker skips it with the reason", async () => {
    const unconfigured = "no-settings.myshopify.com";
    const off = "verification-off.myshopify.com";
    await saveSettings(off, { ...settings, autoVerify: false });
    for (const [shop, reason] of [
      [unconfigured, "the shop has not configured the app"],
      [off, "automatic verification is switched off"],
    ] as const) {
      const payload = orderPayload();
      expect(
        (await deliver(app.url, "/webhooks/orders/create", { topic: "orders/create", shop, body: payload })).status,
      ).toBe(200);
      expect(await prisma.webhookDelivery.count({ where: { shop, status: "recorded" } })).toBe(1);
      await runWorker();
      const verification = await prisma.verification.findUniqueOrThrow({
        where: { shop_orderId: { shop, orderId: String(payload.id) } },
      });
      expect(verification).toMatchObject({ outcome: "skipped", reason });
    }
  });

  it("keeps one verification when Shopify sends the same order under a new event id", async () => {
    const shop = "resent.myshopify.com";
    await configure(shop);
    const payload = orderPayload();
    for (const eventId of ["evt-first", "evt-second", "evt-first"]) {
      expect(
        (await deliver(app.url, "/webhooks/orders/create", { topic: "orders/create", shop, body: payload, eventId }))
          .status,
      ).toBe(200);
    }
    expect(await prisma.verification.count({ where: { shop } })).toBe(1);
    const deliveries = await prisma.webhookDelivery.findMany({ where: { shop }, orderBy: { receivedAt: "asc" } });
    expect(deliveries.map((delivery) => [delivery.eventId, delivery.status])).toEqual([
      ["evt-first", "recorded"],
      ["evt-second", "duplicate-order"],
    ]);
  });
});

describe("app/uninstalled", () => {
  const shop = "uninstall-shop.myshopify.com";

  it("deletes the shop's sessions, keeps its business records, and is safe twice", async () => {
    await configure(shop);
    await storeOfflineSession(shop);
    await deliver(app.url, "/webhooks/orders/create", { topic: "orders/create", shop, body: orderPayload() });
    for (let i = 0; i < 2; i += 1) {
      const response = await deliver(app.url, "/webhooks/app/uninstalled", {
        topic: "app/uninstalled",
        shop,
        body: { id: 1, domain: shop },
      });
      expect(response.status).toBe(200);
    }
    expect(await prisma.session.count({ where: { shop } })).toBe(0);
    const kept = await prisma.shopSettings.findUniqueOrThrow({ where: { shop } });
    expect(kept.uninstalledAt).toBeInstanceOf(Date);
    expect(await prisma.verification.count({ where: { shop } })).toBe(1);
  });

  it("skips orders delivered after uninstall, with the reason", async () => {
    const payload = orderPayload();
    const response = await deliver(app.url, "/webhooks/orders/create", { topic: "orders/create", shop, body: payload });
    expect(response.status).toBe(200);
    await runWorker();
    const verification = await prisma.verification.findUniqueOrThrow({
      where: { shop_orderId: { shop, orderId: String(payload.id) } },
    });
    expect(verification.outcome).toBe("skipped");
    expect(verification.reason).toBe("the app was uninstalled");
  });
});

describe("app/scopes_update", () => {
  it("stores the granted scopes on the shop's sessions", async () => {
    const shop = "scopes-shop.myshopify.com";
    await storeOfflineSession(shop, "shpat_x", "read_orders");
    const response = await deliver(app.url, "/webhooks/app/scopes_update", {
      topic: "app/scopes_update",
      shop,
      body: {
        id: 1,
        previous: ["read_orders"],
        current: ["read_orders", "write_orders"],
        updated_at: new Date().toISOString(),
      },
    });
    expect(response.status).toBe(200);
    const session = await prisma.session.findUniqueOrThrow({ where: { id: `offline_${shop}` } });
    expect(session.scope).toBe("read_orders,write_orders");
  });
});

describe("compliance webhooks", () => {
  const shop = "privacy-shop.myshopify.com";
  const other = "other-shop.myshopify.com";

  async function seed(target: string) {
    await configure(target);
    await storeOfflineSession(target);
    // Its code is stored apart (OrderDiscountCode), and switched off from the Codes page (CodeDeactivation).
    const payload = orderPayload({
      noteAttributes: { _lb_click: "clk_1", _lb_tag: "alice-20" },
      discount: "5.00",
      discountCode: "LEAKED5",
    });
    // The shopper's landing, as the storefront reports it: a touch and a click record.
    const touched = await sendTouch(app.url, target, {
      clickId: "clk_1",
      tag: "alice-20",
      cartToken: String(payload.cart_token),
    });
    expect(touched.status).toBe(202);
    // The web pixel saw the same landing and the checkout.
    const visitor = `client-${String(payload.id)}`;
    expect((await sendPixelReport(app.url, target, landingReport(visitor, "clk_1", "alice-20"))).status).toBe(202);
    expect((await sendPixelReport(app.url, target, checkoutReport(visitor, String(payload.id)))).status).toBe(202);
    await deliver(app.url, "/webhooks/orders/create", { topic: "orders/create", shop: target, body: payload });
    const verification = await prisma.verification.findUniqueOrThrow({
      where: { shop_orderId: { shop: target, orderId: String(payload.id) } },
    });
    await prisma.verificationAttempt.create({
      data: { verificationId: verification.id, number: 1, step: "verify-click", result: "ok" },
    });
    // Decided, as the worker leaves it: the dashboard's rollup (VerificationHour) counts it.
    await prisma.verification.update({ where: { id: verification.id }, data: { outcome: "matched" } });
    await prisma.codeDeactivation.create({
      data: { shop: target, code: "LEAKED5", discountId: "gid://shopify/DiscountCodeNode/1" },
    });
    await prisma.commission.create({
      data: {
        shop: target,
        verificationId: verification.id,
        orderId: verification.orderId,
        creatorId: "cr_alice",
        expectedTag: "alice-20",
        arrivedTag: "alice-20",
        orderValue: "100.00",
        currency: "USD",
        rate: "10",
        amount: "10.00",
        amountMinor: 1000n,
        entries: { create: { shop: target, kind: "credit", amountMinor: 1000n, amount: "10.00" } },
      },
    });
    // The ledger's own tables: a refund as delivered, and a payout.
    const refund = buildRefundCreatePayload({ orderId: payload.id, lines: [{ price: "5.00" }] });
    await deliver(app.url, "/webhooks/refunds/create", { topic: "refunds/create", shop: target, body: refund });
    await prisma.payout.create({
      data: {
        shop: target,
        idempotencyKey: `payout-${payload.id}`,
        reference: "transfer",
        paidOn: new Date(),
        lines: { create: { creatorId: "cr_alice", currency: "USD", amountMinor: 1000n, amount: "10.00", records: 1 } },
      },
    });
    // The reconciliation sweep's state for the shop (made at install, where the install ran it).
    await prisma.shopReconciliation.upsert({
      where: { shop: target },
      create: { shop: target, since: new Date(), watermark: new Date() },
      update: {},
    });
    // What the merchant calls the creator: the shop's data, gone with it.
    await prisma.creatorProfile.upsert({
      where: { shop_creatorId: { shop: target, creatorId: "cr_alice" } },
      create: { shop: target, creatorId: "cr_alice", name: "Alice", email: "alice@example.com", note: "pays by wire" },
      update: {},
    });
    // The evidence by creator the order left, a creator's standing and a decision on it.
    await prisma.creatorClaim.create({
      data: {
        shop: target,
        creatorId: "cr_mallory",
        verificationId: verification.id,
        orderId: String(payload.id),
        clickId: "clk_m",
        outcome: "stood-down",
        signals: "not-a-landing,later",
        tampering: true,
        orderAt: new Date(),
      },
    });
    await prisma.creatorStanding.upsert({
      where: { shop_creatorId: { shop: target, creatorId: "cr_mallory" } },
      create: { shop: target, creatorId: "cr_mallory", state: "released", version: 2 },
      update: {},
    });
    await prisma.creatorDecision.create({
      data: { shop: target, creatorId: "cr_mallory", kind: "release", at: new Date(), changes: "{}" },
    });
    await prisma.verification.update({
      where: { id: verification.id },
      data: { clickId: "clk_1", arrivedTag: "alice-20" },
    });
    // Payouts the app sends: the shop's methods and PayPal account, a run, a PayPal event, a schedule.
    await prisma.payoutSettings.upsert({
      where: { shop: target },
      create: { shop: target, defaultMethod: "paypal" },
      update: {},
    });
    await prisma.creatorPayoutMethod.upsert({
      where: { shop_creatorId: { shop: target, creatorId: "cr_alice" } },
      create: { shop: target, creatorId: "cr_alice", method: "manual" },
      update: {},
    });
    await prisma.payoutRun.create({
      data: {
        id: `run-${target}-${randomUUID()}`,
        shop: target,
        method: "paypal",
        idempotencyKey: randomUUID(),
        senderBatchId: randomUUID(),
        environment: "sandbox",
      },
    });
    await prisma.paypalEvent.create({
      data: { shop: target, eventId: randomUUID(), eventType: "PAYMENT.PAYOUTS-ITEM.SUCCEEDED", outcome: "applied" },
    });
    // A payout schedule and one period it wrote.
    await prisma.payoutSchedule.upsert({
      where: { shop: target },
      create: { shop: target, enabled: true, currency: "USD", activeFrom: new Date() },
      update: {},
    });
    await prisma.payoutSchedulePeriod.create({
      data: {
        shop: target,
        periodKey: `2026-${randomUUID()}`,
        dueAt: new Date(),
        state: "done",
        createdAt: new Date(),
        updatedAt: new Date(),
      },
    });
    // What Shopify said of the shop at authorization (its time zone and currency).
    await prisma.shopProfile.upsert({
      where: { shop: target },
      create: { shop: target, ianaTimezone: "Europe/Paris", currencyCode: "EUR", readAt: new Date() },
      update: {},
    });
    // The language its admin was last opened in (decision 055).
    await prisma.shopLanguage.upsert({
      where: { shop: target },
      create: { shop: target, adminLocale: "fr", seenAt: new Date() },
      update: {},
    });
    return payload;
  }

  it("customers/data_request gathers what the app holds for the listed orders", async () => {
    const payload = await seed(shop);
    const response = await deliver(app.url, "/webhooks/customers/data_request", {
      topic: "customers/data_request",
      shop,
      body: {
        shop_id: 1,
        shop_domain: shop,
        orders_requested: [payload.id],
        customer: { id: 99, email: "a@b.c" },
        data_request: { id: 7 },
      },
    });
    expect(response.status).toBe(200);
    const request = await prisma.dataRequest.findFirstOrThrow({ where: { shop } });
    expect(request.customerId).toBe("99");
    const data = JSON.parse(request.data) as {
      orders: { orderId: string; clickId: string; commission: { amount: string } }[];
    };
    expect(data.orders).toHaveLength(1);
    expect(data.orders[0]).toMatchObject({
      orderId: String(payload.id),
      clickId: "clk_1",
      commission: { amount: "10.00" },
    });
  });

  it("customers/data_request delivered again (even at once) is recorded once; a new request is recorded again", async () => {
    const payload = await seed(shop);
    // Each request Shopify sends names itself (data_request.id) in its signed body.
    const body = (request: number) => ({
      shop_id: 1,
      shop_domain: shop,
      orders_requested: [payload.id],
      customer: { id: 98 },
      data_request: { id: request },
    });
    const send = (eventId: string, request: number) =>
      deliver(app.url, "/webhooks/customers/data_request", {
        topic: "customers/data_request",
        shop,
        body: body(request),
        eventId,
      });
    const answers = await Promise.all([send("evt-dr-1", 1), send("evt-dr-1", 1), send("evt-dr-1", 1)]);
    expect(answers.map((response) => response.status)).toEqual([200, 200, 200]);
    expect((await send("evt-dr-1", 1)).status).toBe(200);
    expect(await prisma.dataRequest.count({ where: { shop, customerId: "98" } })).toBe(1);
    expect((await send("evt-dr-2", 2)).status).toBe(200);
    expect(await prisma.dataRequest.count({ where: { shop, customerId: "98" } })).toBe(2);
  });

  it("customers/redact removes the click id and stored order data but keeps the creator's commission", async () => {
    const payload = await seed(shop);
    const body = { shop_id: 1, shop_domain: shop, customer: { id: 99 }, orders_to_redact: [payload.id] };
    for (let i = 0; i < 2; i += 1) {
      expect(
        (await deliver(app.url, "/webhooks/customers/redact", { topic: "customers/redact", shop, body })).status,
      ).toBe(200);
    }
    const verification = await prisma.verification.findUniqueOrThrow({
      where: { shop_orderId: { shop, orderId: String(payload.id) } },
    });
    expect(verification.clickId).toBeNull();
    expect(verification.orderFacts).toBe("{}");
    // The pixel's reports of the order's visitor go too.
    expect(await prisma.pixelSighting.count({ where: { shop, clientId: `client-${String(payload.id)}` } })).toBe(0);
    expect(await prisma.commission.count({ where: { orderId: String(payload.id) } })).toBe(1);
    expect(await prisma.dataRequest.count({ where: { shop, customerId: "99" } })).toBe(0);
  });

  // SQLite (through Prisma) caps the values one statement may bind near 1,000: a customer with
  // thousands of orders must not turn these into a 500 that Shopify retries forever.
  const manyOrderIds = (count: number, including: number) => [
    ...Array.from({ length: count - 1 }, (_, i) => 7_000_000_000_000 + i),
    including,
  ];

  it("customers/data_request with 10,000 order ids still gathers what the app holds", async () => {
    const payload = await seed(shop);
    const response = await deliver(app.url, "/webhooks/customers/data_request", {
      topic: "customers/data_request",
      shop,
      body: {
        shop_id: 1,
        shop_domain: shop,
        orders_requested: manyOrderIds(10_000, payload.id),
        customer: { id: 1001 },
        data_request: { id: 8 },
      },
    });
    expect(response.status).toBe(200);
    const request = await prisma.dataRequest.findFirstOrThrow({ where: { shop, customerId: "1001" } });
    expect(JSON.parse(request.ordersAsked)).toHaveLength(10_000);
    const data = JSON.parse(request.data) as { orders: { orderId: string; clickId: string }[] };
    expect(data.orders).toEqual([expect.objectContaining({ orderId: String(payload.id), clickId: "clk_1" })]);
  });

  it("customers/redact with 10,000 order ids redacts every listed order it holds", async () => {
    const first = await seed(shop);
    const last = await seed(shop);
    const orderIds = [first.id, ...manyOrderIds(10_000, last.id).slice(1)];
    const body = { shop_id: 1, shop_domain: shop, customer: { id: 1002 }, orders_to_redact: orderIds };
    const response = await deliver(app.url, "/webhooks/customers/redact", { topic: "customers/redact", shop, body });
    expect(response.status).toBe(200);
    for (const order of [first, last]) {
      const verification = await prisma.verification.findUniqueOrThrow({
        where: { shop_orderId: { shop, orderId: String(order.id) } },
      });
      expect(verification).toMatchObject({ clickId: null, orderFacts: "{}" });
      expect(await prisma.commission.count({ where: { orderId: String(order.id) } })).toBe(1);
    }
  });

  it("shop/redact deletes everything held for the shop, in every table, and nothing of others", async () => {
    await seed(shop);
    await seed(other);
    await prisma.dataRequest.create({ data: { shop, ordersAsked: "[]", data: "{}" } });
    // The app's memory of the lifecycle webhooks it handled is kept (decision 028).
    const memory = "LifecycleEvent";
    for (const [table, count] of Object.entries(await rowCounts(shop)))
      if (table !== memory) expect(count, table).toBeGreaterThan(0);
    const othersBefore = await rowCounts(other);

    // Shopify sends shop/redact 48 hours after the uninstall.
    const uninstalled = await deliver(app.url, "/webhooks/app/uninstalled", {
      topic: "app/uninstalled",
      shop,
      body: { id: 1, domain: shop },
    });
    expect(uninstalled.status).toBe(200);
    await prisma.shopSettings.update({
      where: { shop },
      data: { uninstalledAt: new Date(Date.now() - 48 * 60 * 60 * 1000) },
    });
    for (let i = 0; i < 2; i += 1) {
      const response = await deliver(app.url, "/webhooks/shop/redact", {
        topic: "shop/redact",
        shop,
        body: { shop_id: 1, shop_domain: shop },
      });
      expect(response.status).toBe(200);
    }

    for (const [table, count] of Object.entries(await rowCounts(shop)))
      if (table !== memory) expect(count, table).toBe(0);
    expect(await prisma.lifecycleEvent.findFirst({ where: { shop, topic: "shop/redact" } })).toMatchObject({
      outcome: "applied",
    });
    expect(await rowCounts(other)).toEqual(othersBefore);
  });
});
