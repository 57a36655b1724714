import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { purgeLandingRecord } from "../../app/landing/journey.server";
import { usePublicRoutes } from "../support/app-routes";
import { deliver } from "../support/deliver";
import { orderPayload } from "../support/fixtures";
import { sendTouch } from "../support/touch";

const prisma = databaseClient();

// The landing record keeps only what attribution needs, for as long as it can attribute, and
// answers Shopify's privacy webhooks like the rest of what the app holds.

const app = usePublicRoutes("landing-privacy");
const { newShop } = app;
const DAY = 24 * 60 * 60 * 1000;

/** A shopper who landed (two touches) and then ordered from that cart. */
async function shopperWhoOrdered(shop: string) {
  const cartToken = `c1-${randomBytes(8).toString("hex")}`;
  const clickId = `clk_${randomBytes(6).toString("hex")}`;
  for (const tag of ["alice-20", "honey-77"]) {
    expect((await sendTouch(app.url, shop, { clickId, tag, cartToken })).status).toBe(202);
  }
  const payload = { ...orderPayload(), cart_token: cartToken };
  expect(
    (await deliver(app.url, "/webhooks/orders/create", { topic: "orders/create", shop, body: payload })).status,
  ).toBe(200);
  return { cartToken, clickId, orderId: payload.id };
}

describe("privacy webhooks", () => {
  it("customers/data_request includes the landing touches of the customer's orders", async () => {
    const shop = await newShop();
    const mine = await shopperWhoOrdered(shop);
    await shopperWhoOrdered(shop);
    const body = { shop_id: 1, shop_domain: shop, customer: { id: 7 }, orders_requested: [mine.orderId] };
    expect(
      (await deliver(app.url, "/webhooks/customers/data_request", { topic: "customers/data_request", shop, body }))
        .status,
    ).toBe(200);
    const request = await prisma.dataRequest.findFirstOrThrow({ where: { shop, customerId: "7" } });
    const data = JSON.parse(request.data) as { landingTouches: { cartToken: string; clickId: string; tag: string }[] };
    expect(data.landingTouches.map((t) => [t.cartToken, t.clickId, t.tag])).toEqual([
      [mine.cartToken, mine.clickId, "alice-20"],
      [mine.cartToken, mine.clickId, "honey-77"],
    ]);
  });

  it("customers/redact deletes the touches of the customer's carts and their click records, and no one else's", async () => {
    const shop = await newShop();
    const mine = await shopperWhoOrdered(shop);
    const theirs = await shopperWhoOrdered(shop);
    const body = { shop_id: 1, shop_domain: shop, customer: { id: 8 }, orders_to_redact: [mine.orderId] };
    expect(
      (await deliver(app.url, "/webhooks/customers/redact", { topic: "customers/redact", shop, body })).status,
    ).toBe(200);
    expect(await prisma.landingTouch.count({ where: { shop, cartToken: mine.cartToken } })).toBe(0);
    expect(await prisma.clickRecord.count({ where: { shop, clickId: mine.clickId } })).toBe(0);
    expect(await prisma.landingTouch.count({ where: { shop, cartToken: theirs.cartToken } })).toBe(2);
    expect(await prisma.clickRecord.count({ where: { shop, clickId: theirs.clickId } })).toBe(1);
  });
});

describe("retention", () => {
  it("deletes touches and click records older than each shop's attribution window, and keeps the rest", async () => {
    const short = await newShop();
    await prisma.shopSettings.update({ where: { shop: short }, data: { attributionWindowDays: 2 } });
    const long = await newShop();
    await shopperWhoOrdered(short);
    await shopperWhoOrdered(long);
    const counts = async (shop: string) => [
      await prisma.landingTouch.count({ where: { shop } }),
      await prisma.clickRecord.count({ where: { shop } }),
    ];
    await purgeLandingRecord(new Date(Date.now() + DAY));
    expect(await counts(short)).toEqual([2, 1]);
    await purgeLandingRecord(new Date(Date.now() + 3 * DAY));
    expect(await counts(short)).toEqual([0, 0]);
    expect(await counts(long)).toEqual([2, 1]);
    await purgeLandingRecord(new Date(Date.now() + 31 * DAY));
    expect(await counts(long)).toEqual([0, 0]);
  });
});
