import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { TOUCHES_PER_CART } from "../../app/landing/rate-limits.server";
import { NEW_CLICKS_PER_CART_PER_HOUR, NEW_CLICKS_PER_LOOKUP } from "../../app/landing/record-touch.server";
import { usePublicRoutes } from "../support/app-routes";
import { appProxySignature, signedProxyQuery } from "../../sandbox/storefront/app-proxy";
import { TEST_SECRET } from "../support/deliver";
import { sendTouch } from "../support/touch";

const prisma = databaseClient();

// POST /proxy/touch over real HTTP, signed as Shopify's app proxy signs and checked by the
// library's authenticate.public.appProxy.

const app = usePublicRoutes("landing");
const { newShop } = app;

const stored = async (shop: string) => ({
  touches: await prisma.landingTouch.count({ where: { shop } }),
  clicks: await prisma.clickRecord.count({ where: { shop } }),
  lookups: await prisma.job.count({ where: { shop, kind: "lookup-click" } }),
});

const cart = () => `c1-${randomBytes(12).toString("hex")}`;

describe("a touch", () => {
  it("signed: answered 202 at once; the touch is kept and the click is queued for one lookup", async () => {
    const shop = await newShop();
    const cartToken = cart();
    const response = await sendTouch(app.url, shop, { clickId: "clk_1", tag: "alice-20", cartToken });
    expect(response.status).toBe(202);
    expect(await sendTouch(app.url, shop, { clickId: "clk_1", tag: "honey-77", cartToken })).toHaveProperty(
      "status",
      202,
    );
    const touches = await prisma.landingTouch.findMany({ where: { shop }, orderBy: { seenAt: "asc" } });
    expect(touches.map((t) => [t.cartToken, t.clickId, t.tag])).toEqual([
      [cartToken, "clk_1", "alice-20"],
      [cartToken, "clk_1", "honey-77"],
    ]);
    const record = await prisma.clickRecord.findUniqueOrThrow({ where: { shop_clickId: { shop, clickId: "clk_1" } } });
    expect(record.state).toBe("pending");
    const job = await prisma.job.findUniqueOrThrow({
      where: { kind_subject: { kind: "lookup-click", subject: record.id } },
    });
    expect(job.state).toBe("queued");
    expect(await stored(shop)).toEqual({ touches: 2, clicks: 1, lookups: 1 });
  });

  it("a click's arrival without a cart (tracking declined): kept with no cart, its click looked up once", async () => {
    const shop = await newShop();
    const arrival = { clickId: "clk_declined", tag: "alice-20", cartToken: null };
    expect((await sendTouch(app.url, shop, arrival)).status).toBe(202);
    expect((await sendTouch(app.url, shop, arrival)).status).toBe(202);
    const touches = await prisma.landingTouch.findMany({ where: { shop } });
    expect(touches.map((t) => [t.cartToken, t.clickId, t.tag])).toEqual([
      [null, "clk_declined", "alice-20"],
      [null, "clk_declined", "alice-20"],
    ]);
    expect(await stored(shop)).toEqual({ touches: 2, clicks: 1, lookups: 1 });
  });

  it("forged, stale or unsigned: 400 and nothing stored", async () => {
    const shop = await newShop();
    const body = { clickId: "clk_2", tag: null, cartToken: cart() };
    expect((await sendTouch(app.url, shop, body, { secret: "not-the-secret" })).status).toBe(400);
    const stale = Math.trunc(Date.now() / 1000) - 120;
    expect((await sendTouch(app.url, shop, body, { timestamp: stale })).status).toBe(400);
    expect((await sendTouch(app.url, shop, body, { unsigned: true })).status).toBe(400);
    expect(await stored(shop)).toEqual({ touches: 0, clicks: 0, lookups: 0 });
  });

  it("a query signed for one shop with another shop put in front of it: 400 and nothing stored", async () => {
    const victim = await newShop();
    const signer = await newShop();
    const query = signedProxyQuery("", { shop: signer, apiSecret: TEST_SECRET });
    const response = await fetch(`${app.url}/proxy/touch?shop=${victim}&${query.toString()}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ clickId: "clk_dup", tag: null, cartToken: cart() }),
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatch(/exactly one shop/);
    expect(await stored(victim)).toEqual({ touches: 0, clicks: 0, lookups: 0 });
    expect(await stored(signer)).toEqual({ touches: 0, clicks: 0, lookups: 0 });
  });

  it("refuses what cannot be a touch, with a clear error", async () => {
    const shop = await newShop();
    const cartToken = cart();
    for (const [body, status, error] of [
      ["{not json", 400, /not JSON/],
      [{ clickId: "clk\u0000x", tag: null, cartToken }, 400, /control characters/],
      [{ clickId: "clk\u0085x", tag: null, cartToken }, 400, /control characters/],
      [{ clickId: "clk_3", tag: "tag\u007f", cartToken }, 400, /control characters/],
      // JSON.stringify writes a lone surrogate as its \ud800 escape, which JSON.parse turns back into one.
      [{ clickId: "clk_3", tag: "alice-\ud800", cartToken }, 400, /tag is not well-formed text/],
      [{ clickId: "clk\udc00", tag: null, cartToken }, 400, /clickId is not well-formed text/],
      ['{"clickId":"clk_3","tag":"\\udbff","cartToken":"' + cartToken + '"}', 400, /lone surrogate/],
      [{ clickId: "c".repeat(257), tag: null, cartToken }, 400, /longer than 256/],
      [{ clickId: "clk_3", tag: "t".repeat(513), cartToken }, 400, /longer than 512/],
      [{ clickId: "clk_3", tag: null, cartToken: "abc?key=secret" }, 400, /not a cart token/],
      [{ clickId: "clk_3", tag: null }, 400, /cart token/],
      [JSON.stringify({ clickId: "clk_3", tag: "x".repeat(5_000), cartToken }), 413, /too large/],
    ] as const) {
      const response = await sendTouch(app.url, shop, body as never);
      expect(response.status, JSON.stringify(body).slice(0, 60)).toBe(status);
      expect((await response.json()).error).toMatch(error);
    }
    expect((await fetch(`${app.url}/proxy/touch`)).status).toBe(405);
    expect(await stored(shop)).toEqual({ touches: 0, clicks: 0, lookups: 0 });
  });

  it("keeps an emoji whole: a surrogate pair is text", async () => {
    const shop = await newShop();
    const response = await sendTouch(app.url, shop, {
      clickId: "clk_emoji",
      tag: "alice-\u{1f600}",
      cartToken: cart(),
    });
    expect(response.status).toBe(202);
    expect((await prisma.landingTouch.findFirstOrThrow({ where: { shop } })).tag).toBe("alice-\u{1f600}");
  });

  it("refuses a query Shopify's proxy could not have sent: 400 with a reason, nothing stored", async () => {
    const shop = await newShop();
    const now = Math.trunc(Date.now() / 1000);
    const body = JSON.stringify({ clickId: "clk_q", tag: null, cartToken: cart() });
    /** The query as given, signed under the app's secret exactly as Shopify signs one. */
    const signed = (params: [string, string][]) => {
      const query = new URLSearchParams(params);
      query.set("signature", appProxySignature(query, TEST_SECRET));
      return query;
    };
    const base = (timestamp: string | null, forShop = shop): [string, string][] => [
      ["shop", forShop],
      ["logged_in_customer_id", ""],
      ["path_prefix", "/apps/tag-guard"],
      ...(timestamp === null ? [] : ([["timestamp", timestamp]] as [string, string][])),
    ];
    for (const [query, error] of [
      [signed(base(null)), /one timestamp/],
      [signed(base("soon")), /one timestamp/],
      [signed(base(`${now}.5`)), /one timestamp/],
      [signed(base("")), /one timestamp/],
      [signed([...base(String(now)), ["timestamp", String(now)]]), /one timestamp/],
      [signed(base(String(now - 91))), /more than 90 seconds/],
      [signed(base(String(now - 86_400 * 365))), /more than 90 seconds/],
      [signed(base(String(now + 120))), /more than 90 seconds/],
      [signed([...base(String(now)), ["note", "a\u0007b"]]), /control characters/],
    ] as const) {
      const response = await fetch(`${app.url}/proxy/touch?${query.toString()}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      expect(response.status, query.toString()).toBe(400);
      expect((await response.json()).error, query.toString()).toMatch(error);
    }
    expect(await stored(shop)).toEqual({ touches: 0, clicks: 0, lookups: 0 });
    // Within the window either way, it is a touch.
    const fresh = await fetch(`${app.url}/proxy/touch?${signed(base(String(now - 60))).toString()}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(fresh.status).toBe(202);
  });

  it("a correctly signed call for a shop that is not a shop domain: 400, not the library's 500", async () => {
    for (const shop of [
      "evil.example",
      "Landing-Shop.myshopify.com",
      "landing-1.myshopify.com\u0000",
      "a.myshopify.com.evil.example",
    ]) {
      const response = await sendTouch(app.url, shop, { clickId: "clk_s", tag: null, cartToken: cart() });
      expect(response.status, shop).toBe(400);
      expect((await response.json()).error, shop).toMatch(/not a myshopify.com domain/);
    }
    expect(await prisma.landingTouch.count({ where: { clickId: "clk_s" } })).toBe(0);
  });

  it("keeps nothing for a shop that has not set the app up", async () => {
    const shop = "never-configured.myshopify.com";
    expect((await sendTouch(app.url, shop, { clickId: "clk_4", tag: null, cartToken: cart() })).status).toBe(202);
    expect(await stored(shop)).toEqual({ touches: 0, clicks: 0, lookups: 0 });
  });
});

describe("abuse limits", () => {
  it("300 signed calls carrying 300 random click ids from 3 carts cause at most 30 lookups", async () => {
    const shop = await newShop();
    const carts = [cart(), cart(), cart()];
    const statuses: number[] = [];
    for (let i = 0; i < 300; i += 1) {
      const clickId = `clk_${randomBytes(8).toString("hex")}`;
      statuses.push((await sendTouch(app.url, shop, { clickId, tag: "x", cartToken: carts[i % 3]! })).status);
    }
    const { lookups, clicks, touches } = await stored(shop);
    expect(lookups).toBe(3 * NEW_CLICKS_PER_CART_PER_HOUR);
    expect(clicks).toBe(3 * NEW_CLICKS_PER_CART_PER_HOUR);
    // Over a cart's cap a touch is kept, unlooked-up (decision 047); each cart's minute limit
    // refuses the rest with 429.
    expect(touches).toBe(3 * TOUCHES_PER_CART.limit);
    expect(statuses.filter((s) => s === 202)).toHaveLength(3 * TOUCHES_PER_CART.limit);
    expect(statuses.filter((s) => s === 429)).toHaveLength(300 - 3 * TOUCHES_PER_CART.limit);
  });

  it("made-up ids posted first cannot bury the real click after them: over the cap it is kept as a claim, unlooked-up", async () => {
    const shop = await newShop();
    const cartToken = cart();
    for (let i = 0; i < NEW_CLICKS_PER_CART_PER_HOUR; i += 1) {
      expect((await sendTouch(app.url, shop, { clickId: `clk_${i}`, tag: null, cartToken })).status).toBe(202);
    }
    expect((await sendTouch(app.url, shop, { clickId: "clk_real", tag: "alice-20", cartToken })).status).toBe(202);
    expect(await prisma.landingTouch.count({ where: { shop, cartToken, clickId: "clk_real" } })).toBe(1);
    expect(await prisma.clickRecord.count({ where: { shop, clickId: "clk_real" } })).toBe(0);
    expect((await sendTouch(app.url, shop, { clickId: "clk_0", tag: "later-tag", cartToken })).status).toBe(202);
    expect(await stored(shop)).toMatchObject({ clicks: NEW_CLICKS_PER_CART_PER_HOUR });
  });

  it("a shop takes at most ten times its lookups per hour in new clicks, across carts", async () => {
    const shop = await newShop({ landingLookupsPerHour: 10 });
    const statuses: number[] = [];
    for (let i = 0; i < NEW_CLICKS_PER_LOOKUP * 10 + 2; i += 1) {
      statuses.push((await sendTouch(app.url, shop, { clickId: `clk_${i}`, tag: null, cartToken: cart() })).status);
    }
    expect(statuses.slice(0, NEW_CLICKS_PER_LOOKUP * 10).every((s) => s === 202)).toBe(true);
    expect(statuses.slice(NEW_CLICKS_PER_LOOKUP * 10)).toEqual([429, 429]);
    expect((await stored(shop)).lookups).toBe(NEW_CLICKS_PER_LOOKUP * 10);
  });

  it("one cart touching too fast, and one address calling too fast, are slowed down (429)", async () => {
    const shop = await newShop();
    const cartToken = cart();
    const perCart: number[] = [];
    for (let i = 0; i < 65; i += 1) {
      perCart.push((await sendTouch(app.url, shop, { clickId: "clk_same", tag: `t${i}`, cartToken })).status);
    }
    expect(perCart.filter((s) => s === 429).length).toBe(5);

    const perAddress: number[] = [];
    for (let i = 0; i < 125; i += 1) {
      const body = { clickId: "clk_other", tag: null, cartToken: cart() };
      perAddress.push((await sendTouch(app.url, shop, body, { address: "203.0.113.9" })).status);
    }
    expect(perAddress.filter((s) => s === 429).length).toBe(5);

    // Arrivals without a cart count against their address alone.
    const arrivals: number[] = [];
    for (let i = 0; i < 125; i += 1) {
      const body = { clickId: `clk_arrival_${i}`, tag: null, cartToken: null };
      arrivals.push((await sendTouch(app.url, shop, body, { address: "203.0.113.10" })).status);
    }
    expect(arrivals.filter((s) => s === 429).length).toBe(5);
  });

  it("the address counted is the one Shopify's proxy appended, and only within its shop", async () => {
    const shop = await newShop();
    const other = await newShop();
    const statuses: number[] = [];
    for (let i = 0; i < 125; i += 1) {
      // The shopper's client writes what it likes before Shopify's entry.
      const address = `10.0.${i >> 8}.${i & 255}, 203.0.113.77`;
      const body = { clickId: "clk_rotating", tag: null, cartToken: cart() };
      statuses.push((await sendTouch(app.url, shop, body, { address })).status);
    }
    expect(statuses.filter((s) => s === 429).length).toBe(5);
    const elsewhere = { clickId: "clk_rotating", tag: null, cartToken: cart() };
    expect((await sendTouch(app.url, other, elsewhere, { address: "203.0.113.77" })).status).toBe(202);
  });
});
