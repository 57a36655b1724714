import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { purgeLandingRecord } from "../../app/landing/journey.server";
import { registry } from "../../app/metrics/registry.server";
import { sourceOf } from "../../app/platform/network-source";
import { networkSourceHash, orderSource } from "../../app/platform/network-source-hash.server";
import { usePublicRoutes } from "../support/app-routes";
import { deliver } from "../support/deliver";
import { orderPayload } from "../support/fixtures";
import { sendTouch } from "../support/touch";

// The shopper's network source (decision 047, docs/privacy.md): kept only as a keyed hash, per
// shop, never in clear, never logged or counted, for the attribution window only, and removed by
// customers/redact (shop/redact deletes every row it is kept on: tests/webhooks/webhooks.test.ts).

const prisma = databaseClient();
const app = usePublicRoutes("network-source");
const { newShop } = app;
const DAY = 24 * 60 * 60 * 1000;
const AGENT = "Mozilla/5.0 (iPhone; CPU iPhone OS 19_1 like Mac OS X) Safari/604.1";

afterEach(() => vi.restoreAllMocks());

async function touchFrom(shop: string, address: string, userAgent = AGENT) {
  const cartToken = `c-${randomBytes(8).toString("hex")}`;
  const clickId = `clk_${randomBytes(6).toString("hex")}`;
  const response = await sendTouch(app.url, shop, { clickId, tag: "alice-20", cartToken }, { address, userAgent });
  expect(response.status).toBe(202);
  return prisma.landingTouch.findFirstOrThrow({ where: { shop, cartToken } });
}

/** A click's arrival from a shopper who declined tracking: no cart, only the click and its source. */
async function arrivalFrom(shop: string, address: string) {
  const clickId = `clk_${randomBytes(6).toString("hex")}`;
  const response = await sendTouch(
    app.url,
    shop,
    { clickId, tag: null, cartToken: null },
    { address, userAgent: AGENT },
  );
  expect(response.status).toBe(202);
}

/** An order placed from `address` (Shopify's browser_ip and client_details), on a cart of its own. */
async function orderFrom(shop: string, address: string) {
  const payload = {
    ...orderPayload(),
    cart_token: `c-${randomBytes(8).toString("hex")}`,
    browser_ip: address,
    client_details: { browser_ip: address, user_agent: AGENT },
  };
  const response = await deliver(app.url, "/webhooks/orders/create", { topic: "orders/create", shop, body: payload });
  expect(response.status).toBe(200);
  return prisma.verification.findFirstOrThrow({ where: { shop, orderId: String(payload.id) } });
}

describe("the network source", () => {
  it("is a keyed hash, the same for one shopper within a shop and another in another shop, never the address", async () => {
    const [one, two] = [await newShop(), await newShop()];
    const address = "198.51.100.23";
    const first = await touchFrom(one, address);
    const again = await touchFrom(one, address);
    const elsewhere = await touchFrom(two, address);
    const otherBrowser = await touchFrom(one, address, "Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0.0.0");
    expect(first.source).toBe(networkSourceHash(one, address, AGENT));
    expect(again.source).toBe(first.source);
    expect(elsewhere.source).not.toBe(first.source);
    expect(otherBrowser.source).not.toBe(first.source);
    expect(first.source).not.toContain(address);
    expect(first.source).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // One subscriber's IPv6 /64 is one source, as the rate limits count it.
    const v6 = await touchFrom(one, "2001:db8:aa:1::5");
    expect((await touchFrom(one, "2001:db8:aa:1:ffff::9")).source).toBe(v6.source);
    // The order's source, from Shopify's browser_ip and user agent, is the same value.
    expect((await orderFrom(one, address)).networkSource).toBe(first.source);
    expect(orderSource(one, address, AGENT)).toBe(networkSourceHash(one, sourceOf(address), AGENT));
  });

  it("reaches neither the logs nor the metrics", async () => {
    const shop = await newShop();
    const address = "198.51.100.77";
    const written: string[] = [];
    for (const stream of [process.stdout, process.stderr])
      vi.spyOn(stream, "write").mockImplementation((chunk: string | Uint8Array) => {
        written.push(String(chunk));
        return true;
      });
    const touch = await touchFrom(shop, address);
    const order = await orderFrom(shop, address);
    vi.restoreAllMocks();
    const metrics = await registry.metrics();
    for (const text of [written.join(""), metrics]) {
      expect(text).not.toContain(address);
      expect(text).not.toContain(touch.source!);
      expect(text).not.toContain(order.networkSource!);
    }
  });

  it("is dropped with the attribution window: touches deleted, the order's cleared", async () => {
    const shop = await newShop();
    await prisma.shopSettings.update({ where: { shop }, data: { attributionWindowDays: 2 } });
    await touchFrom(shop, "198.51.100.5");
    await arrivalFrom(shop, "198.51.100.5");
    const order = await orderFrom(shop, "198.51.100.5");
    expect(order.networkSource).not.toBeNull();
    await purgeLandingRecord(new Date(Date.now() + DAY));
    expect((await prisma.verification.findUniqueOrThrow({ where: { id: order.id } })).networkSource).not.toBeNull();
    await purgeLandingRecord(new Date(Date.now() + 3 * DAY));
    expect(await prisma.landingTouch.count({ where: { shop } })).toBe(0);
    expect((await prisma.verification.findUniqueOrThrow({ where: { id: order.id } })).networkSource).toBeNull();
  });

  it("customers/redact clears the orders' and deletes every report made from it, and no one else's", async () => {
    const shop = await newShop();
    const mine = "198.51.100.31";
    const theirs = "198.51.100.32";
    await touchFrom(shop, mine);
    await touchFrom(shop, mine);
    await arrivalFrom(shop, mine);
    await touchFrom(shop, theirs);
    await arrivalFrom(shop, theirs);
    const order = await orderFrom(shop, mine);
    const body = { shop_id: 1, shop_domain: shop, customer: { id: 9 }, orders_to_redact: [order.orderId] };
    const response = await deliver(app.url, "/webhooks/customers/redact", { topic: "customers/redact", shop, body });
    expect(response.status).toBe(200);
    expect((await prisma.verification.findUniqueOrThrow({ where: { id: order.id } })).networkSource).toBeNull();
    expect(await prisma.landingTouch.count({ where: { shop, source: order.networkSource! } })).toBe(0);
    expect(await prisma.landingTouch.count({ where: { shop, source: networkSourceHash(shop, theirs, AGENT) } })).toBe(
      2,
    );
  });
});
