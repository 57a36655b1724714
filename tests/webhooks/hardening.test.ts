import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { MAX_KEPT_TEXT } from "../../app/verification/order-facts";
import { webhookHeaders } from "../../sandbox/shopify";
import { servePublicRoutes } from "../support/app-routes";
import { API_VERSION, deliver, TEST_SECRET } from "../support/deliver";
import { orderPayload, rowCounts, storeOfflineSession } from "../support/fixtures";
import type { RouteServer } from "../support/route-server";

const prisma = databaseClient();

// What an attacker tried against the running demo: webhooks the HMAC cannot vouch for (it signs
// the body alone), bodies too large to read, bodies too deep to store, amounts out of range.

let app: RouteServer;
beforeAll(async () => {
  app = await servePublicRoutes();
});
afterAll(() => app.close());

const settings = { clickServiceUrl: "https://clicks.example.com", apiKey: "ck_live_abcdef123456" };
const HOUR = 60 * 60 * 1000;

/**
 * POSTs a signed app/uninstalled headed body of `size` bytes, with its length declared or
 * chunked: the status and Connection header of the answer, or the error that came instead.
 */
function sendWhole(target: string, size: number, declared: boolean): Promise<{ status: number; connection?: string }> {
  const url = new URL(target);
  const headers: Record<string, string | number> = webhookHeaders({
    topic: "app/uninstalled",
    shop: "whole.myshopify.com",
    apiVersion: API_VERSION,
    body: "{}",
    secret: TEST_SECRET,
  });
  if (declared) headers["content-length"] = size;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
      },
    );
    // Writing what the server no longer reads fails once it has answered and closed: only an
    // error before any answer (a dropped connection) is the test's.
    req.on("error", reject);
    const chunk = Buffer.alloc(256 * 1024, "a");
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

async function seedShop(shop: string) {
  await saveSettings(shop, settings);
  await storeOfflineSession(shop);
  await deliver(app.url, "/webhooks/orders/create", { topic: "orders/create", shop, body: orderPayload() });
}

describe("body size", () => {
  it("refuses a body over the cap with 413 before checking (or reading) it, forged or not", async () => {
    const big = JSON.stringify({ id: 1, junk: "x".repeat(6 * 1024 * 1024) });
    for (const secret of ["forged", TEST_SECRET]) {
      const response = await deliver(app.url, "/webhooks/orders/create", {
        topic: "orders/create",
        shop: "big.myshopify.com",
        body: big,
        secret,
      });
      expect(response.status).toBe(413);
    }
    expect(await prisma.webhookDelivery.count({ where: { shop: "big.myshopify.com" } })).toBe(0);
  });

  it("answers a body over the cap on a Remix webhook route with 413 and closes the connection, never drops it", async () => {
    // Declared (refused before a byte is read) and chunked (refused once past the cap): either
    // way the rest of the body is left unread, and the answer ends the connection.
    for (const declared of [true, false]) {
      const answer = await sendWhole(`${app.url}/webhooks/app/uninstalled`, 6 * 1024 * 1024, declared);
      expect(answer, declared ? "declared" : "chunked").toEqual({ status: 413, connection: "close" });
    }
  });

  it("refuses a chunked body with no declared length once it passes the cap", async () => {
    const url = new URL(`${app.url}/webhooks/orders/create`);
    const headers = webhookHeaders({
      topic: "orders/create",
      shop: "chunked.myshopify.com",
      apiVersion: API_VERSION,
      body: "{}",
      secret: TEST_SECRET,
    });
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      const chunk = Buffer.alloc(256 * 1024, "a");
      let sent = 0;
      const pump = () => {
        while (sent < 8 * 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", pump);
        }
        req.end();
      };
      pump();
    });
    expect(status).toBe(413);
  });

  it("answers 405 to anything but POST", async () => {
    const response = await fetch(`${app.url}/webhooks/orders/create`, { method: "PUT", body: "{}" });
    expect(response.status).toBe(405);
  });
});

