import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { servePublicRoutes } from "../support/app-routes";
import { deliver, type Delivery } from "../support/deliver";
import { orderPayload, rowCounts, storeOfflineSession } from "../support/fixtures";
import type { RouteServer } from "../support/route-server";

const prisma = databaseClient();

// Captured lifecycle and compliance webhooks replayed (issue 38, item 4). The HMAC signs the body
// alone: whoever holds a captured, correctly signed body can send it again with any event id and
// any X-Shopify-Triggered-At. Each replay here goes through the real route and the library's HMAC
// check. (Replays across a reinstall, where the app asks Shopify, are in
// tests/verification/shop-lifecycle.test.ts, which has the Shopify stand-in.)

let app: RouteServer;
let shopNumber = 0;
beforeAll(async () => {
  app = await servePublicRoutes();
});
afterAll(() => app.close());

const DAY = 24 * 60 * 60 * 1000;
const settings = { clickServiceUrl: "https://clicks.example.com", apiKey: "ck_live_abcdef123456" };

/** An installed shop (settings, an offline session) with an order recorded. */
async function installedShop(): Promise<string> {
  shopNumber += 1;
  const shop = `replay-${shopNumber}.myshopify.com`;
  expect((await saveSettings(shop, settings)).ok).toBe(true);
  await storeOfflineSession(shop);
  const order = await deliver(app.url, "/webhooks/orders/create", {
    topic: "orders/create",
    shop,
    body: orderPayload(),
  });
  expect(order.status).toBe(200);
  return shop;
}

function send(path: string, delivery: Delivery) {
  return deliver(app.url, path, delivery);
}

/** Every table but the app's memory of handled lifecycle webhooks, which shop/redact keeps. */
async function shopRows(shop: string) {
  const { LifecycleEvent: _memory, ...counts } = await rowCounts(shop);
  return counts;
}

async function uninstalledDaysAgo(shop: string, days: number) {
  const body = { id: 1, name: shop, domain: shop, myshopify_domain: shop };
  expect((await send("/webhooks/app/uninstalled", { topic: "app/uninstalled", shop, body })).status).toBe(200);
  await prisma.shopSettings.update({
    where: { shop },
    data: { uninstalledAt: new Date(Date.now() - days * DAY) },
  });
}

describe("shop/redact", () => {
  it("for a shop that is installed deletes nothing, however fresh its headers, and the refusal is recorded", async () => {
    const shop = await installedShop();
    const before = await shopRows(shop);
    const body = { shop_id: 1, shop_domain: shop };
    for (const eventId of ["evt-redact-1", "evt-redact-2"]) {
      const response = await send("/webhooks/shop/redact", { topic: "shop/redact", shop, body, eventId });
      expect(response.status).toBe(200);
    }
    expect(await shopRows(shop)).toEqual(before);
    expect(await prisma.lifecycleEvent.findMany({ where: { shop, topic: "shop/redact" } })).toEqual([
      expect.objectContaining({ outcome: "premature", eventId: "evt-redact-2" }),
    ]);
  });

  it("for a shop whose settings say installed, without a session, deletes nothing", async () => {
    const shop = await installedShop();
    await prisma.session.deleteMany({ where: { shop } });
    const before = await shopRows(shop);
    const response = await send("/webhooks/shop/redact", {
      topic: "shop/redact",
      shop,
      body: { shop_id: 1, shop_domain: shop },
    });
    expect(response.status).toBe(200);
    expect(await shopRows(shop)).toEqual(before);
  });

  it("less than a day after the uninstall deletes nothing; a day after, everything but the app's memory", async () => {
    const shop = await installedShop();
    await uninstalledDaysAgo(shop, 0.5);
    const before = await shopRows(shop);
    const body = { shop_id: 1, shop_domain: shop };
    expect((await send("/webhooks/shop/redact", { topic: "shop/redact", shop, body })).status).toBe(200);
    expect(await shopRows(shop)).toEqual(before);

    await uninstalledDaysAgo(shop, 2);
    expect((await send("/webhooks/shop/redact", { topic: "shop/redact", shop, body, eventId: "evt-r" })).status).toBe(
      200,
    );
    expect(Object.values(await shopRows(shop)).every((count) => count === 0)).toBe(true);
    // Delivered again, or after the merchant installed again: nothing more.
    expect((await saveSettings(shop, settings)).ok).toBe(true);
    await storeOfflineSession(shop);
    const reinstalled = await shopRows(shop);
    expect((await send("/webhooks/shop/redact", { topic: "shop/redact", shop, body, eventId: "evt-r" })).status).toBe(
      200,
    );
    expect(await shopRows(shop)).toEqual(reinstalled);
  });
});

