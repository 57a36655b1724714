import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { purgePixelSightings } from "../../app/pixel/sightings.server";
import { usePublicRoutes } from "../support/app-routes";
import { deliver } from "../support/deliver";
import { orderPayload } from "../support/fixtures";
import { checkoutReport, landingReport, sendPixelReport } from "../support/pixel";

const prisma = databaseClient();

// The pixel's reports answer Shopify's privacy webhooks as the landing touches do, and are kept
// only for the attribution window.

const app = usePublicRoutes("pixel-privacy");
const { newShop } = app;
const DAY = 24 * 60 * 60 * 1000;

/** A visitor the pixel saw land (a click, then a swapped tag alone) and check out. */
async function visitorWhoOrdered(shop: string) {
  const clientId = `client-${randomBytes(8).toString("hex")}`;
  const clickId = `clk_${randomBytes(6).toString("hex")}`;
  const payload = orderPayload();
  const reports = [
    landingReport(clientId, clickId, "alice-20"),
    { ...landingReport(clientId, clickId, "honey-77"), clickId: null },
    checkoutReport(clientId, String(payload.id), clickId, "honey-77"),
  ];
  for (const report of reports) {
    expect((await sendPixelReport(app.url, shop, report)).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 3)); // page views, not one instant
  }
  expect(
    (await deliver(app.url, "/webhooks/orders/create", { topic: "orders/create", shop, body: payload })).status,
  ).toBe(200);
  return { clientId, clickId, orderId: payload.id };
}

describe("privacy webhooks", () => {
  it("customers/data_request includes what the pixel reported of the order's visitor, and no one else's", async () => {
    const shop = await newShop();
    const mine = await visitorWhoOrdered(shop);
    await visitorWhoOrdered(shop);
    const body = { shop_id: 1, shop_domain: shop, customer: { id: 7 }, orders_requested: [mine.orderId] };
    expect(
      (await deliver(app.url, "/webhooks/customers/data_request", { topic: "customers/data_request", shop, body }))
        .status,
    ).toBe(200);
    const request = await prisma.dataRequest.findFirstOrThrow({ where: { shop, customerId: "7" } });
    const data = JSON.parse(request.data) as {
      pixelReports: { kind: string; clientId: string; clickId: string | null; tag: string; orderId: string | null }[];
    };
    expect(data.pixelReports.map((r) => [r.kind, r.clientId, r.clickId, r.tag, r.orderId])).toEqual([
      ["landing", mine.clientId, mine.clickId, "alice-20", null],
      ["landing", mine.clientId, null, "honey-77", null],
      ["checkout", mine.clientId, mine.clickId, "honey-77", String(mine.orderId)],
    ]);
  });

  it("customers/redact deletes the visitor's reports and their click records, and no one else's", async () => {
    const shop = await newShop();
    const mine = await visitorWhoOrdered(shop);
    const theirs = await visitorWhoOrdered(shop);
    const body = { shop_id: 1, shop_domain: shop, customer: { id: 8 }, orders_to_redact: [mine.orderId] };
    expect(
      (await deliver(app.url, "/webhooks/customers/redact", { topic: "customers/redact", shop, body })).status,
    ).toBe(200);
    expect(await prisma.pixelSighting.count({ where: { shop, clientId: mine.clientId } })).toBe(0);
    expect(await prisma.clickRecord.count({ where: { shop, clickId: mine.clickId } })).toBe(0);
    expect(await prisma.pixelSighting.count({ where: { shop, clientId: theirs.clientId } })).toBe(3);
    expect(await prisma.clickRecord.count({ where: { shop, clickId: theirs.clickId } })).toBe(1);
    const verification = await prisma.verification.findUniqueOrThrow({
      where: { shop_orderId: { shop, orderId: String(mine.orderId) } },
    });
    expect(verification.witnesses).toBeNull();
  });
});

describe("retention", () => {
  it("deletes reports older than each shop's attribution window, and keeps the rest", async () => {
    const short = await newShop();
    await prisma.shopSettings.update({ where: { shop: short }, data: { attributionWindowDays: 2 } });
    const long = await newShop();
    await visitorWhoOrdered(short);
    await visitorWhoOrdered(long);
    const count = (shop: string) => prisma.pixelSighting.count({ where: { shop } });
    await purgePixelSightings(new Date(Date.now() + DAY));
    expect(await count(short)).toBe(3);
    await purgePixelSightings(new Date(Date.now() + 3 * DAY));
    expect(await count(short)).toBe(0);
    expect(await count(long)).toBe(3);
    await purgePixelSightings(new Date(Date.now() + 31 * DAY));
    expect(await count(long)).toBe(0);
  });
});