describe("what the signature does not cover", () => {
  it("a captured orders/create body replayed to shop/redact or app/uninstalled deletes nothing", async () => {
    const victim = "victim.myshopify.com";
    await seedShop(victim);
    const before = await rowCounts(victim);
    const captured = orderPayload();
    for (const [path, topic] of [
      ["/webhooks/shop/redact", "shop/redact"],
      ["/webhooks/app/uninstalled", "app/uninstalled"],
      ["/webhooks/customers/redact", "customers/redact"],
    ] as const) {
      // As captured (its own topic header), and with the header rewritten to the route's topic.
      const asSent = await deliver(app.url, path, { topic: "orders/create", shop: victim, body: captured });
      expect(asSent.status, `${path} as sent`).toBe(400);
      const rewritten = await deliver(app.url, path, { topic, shop: victim, body: captured });
      expect(rewritten.status, `${path} rewritten`).toBe(400);
      expect(await rewritten.text()).toMatch(/does not name its shop/);
    }
    expect(await rowCounts(victim)).toEqual(before);
    expect((await prisma.shopSettings.findUniqueOrThrow({ where: { shop: victim } })).uninstalledAt).toBeNull();
  });

  it("a redaction naming one shop under another shop's header is refused", async () => {
    const target = "target.myshopify.com";
    await seedShop(target);
    const before = await rowCounts(target);
    const response = await deliver(app.url, "/webhooks/shop/redact", {
      topic: "shop/redact",
      shop: target,
      body: { shop_id: 1, shop_domain: "attacker.myshopify.com" },
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/not the shop in the header/);
    expect(await rowCounts(target)).toEqual(before);
  });

  it("a destructive delivery more than a day old is refused; one within the day is honoured", async () => {
    const shop = "late.myshopify.com";
    await seedShop(shop);
    // Uninstalled two days ago (shop/redact for an installed shop is refused whatever its age).
    const uninstalled = await deliver(app.url, "/webhooks/app/uninstalled", {
      topic: "app/uninstalled",
      shop,
      body: { id: 1, myshopify_domain: shop },
    });
    expect(uninstalled.status).toBe(200);
    await prisma.shopSettings.update({ where: { shop }, data: { uninstalledAt: new Date(Date.now() - 48 * HOUR) } });
    const body = { shop_id: 1, shop_domain: shop };
    const stale = await deliver(app.url, "/webhooks/shop/redact", {
      topic: "shop/redact",
      shop,
      body,
      triggeredAt: new Date(Date.now() - 25 * HOUR),
    });
    expect(stale.status).toBe(400);
    expect(await prisma.verification.count({ where: { shop } })).toBe(1);
    const late = await deliver(app.url, "/webhooks/shop/redact", {
      topic: "shop/redact",
      shop,
      body,
      triggeredAt: new Date(Date.now() - 23 * HOUR),
    });
    expect(late.status).toBe(200);
    // Everything but the app's memory of the lifecycle webhooks it handled (decision 028).
    const { LifecycleEvent: memory, ...held } = await rowCounts(shop);
    expect(Object.values(held).every((count) => count === 0)).toBe(true);
    expect(memory).toBe(2);
  });

  it("app/uninstalled names its shop as myshopify_domain; a matching one is honoured", async () => {
    const shop = "leaving.myshopify.com";
    await seedShop(shop);
    const response = await deliver(app.url, "/webhooks/app/uninstalled", {
      topic: "app/uninstalled",
      shop,
      body: { id: 1, domain: "www.leaving.example", myshopify_domain: shop },
    });
    expect(response.status).toBe(200);
    expect(await prisma.session.count({ where: { shop } })).toBe(0);
  });
});

describe("bodies the app records but does not trust", () => {
  const shop = "hostile.myshopify.com";

  it("a signed body nested 10,000 deep is recorded as invalid with a slice of it, not a 500", async () => {
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    const response = await deliver(app.url, "/webhooks/orders/create", {
      topic: "orders/create",
      shop,
      body: deep,
      eventId: "evt-deep",
    });
    expect(response.status).toBe(200);
    const delivery = await prisma.webhookDelivery.findUniqueOrThrow({
      where: { shop_topic_eventId: { shop, topic: "orders/create", eventId: "evt-deep" } },
    });
    expect(delivery.status).toBe("invalid");
    expect(delivery.payload).toBe(deep.slice(0, 2_000));
  });

  it("keeps only the app's own cart attributes, each cut, however many a script stuffed in", async () => {
    const stuffed = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`junk_${i}`, "y"]));
    const payload = orderPayload({
      noteAttributes: { ...stuffed, _lb_click: "clk_1", _lb_tag: "t".repeat(1024 * 1024) },
    });
    const response = await deliver(app.url, "/webhooks/orders/create", { topic: "orders/create", shop, body: payload });
    expect(response.status).toBe(200);
    const row = await prisma.verification.findUniqueOrThrow({
      where: { shop_orderId: { shop, orderId: String(payload.id) } },
    });
    const facts = JSON.parse(row.orderFacts) as { cartAttributes: { name: string; value: string }[] };
    expect(facts.cartAttributes.map((a) => a.name).sort()).toEqual(["_lb_click", "_lb_tag"]);
    expect(facts.cartAttributes.find((a) => a.name === "_lb_tag")?.value).toHaveLength(MAX_KEPT_TEXT);
    expect(row.orderFacts.length).toBeLessThan(4 * MAX_KEPT_TEXT);
  });

  it("an order value below 0 or above the maximum is invalid before anything is asked", async () => {
    for (const [eventId, subtotal, reason] of [
      ["evt-negative", "-5", /subtotal_price must be a decimal amount of at least 0/],
      ["evt-huge", "60000000000000000", /subtotal_price must be a decimal amount of at least 0/],
      ["evt-over", "1000000000000.01", /subtotal_price must be at most 1000000000000/],
    ] as const) {
      const payload = { ...orderPayload(), subtotal_price: subtotal };
      const response = await deliver(app.url, "/webhooks/orders/create", {
        topic: "orders/create",
        shop,
        body: payload,
        eventId,
      });
      expect(response.status).toBe(200);
      const delivery = await prisma.webhookDelivery.findUniqueOrThrow({
        where: { shop_topic_eventId: { shop, topic: "orders/create", eventId } },
      });
      expect(delivery.status).toBe("invalid");
      expect(delivery.reason).toMatch(reason);
      expect(await prisma.verification.count({ where: { shop, orderId: String(payload.id) } })).toBe(0);
    }
  });
});