describe("compliance webhooks replayed under a new event id", () => {
  it("customers/redact: a replay does not delete what the app was given since", async () => {
    const shop = await installedShop();
    const redaction = { shop_id: 1, shop_domain: shop, customer: { id: 501 }, orders_to_redact: [1] };
    const first = await send("/webhooks/customers/redact", { topic: "customers/redact", shop, body: redaction });
    expect(first.status).toBe(200);
    // Later the customer asks what the shop holds on them.
    const asked = await send("/webhooks/customers/data_request", {
      topic: "customers/data_request",
      shop,
      body: { shop_id: 1, shop_domain: shop, customer: { id: 501 }, orders_requested: [], data_request: { id: 71 } },
    });
    expect(asked.status).toBe(200);
    expect(await prisma.dataRequest.count({ where: { shop, customerId: "501" } })).toBe(1);

    const replay = await send("/webhooks/customers/redact", {
      topic: "customers/redact",
      shop,
      body: redaction,
      eventId: "evt-forged",
    });
    expect(replay.status).toBe(200);
    expect(await prisma.dataRequest.count({ where: { shop, customerId: "501" } })).toBe(1);
  });

  it("customers/data_request: the same signed request is gathered once, whatever its event id", async () => {
    const shop = await installedShop();
    const body = {
      shop_id: 1,
      shop_domain: shop,
      customer: { id: 502 },
      orders_requested: [],
      data_request: { id: 72 },
    };
    for (const eventId of ["evt-dr-a", "evt-dr-b", "evt-dr-c"]) {
      const response = await send("/webhooks/customers/data_request", {
        topic: "customers/data_request",
        shop,
        body,
        eventId,
      });
      expect(response.status).toBe(200);
    }
    expect(await prisma.dataRequest.count({ where: { shop, customerId: "502" } })).toBe(1);
    // Another request of the same customer (its own data_request id) is gathered.
    const next = await send("/webhooks/customers/data_request", {
      topic: "customers/data_request",
      shop,
      body: { ...body, data_request: { id: 73 } },
    });
    expect(next.status).toBe(200);
    expect(await prisma.dataRequest.count({ where: { shop, customerId: "502" } })).toBe(2);
  });

  it("app/scopes_update: an older update, replayed or late, does not put back scopes since changed", async () => {
    const shop = await installedShop();
    const update = (current: string[], updatedAt: string) => ({
      id: 1,
      shop_id: "gid://shopify/Shop/1",
      previous: ["read_orders"],
      current,
      updated_at: updatedAt,
    });
    const older = update(["read_orders"], "2026-03-01T00:00:00.000Z");
    const newer = update(["read_orders", "write_orders"], "2026-03-02T00:00:00.000Z");
    const scope = async () => (await prisma.session.findUniqueOrThrow({ where: { id: `offline_${shop}` } })).scope;

    expect((await send("/webhooks/app/scopes_update", { topic: "app/scopes_update", shop, body: older })).status).toBe(
      200,
    );
    expect(await scope()).toBe("read_orders");
    expect((await send("/webhooks/app/scopes_update", { topic: "app/scopes_update", shop, body: newer })).status).toBe(
      200,
    );
    expect(await scope()).toBe("read_orders,write_orders");
    for (const eventId of ["evt-scopes-old", "evt-scopes-older"]) {
      const replay = await send("/webhooks/app/scopes_update", {
        topic: "app/scopes_update",
        shop,
        body: older,
        eventId,
      });
      expect(replay.status).toBe(200);
    }
    expect(await scope()).toBe("read_orders,write_orders");
  });
});

describe("the app's memory of handled lifecycle webhooks", () => {
  it("app/uninstalled delivered again, as Shopify retries or replayed under new headers, changes nothing", async () => {
    const shop = await installedShop();
    const body = { id: 1, name: shop, domain: shop, myshopify_domain: shop };
    expect(
      (await send("/webhooks/app/uninstalled", { topic: "app/uninstalled", shop, body, eventId: "evt-u" })).status,
    ).toBe(200);
    const uninstalledAt = (await prisma.shopSettings.findUniqueOrThrow({ where: { shop } })).uninstalledAt;
    expect(uninstalledAt).toBeInstanceOf(Date);
    for (const eventId of ["evt-u", "evt-u-forged"]) {
      const again = await send("/webhooks/app/uninstalled", {
        topic: "app/uninstalled",
        shop,
        body,
        eventId,
        triggeredAt: new Date(),
      });
      expect(again.status).toBe(200);
    }
    expect((await prisma.shopSettings.findUniqueOrThrow({ where: { shop } })).uninstalledAt).toEqual(uninstalledAt);
  });

  it("holds one row per signed body however often it is replayed, and forgets it after a year", async () => {
    // Imported here, so that the file's other tests run on code from before the memory existed.
    const { purgeLifecycleEvents } = await import("../../app/lifecycle/lifecycle-events.server");
    const shop = await installedShop();
    const body = { shop_id: 1, shop_domain: shop, customer: { id: 503 }, orders_to_redact: [] };
    for (let i = 0; i < 5; i += 1) {
      const response = await send("/webhooks/customers/redact", { topic: "customers/redact", shop, body });
      expect(response.status).toBe(200);
    }
    const rows = await prisma.lifecycleEvent.findMany({ where: { shop } });
    expect(rows).toEqual([expect.objectContaining({ topic: "customers/redact", outcome: "applied" })]);

    expect(await purgeLifecycleEvents(new Date(rows[0]!.receivedAt.getTime() + 364 * DAY))).toBe(0);
    expect(await prisma.lifecycleEvent.count({ where: { shop } })).toBe(1);
    expect(await purgeLifecycleEvents(new Date(rows[0]!.receivedAt.getTime() + 366 * DAY))).toBeGreaterThanOrEqual(1);
    expect(await prisma.lifecycleEvent.count({ where: { shop } })).toBe(0);
  });
});
