import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { Storefront } from "../../sandbox/storefront/server";
import { PixelVisitor } from "../../sandbox/storefront/web-pixel";
import { buildPixel, PIXEL_GZIP_BUDGET } from "../../scripts/build-extension";
import { servePublicRoutes } from "../support/app-routes";
import { TEST_SECRET } from "../support/deliver";
import type { RouteServer } from "../support/route-server";

const prisma = databaseClient();

// The web pixel's real bundle, run as Shopify's strict sandbox runs it (sandbox/storefront/web-pixel.ts),
// reporting through the stand-in storefront's app proxy, signed, to the app's /proxy/pixel.

const SHOP = "pixel-extension.myshopify.com";
let app: RouteServer;
let storefront: Storefront;
let bundle: string;

beforeAll(async () => {
  app = await servePublicRoutes();
  storefront = new Storefront({ shop: SHOP, appProxy: { appUrl: app.url, apiSecret: TEST_SECRET } });
  await storefront.start();
  bundle = (await buildPixel()).toString("utf8");
  expect(
    (await saveSettings(SHOP, { clickServiceUrl: "https://clicks.example.com", apiKey: "ck_live_abc123" })).ok,
  ).toBe(true);
});
afterAll(async () => {
  await storefront.stop();
  await app.close();
});

const visitor = (options: { marketingAllowed?: boolean; tagParams?: string[] } = {}) =>
  new PixelVisitor(bundle, {
    origin: storefront.origin,
    settings: { tagParams: JSON.stringify(options.tagParams ?? ["tag"]) },
    marketingAllowed: options.marketingAllowed,
  });

const sightingsOf = (clientId: string) =>
  prisma.pixelSighting.findMany({ where: { shop: SHOP, clientId }, orderBy: [{ seenAt: "asc" }, { orderId: "asc" }] });

describe("the web pixel", () => {
  it("is one small bundle, within its budget", async () => {
    const built = await buildPixel();
    expect(gzipSync(built).length).toBeLessThanOrEqual(PIXEL_GZIP_BUDGET);
    // Nothing a strict sandbox lacks: no page globals (the event's context.document is data).
    expect(built.toString("utf8")).not.toMatch(/(^|[^.\w])(window|document|localStorage)\b/);
  });

  it("reports a landing with a click id or a tag, and the completed checkout, and nothing for other pages", async () => {
    const v = visitor({ tagParams: ["ref", "tag"] });
    // Each page's report received before the next page, as a shopper's pages come seconds apart.
    v.pageViewed("/");
    v.pageViewed("/products/widget?lb_click=clk_px1&tag=creator-20&tag=honey-77");
    await v.settled();
    v.pageViewed("/cart");
    v.pageViewed("/products/other?ref=coupon-5"); // a tag alone: a coupon extension's redirect
    await v.settled();
    v.checkoutCompleted("4400000001", { _lb_click: "clk_px1", _lb_tag: "coupon-5", gift: "yes" }, "co-tok-1");
    await v.settled();
    expect(v.sent.map((s) => s.status)).toEqual([202, 202, 202]);
    expect((await sightingsOf(v.clientId)).map((s) => [s.kind, s.clickId, s.tag, s.orderId, s.checkoutToken])).toEqual([
      ["landing", "clk_px1", "honey-77", null, null],
      ["landing", null, "coupon-5", null, null],
      // The checkout's token: what binds the report to the order (orders/create's checkout_token).
      ["checkout", "clk_px1", "coupon-5", "4400000001", "co-tok-1"],
    ]);
    // Through the storefront's own origin and its app proxy, never straight to the app.
    expect(v.sent.every((s) => s.url === `${storefront.origin}/apps/tag-guard/pixel`)).toBe(true);
  });

  it("without marketing consent reports nothing, and reports once the visitor consents", async () => {
    const v = visitor({ marketingAllowed: false });
    v.pageViewed("/?lb_click=clk_px2&tag=alice-20");
    await v.settled();
    expect(v.sent).toEqual([]);
    v.consent(true);
    v.pageViewed("/?lb_click=clk_px2&tag=alice-20");
    await v.settled();
    expect((await sightingsOf(v.clientId)).map((s) => s.clickId)).toEqual(["clk_px2"]);
  });

  it("hostile URL values are cleaned to what the app accepts; a click id too long is not reported", async () => {
    const v = visitor();
    v.pageViewed(
      `/?lb_click=${encodeURIComponent(" clk_px3\u0000 ")}&tag=${encodeURIComponent("\u0007" + "t".repeat(600))}`,
    );
    v.pageViewed(`/?lb_click=${"x".repeat(300)}`);
    await v.settled();
    expect(v.sent.map((s) => s.status)).toEqual([202]);
    const [row] = await sightingsOf(v.clientId);
    expect([row?.clickId, row?.tag?.length]).toEqual(["clk_px3", 512]);
  });

  it("a checkout without our attributes is still reported, with its token; a token no checkout has is left out", async () => {
    const v = visitor();
    v.checkoutCompleted("4400000002", {}, "co-tok-2");
    v.checkoutCompleted("4400000003", {}, "not a token!");
    await v.settled();
    expect((await sightingsOf(v.clientId)).map((s) => [s.kind, s.clickId, s.orderId, s.checkoutToken])).toEqual([
      ["checkout", null, "4400000002", "co-tok-2"],
      ["checkout", null, "4400000003", null],
    ]);
  });
});
