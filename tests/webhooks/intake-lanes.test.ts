import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseClient, dialect } from "../../app/database/db.server";
import { servePublicRoutes } from "../support/app-routes";
import { deliver, TEST_SECRET, type Delivery } from "../support/deliver";
import { orderPayload, rowCounts } from "../support/fixtures";
import type { RouteServer } from "../support/route-server";

const prisma = databaseClient();

// The server answers intake topics on Node's own request (the lanes), in development as in
// production: each delivery gets the answer Shopify's retries expect, and only signed ones are
// recorded, once.

let lanes: RouteServer;
beforeAll(async () => {
  lanes = await servePublicRoutes();
});
afterAll(() => lanes.close());

const SHOP = "lanes.myshopify.com";

const order = (shop: string, body: unknown = orderPayload()): Delivery => ({ topic: "orders/create", shop, body });

describe("an intake lane", () => {
  const cases: [string, string, (shop: string) => Delivery, number][] = [
    ["a signed order", "/webhooks/orders/create", (shop) => order(shop), 200],
    ["a forged signature", "/webhooks/orders/create", (shop) => ({ ...order(shop), secret: "forged" }), 401],
    ["no signature", "/webhooks/orders/create", (shop) => ({ ...order(shop), hmac: null }), 400],
    ["an empty body", "/webhooks/orders/create", (shop) => ({ ...order(shop), body: "" }), 400],
    [
      "another topic's header",
      "/webhooks/orders/create",
      (shop) => ({ ...order(shop), headers: { "X-Shopify-Topic": "shop/redact" } }),
      400,
    ],
    [
      "a header that is not a shop domain",
      "/webhooks/orders/create",
      (shop) => ({ ...order(shop), headers: { "X-Shopify-Shop-Domain": `${shop}.evil.example` } }),
      400,
    ],
    ["a signed body that is not JSON", "/webhooks/orders/create", (shop) => order(shop, "{not json"), 200],
    [
      "a refund",
      "/webhooks/refunds/create",
      (shop) => ({ topic: "refunds/create", shop, body: { id: 77, order_id: 1, transactions: [] } }),
      200,
    ],
    [
      "a cancellation",
      "/webhooks/orders/cancelled",
      (shop) => ({ topic: "orders/cancelled", shop, body: { id: 78, cancelled_at: "2026-11-22T08:00:00Z" } }),
      200,
    ],
    [
      "an order edit",
      "/webhooks/orders/edited",
      (shop) => ({ topic: "orders/edited", shop, body: { order_edit: { id: 79, order_id: 1 } } }),
      200,
    ],
    [
      "an order edit under another topic's header",
      "/webhooks/orders/edited",
      (shop) => ({
        topic: "orders/edited",
        shop,
        body: { order_edit: { id: 80, order_id: 1 } },
        headers: { "X-Shopify-Topic": "orders/updated" },
      }),
      400,
    ],
  ];

  it.each(cases)("%s", async (_name, path, make, status) => {
    expect((await deliver(lanes.url, path, make(SHOP))).status).toBe(status);
  });

  it("records a delivery sent twice once", async () => {
    const shop = "twice.myshopify.com";
    const body = orderPayload();
    for (let time = 0; time < 2; time++) {
      const response = await deliver(lanes.url, "/webhooks/orders/create", {
        ...order(shop, body),
        eventId: "same-event",
      });
      expect(response.status).toBe(200);
    }
    expect((await rowCounts(shop)).WebhookDelivery).toBe(1);
  });

  it("recorded the signed deliveries above, and none of the refused ones", async () => {
    const signed = cases.filter(([, , , status]) => status === 200).length;
    expect((await rowCounts(SHOP)).WebhookDelivery).toBe(signed);
  });
});

describe("what only the lane's own body reading handles", () => {
  it("a client that goes away mid-body leaves nothing recorded and the server answering", async () => {
    const url = new URL(`${lanes.url}/webhooks/orders/create`);
    await new Promise<void>((resolve) => {
      const req = httpRequest({
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: { "content-length": "5000", "x-shopify-topic": "orders/create" },
      });
      req.on("error", () => resolve());
      req.write("{".repeat(100), () => {
        req.destroy();
        resolve();
      });
    });
    const after = await deliver(lanes.url, "/webhooks/orders/create", {
      ...order("gone.myshopify.com"),
      secret: TEST_SECRET,
    });
    expect(after.status).toBe(200);
    expect((await rowCounts("gone.myshopify.com")).WebhookDelivery).toBe(1);
  });

  it("a GET is refused with the method it takes", async () => {
    const response = await fetch(`${lanes.url}/webhooks/orders/create`);
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });
});

describe.runIf(dialect === "sqlite")("a SQLite database that cannot write (issue 35)", () => {
  it("answers every delivery 503 and stores nothing while writes fail, and records them once they succeed", async () => {
    const shop = "lanes-readonly.myshopify.com";
    const deliveries = [1, 2, 3].map((n) => order(shop, orderPayload({ id: 8_100_000 + n })));
    // What a full disk or a read-only file gives every write: an error from SQLite at once.
    await prisma.$executeRawUnsafe("PRAGMA query_only = 1");
    let refused: number[];
    try {
      refused = [];
      for (const delivery of deliveries)
        refused.push((await deliver(lanes.url, "/webhooks/orders/create", delivery)).status);
    } finally {
      await prisma.$executeRawUnsafe("PRAGMA query_only = 0");
    }
    expect(refused).toEqual([503, 503, 503]);
    expect(await prisma.verification.count({ where: { shop } })).toBe(0);
    // Shopify delivers them again.
    for (const delivery of deliveries)
      expect((await deliver(lanes.url, "/webhooks/orders/create", delivery)).status).toBe(200);
    expect(await prisma.verification.count({ where: { shop } })).toBe(3);
  });
});
