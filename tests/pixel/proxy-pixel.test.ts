import { describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { NEW_CLICKS_PER_CLIENT_PER_HOUR } from "../../app/pixel/record-report.server";
import { TOUCHES_PER_CART } from "../../app/landing/rate-limits.server";
import { signedProxyQuery } from "../../sandbox/storefront/app-proxy";
import { usePublicRoutes } from "../support/app-routes";
import { TEST_SECRET } from "../support/deliver";
import { checkoutReport, landingReport, sendPixelReport } from "../support/pixel";

const prisma = databaseClient();

// POST /proxy/pixel over real HTTP, signed as Shopify's app proxy signs and checked by the
// library's authenticate.public.appProxy: what the web pixel reports, and what it may not.

const app = usePublicRoutes("pixel");
const { newShop } = app;

const stored = async (shop: string) => ({
  sightings: await prisma.pixelSighting.count({ where: { shop } }),
  clicks: await prisma.clickRecord.count({ where: { shop } }),
  lookups: await prisma.job.count({ where: { shop, kind: "lookup-click" } }),
});

describe("a pixel report", () => {
  it("a landing and a checkout, signed: 202; the landing's click is queued for one lookup, as a touch's", async () => {
    const shop = await newShop();
    expect((await sendPixelReport(app.url, shop, landingReport("client-1", "clk_p1", "alice-20"))).status).toBe(202);
    expect((await sendPixelReport(app.url, shop, landingReport("client-1", "clk_p1", "honey-77"))).status).toBe(202);
    const checkout = checkoutReport("client-1", "820982911946154508", "clk_p1", "honey-77");
    expect((await sendPixelReport(app.url, shop, checkout)).status).toBe(202);
    const rows = await prisma.pixelSighting.findMany({ where: { shop }, orderBy: { seenAt: "asc" } });
    expect(rows.map((r) => [r.kind, r.clientId, r.clickId, r.tag, r.orderId])).toEqual([
      ["landing", "client-1", "clk_p1", "alice-20", null],
      ["landing", "client-1", "clk_p1", "honey-77", null],
      ["checkout", "client-1", "clk_p1", "honey-77", "820982911946154508"],
    ]);
    expect(await stored(shop)).toEqual({ sightings: 3, clicks: 1, lookups: 1 });
  });

  it("forged, stale or unsigned: 400 and nothing stored", async () => {
    const shop = await newShop();
    const report = landingReport("client-2", "clk_p2", "alice-20");
    expect((await sendPixelReport(app.url, shop, report, { secret: "not-the-secret" })).status).toBe(400);
    expect(
      (await sendPixelReport(app.url, shop, report, { timestamp: Math.trunc(Date.now() / 1000) - 120 })).status,
    ).toBe(400);
    expect((await sendPixelReport(app.url, shop, report, { unsigned: true })).status).toBe(400);
    expect(await stored(shop)).toEqual({ sightings: 0, clicks: 0, lookups: 0 });
  });

  it("signed for one shop and sent for another: 400 and nothing stored for either", async () => {
    const victim = await newShop();
    const signer = await newShop();
    const query = signedProxyQuery("", { shop: signer, apiSecret: TEST_SECRET });
    query.set("shop", victim);
    const response = await fetch(`${app.url}/proxy/pixel?${query.toString()}`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify(landingReport("client-3", "clk_p3", null)),
    });
    expect(response.status).toBe(400);
    expect(await stored(victim)).toEqual({ sightings: 0, clicks: 0, lookups: 0 });
    expect(await stored(signer)).toEqual({ sightings: 0, clicks: 0, lookups: 0 });
  });

  it("replayed: the same event again, however often and with a fresh signature, stores nothing more", async () => {
    const shop = await newShop();
    const checkout = checkoutReport("client-4", "1001", "clk_p4", "alice-20");
    expect((await sendPixelReport(app.url, shop, checkout)).status).toBe(202);
    const replays = await Promise.all(
      Array.from({ length: 3 }, () => sendPixelReport(app.url, shop, { ...checkout, clientId: "attacker-client" })),
    );
    expect(replays.map((r) => r.status)).toEqual([202, 202, 202]);
    const rows = await prisma.pixelSighting.findMany({ where: { shop } });
    expect(rows.map((r) => [r.eventId, r.clientId])).toEqual([[checkout.eventId, "client-4"]]);
  });

  it("what no pixel sends: 400 naming the field, nothing stored", async () => {
    const shop = await newShop();
    const landing = landingReport("client-5", "clk_p5", "alice-20");
    const bad: [unknown, string][] = [
      ["{not json", "the body is not JSON"],
      [{ ...landing, clickId: null, tag: null }, "a landing carries a clickId or a tag"],
      [{ ...landing, orderId: "12" }, "a landing carries no orderId"],
      [{ ...landing, kind: "checkout", orderId: null }, "a checkout carries an orderId"],
      [{ ...landing, kind: "purchase" }, 'kind must be "landing" or "checkout"'],
      [{ ...landing, clickId: "clk\u0000" }, "clickId contains control characters"],
      [{ ...landing, tag: " alice" }, "tag has surrounding spaces"],
      [{ ...landing, clientId: "a b" }, "clientId is not an id Shopify gives"],
      [{ ...landing, orderId: "gid://shopify/Order/1", kind: "checkout" }, "orderId is not an order id"],
      [{ ...landing, email: "someone@example.com" }, 'Unrecognized key: "email"'],
    ];
    for (const [body, error] of bad) {
      const response = await sendPixelReport(app.url, shop, typeof body === "string" ? body : JSON.stringify(body));
      expect([response.status, await response.json()]).toEqual([400, { ok: false, error }]);
    }
    const huge = await sendPixelReport(app.url, shop, JSON.stringify({ ...landing, tag: "x".repeat(5000) }));
    expect(huge.status).toBe(413);
    expect(await stored(shop)).toEqual({ sightings: 0, clicks: 0, lookups: 0 });
  });

  it("a flood from one visitor is limited as a cart's touches are: 429 with Retry-After, and no more stored", async () => {
    const shop = await newShop();
    const statuses: number[] = [];
    for (let i = 0; i < TOUCHES_PER_CART.limit + 5; i++) {
      const response = await sendPixelReport(app.url, shop, landingReport("flooder", "clk_flood", `t${i}`));
      statuses.push(response.status);
      if (response.status === 429) expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect(statuses.filter((s) => s === 202)).toHaveLength(TOUCHES_PER_CART.limit);
    expect(statuses.slice(TOUCHES_PER_CART.limit)).toEqual([429, 429, 429, 429, 429]);
    expect((await stored(shop)).sightings).toBe(TOUCHES_PER_CART.limit);
  });

  it("a visitor inventing click ids: at most NEW_CLICKS_PER_CLIENT_PER_HOUR looked up, the rest kept as claims", async () => {
    const shop = await newShop();
    const statuses: number[] = [];
    for (let i = 0; i < NEW_CLICKS_PER_CLIENT_PER_HOUR + 2; i++) {
      statuses.push((await sendPixelReport(app.url, shop, landingReport("inventor", `clk_made_up_${i}`, null))).status);
    }
    // Over the visitor's cap a landing is kept, unlooked-up, so that made-up ids posted first
    // cannot bury a real click after them (decision 047).
    expect(statuses.filter((s) => s === 202)).toHaveLength(NEW_CLICKS_PER_CLIENT_PER_HOUR + 2);
    expect(await stored(shop)).toEqual({
      sightings: NEW_CLICKS_PER_CLIENT_PER_HOUR + 2,
      clicks: NEW_CLICKS_PER_CLIENT_PER_HOUR,
      lookups: NEW_CLICKS_PER_CLIENT_PER_HOUR,
    });
  });

  it("a shop that has not set the app up keeps nothing", async () => {
    const response = await sendPixelReport(app.url, "never-configured.myshopify.com", landingReport("c", "clk", null));
    expect(response.status).toBe(202);
    expect(await stored("never-configured.myshopify.com")).toEqual({ sightings: 0, clicks: 0, lookups: 0 });
  });
});
