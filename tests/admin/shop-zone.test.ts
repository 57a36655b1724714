import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import * as dashboardRoute from "../../app/routes/app._index";
import * as orderRoute from "../../app/routes/app.orders.$id";
import { routeShopifyTrafficTo, type StandinRouting } from "../../app/platform/shopify-standin-routing.server";
import { readShopProfile, shopZone } from "../../app/shop-profile/shop-profile.server";
import { unauthenticated } from "../../app/shopify.server";
import { startShopifyStandin, type ShopifyStandin } from "../../sandbox/shopify";
import { adminRequest, call, seedVerification } from "./helpers";

const prisma = databaseClient();

// The shop's time zone comes from Shopify (Shop.ianaTimezone) when the app is authorized, the
// moment the embedded admin exchanges its first session token, and is kept with the shop: the
// admin's times are then the shop's. Until Shopify has said, they are UTC, and say so.

const SHOP = "zone-shop.myshopify.com";
let standin: ShopifyStandin;
let routing: StandinRouting;

beforeAll(async () => {
  standin = await startShopifyStandin({ shopProfile: { ianaTimezone: "Asia/Tokyo", currencyCode: "JPY" } });
  routing = routeShopifyTrafficTo(standin.url);
});

afterAll(async () => {
  await routing?.restore();
  await standin?.close();
});

beforeEach(async () => {
  await prisma.session.deleteMany({ where: { shop: SHOP } });
  await prisma.shopProfile.deleteMany();
  await prisma.verification.deleteMany({ where: { shop: SHOP } });
  standin.clearRequests();
});

/** A request to a page that reads only the stored zone: it authorizes the app when no session is stored. */
const authorize = () => call(orderRoute.loader, adminRequest("/app/orders/none", SHOP), { id: "none" });

type DashboardJson = { timeZone: { name: string; known: boolean }; times: Record<string, string> };

describe("the shop's time zone", () => {
  it("is read from Shopify when the app is authorized, kept with the shop, and used by the pages", async () => {
    // The first request has no session: the library exchanges the session token, then afterAuth
    // runs. The order page never asks Shopify itself, so what is stored here came from afterAuth.
    expect((await authorize()).status).toBe(404);
    const row = await prisma.shopProfile.findUnique({ where: { shop: SHOP } });
    expect(row).toMatchObject({ ianaTimezone: "Asia/Tokyo", currencyCode: "JPY" });
    const asked = standin.requests().filter((r) => r.operationName === "TagGuardShopProfile");
    expect(asked).toHaveLength(1);
    expect(standin.validationFailures()).toEqual([]);

    const seeded = await seedVerification({
      shop: SHOP,
      outcome: "matched",
      createdAt: new Date("2026-11-27T01:55:00.000Z"),
    });
    const dashboard = (await (await call(dashboardRoute.loader, adminRequest("/app", SHOP))).json()) as DashboardJson;
    expect(dashboard.timeZone).toEqual({ name: "Asia/Tokyo", known: true });
    expect(Object.values(dashboard.times).join(" ")).toContain("GMT+9");
    const order = (await (
      await call(orderRoute.loader, adminRequest(`/app/orders/${seeded.id}`, SHOP), { id: seeded.id })
    ).json()) as { order: DashboardJson };
    expect(order.order.timeZone).toEqual({ name: "Asia/Tokyo", known: true });
    // Asked once: a page reads the stored zone, not Shopify.
    expect(standin.requests().filter((r) => r.operationName === "TagGuardShopProfile")).toHaveLength(1);
  });

  it("is read again at the next authorization, so a shop that moved zones is followed", async () => {
    await authorize();
    standin.store.shop(SHOP).ianaTimezone = "America/New_York";
    standin.store.shop(SHOP).currencyCode = "USD";
    await authorize();
    expect(await prisma.shopProfile.findUnique({ where: { shop: SHOP } })).toMatchObject({
      ianaTimezone: "Asia/Tokyo",
    });
    await prisma.session.deleteMany({ where: { shop: SHOP } });
    await authorize();
    expect(await prisma.shopProfile.findUnique({ where: { shop: SHOP } })).toMatchObject({
      ianaTimezone: "America/New_York",
      currencyCode: "USD",
    });
    standin.store.shop(SHOP).ianaTimezone = "Asia/Tokyo";
    standin.store.shop(SHOP).currencyCode = "JPY";
  });

  it("stays UTC, said as a fallback, while Shopify has not answered; a zone it cannot format is not kept", async () => {
    expect(await shopZone(SHOP)).toEqual({ timeZone: "UTC", currency: null, known: false });
    await authorize(); // installs: Asia/Tokyo stored
    const { admin } = await unauthenticated.admin(SHOP);

    standin.store.shop(SHOP).ianaTimezone = "Mars/Olympus_Mons";
    const refused = await readShopProfile(SHOP, admin.graphql);
    expect(refused).toEqual({ stored: false, message: 'unknown time zone "Mars/Olympus_Mons"' });
    expect(await shopZone(SHOP)).toEqual({ timeZone: "Asia/Tokyo", currency: "JPY", known: true });
    standin.store.shop(SHOP).ianaTimezone = "Asia/Tokyo";

    await prisma.shopProfile.deleteMany();
    standin.faults({ serverError: 10 });
    const failed = await readShopProfile(SHOP, admin.graphql);
    standin.faults({ serverError: 0 });
    expect(failed.stored).toBe(false);
    expect(await shopZone(SHOP)).toEqual({ timeZone: "UTC", currency: null, known: false });
  });

  it("is asked of Shopify at a dashboard visit when an earlier install never stored it", async () => {
    await authorize();
    await prisma.shopProfile.deleteMany();
    const dashboard = (await (await call(dashboardRoute.loader, adminRequest("/app", SHOP))).json()) as DashboardJson;
    expect(dashboard.timeZone).toEqual({ name: "Asia/Tokyo", known: true });
    expect(await shopZone(SHOP)).toMatchObject({ timeZone: "Asia/Tokyo", known: true });
  });
});
