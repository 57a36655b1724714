import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servePublicRoutes } from "../support/app-routes";
import { deliver, TEST_SECRET, type Delivery } from "../support/deliver";
import { orderPayload, rowCounts } from "../support/fixtures";
import type { RouteServer } from "../support/route-server";

// The production server answers intake topics on Node's own request (the lanes); the
// development server answers them through Remix's routes. Both must answer every delivery
// alike and record the same rows: the same deliveries go to each, in a shop of its own.

let lanes: RouteServer;
let remix: RouteServer;
beforeAll(async () => {
  [lanes, remix] = await Promise.all([servePublicRoutes(), servePublicRoutes({ remixOnly: true })]);
});
afterAll(() => Promise.all([lanes.close(), remix.close()]));

interface Answer {
  status: number;
  text: string;
  allow: string | null;
}

async function answer(response: Response): Promise<Answer> {
  return { status: response.status, text: await response.text(), allow: response.headers.get("allow") };
}

/** What each server answers to the delivery made for its own shop. */
async function both(path: string, make: (shop: string) => Delivery): Promise<{ lane: Answer; remix: Answer }> {
  const [lane, viaRemix] = await Promise.all([
    deliver(lanes.url, path, make("lanes.myshopify.com")).then(answer),
    deliver(remix.url, path, make("remix.myshopify.com")).then(answer),
  ]);
  return { lane, remix: viaRemix };
}

const order = (shop: string, body: unknown = orderPayload()): Delivery => ({ topic: "orders/create", shop, body });

describe("an intake lane and its Remix route answer alike", () => {
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
  ];

  it.each(cases)("%s", async (_name, path, make, status) => {
    const { lane, remix: viaRemix } = await both(path, make);
    expect(lane).toEqual(viaRemix);
    expect(lane.status).toBe(status);
  });

  it("a delivery sent twice is recorded once by either", async () => {
    const body = orderPayload();
    for (let time = 0; time < 2; time++) {
      const { lane, remix: viaRemix } = await both("/webhooks/orders/create", (shop) => ({
        ...order(shop, body),
        eventId: "same-event",
      }));
      expect([lane.status, viaRemix.status]).toEqual([200, 200]);
    }
  });

  it("every delivery above left the same rows behind in each shop", async () => {
    expect(await rowCounts("lanes.myshopify.com")).toEqual(await rowCounts("remix.myshopify.com"));
    expect((await rowCounts("lanes.myshopify.com")).WebhookDelivery).toBeGreaterThan(0);
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

  it("a GET goes past the lane to the route, which refuses it", async () => {
    const response = await fetch(`${lanes.url}/webhooks/orders/create`);
    expect(response.status).toBe(405);
  });
});
