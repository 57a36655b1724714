import { beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { formatAmount, formatMinor, formatMoney, percentage } from "../../app/units/money";
import * as dashboardRoute from "../../app/routes/app._index";
import { getDashboard } from "../../app/dashboard/dashboard.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import type { Period } from "../../app/units/periods";
import { adminRequest, call, seedVerification, storeOfflineSession } from "./helpers";

const prisma = databaseClient();

const SHOP = "dash-test.myshopify.com";
const OTHER = "dash-other.myshopify.com";
const EMPTY = "dash-empty.myshopify.com";
const DAY = 24 * 60 * 60 * 1000;

async function load(shop: string, query = "") {
  const response = await call(dashboardRoute.loader as never, adminRequest(`/app${query}`, shop));
  expect(response.status).toBe(200);
  return response.json();
}

describe("money and rates without floats", () => {
  it("formats minor units exactly, for every currency's digits", () => {
    expect(formatMinor(123456n, "USD")).toBe("1,234.56");
    expect(formatAmount("2000", "JPY")).toBe("JPY 2,000");
    expect(formatAmount("1234567.891", "KWD")).toBe("KWD 1,234,567.891");
    expect(formatMinor(5n, "USD")).toBe("0.05");
    expect(formatMinor(-5n, "EUR")).toBe("-0.05");
    expect(formatMinor(1200n, "JPY")).toBe("1,200");
    expect(formatMinor(1234567n, "KWD")).toBe("1,234.567");
    expect(formatMinor("9007199254740993", "USD")).toBe("90,071,992,547,409.93");
    expect(formatMoney(0n, "USD")).toBe("USD 0.00");
  });

  it("computes percentages with decimal arithmetic", () => {
    expect(percentage(1, 3)).toBe("33.3%");
    expect(percentage(2, 3)).toBe("66.7%");
    expect(percentage(0, 0)).toBeNull();
    expect(percentage(1n, 8n)).toBe("12.5%");
  });
});

describe("dashboard loader", () => {
  beforeAll(async () => {
    for (const shop of [SHOP, OTHER, EMPTY]) await storeOfflineSession(shop);
    for (const shop of [SHOP, OTHER]) {
      const saved = await saveSettings(shop, {
        clickServiceUrl: "https://clicks.example.com",
        apiKey: "sk_dashboard_key_1234",
      });
      expect(saved.ok).toBe(true);
    }
    const now = Date.now();
    const recent = (daysAgo: number) => new Date(now - daysAgo * DAY);
    await seedVerification({
      shop: SHOP,
      outcome: "matched",
      createdAt: recent(1),
      commission: { amountMinor: 1000n, amount: "10.00", currency: "USD" },
    });
    await seedVerification({
      shop: SHOP,
      outcome: "matched",
      createdAt: recent(2),
      commission: { amountMinor: 1000n, amount: "10.00", currency: "USD" },
    });
    await seedVerification({
      shop: SHOP,
      outcome: "matched",
      createdAt: recent(2),
      commission: { amountMinor: 500n, amount: "5.00", currency: "USD" },
    });
    await seedVerification({
      shop: SHOP,
      outcome: "hijacked",
      arrivedTag: "coupon-x",
      createdAt: recent(3),
      commission: { amountMinor: 4503599627370497n, amount: "45035996273704.97", currency: "USD", redirected: true },
    });
    await seedVerification({
      shop: SHOP,
      outcome: "hijacked",
      arrivedTag: "coupon-x",
      createdAt: recent(3),
      commission: { amountMinor: 4503599627370497n, amount: "45035996273704.97", currency: "USD", redirected: true },
    });
    await seedVerification({
      shop: SHOP,
      outcome: "hijacked",
      arrivedTag: "coupon-y",
      createdAt: recent(4),
      commission: { amountMinor: 1500n, amount: "1500", currency: "JPY", redirected: true },
    });
    await seedVerification({
      shop: SHOP,
      outcome: "hijacked",
      arrivedTag: null,
      createdAt: recent(40),
      commission: { amountMinor: 999n, amount: "9.99", currency: "USD", redirected: true },
    });
    await seedVerification({ shop: SHOP, outcome: "failed", createdAt: recent(5) });
    await seedVerification({ shop: SHOP, outcome: "expired", createdAt: recent(5) });
    await seedVerification({ shop: SHOP, outcome: "unattributed", captureSource: null, createdAt: recent(6) });
    await seedVerification({ shop: SHOP, outcome: "rejected", createdAt: recent(6) });
    await seedVerification({ shop: SHOP, outcome: "skipped", captureSource: null, createdAt: recent(6) });
    await seedVerification({ shop: SHOP, outcome: null, createdAt: recent(0) });
    // Another shop's orders must not count here.
    await seedVerification({
      shop: OTHER,
      outcome: "hijacked",
      captureSource: "landing_site",
      createdAt: recent(1),
      commission: { amountMinor: 777n, amount: "7.77", currency: "USD", redirected: true },
    });
    await prisma.dataRequest.create({
      data: {
        shop: SHOP,
        customerId: "207119551",
        ordersAsked: '["1","2"]',
        data: JSON.stringify({ orders: [{ orderId: "1" }] }),
      },
    });
  });

  it("counts outcomes in the period, only for the session's shop", async () => {
    const data = await load(SHOP, "?days=7");
    expect(data.configured).toBe(true);
    expect(data.period).toBe(7);
    expect(data.counts).toMatchObject({
      matched: 3,
      hijacked: 3,
      verified: 6,
      failed: 1,
      expired: 1,
      unattributed: 1,
      rejected: 1,
      skipped: 1,
      inProgress: 1,
    });
    expect(data.hijackRate).toBe("50.0%");
    const wider = await load(SHOP, "?days=90");
    expect(wider.counts.hijacked).toBe(4);
    expect(wider.hijackRate).toBe("57.1%");
  });

  it("totals redirected commission per currency exactly, beyond float precision", async () => {
    const data = await load(SHOP, "?days=7");
    expect(data.redirected).toEqual([
      // totalText: as the merchant's locale writes it (en-US when the request names none).
      { currency: "JPY", total: "JPY 1,500", totalText: "¥1,500", orders: 1 },
      { currency: "USD", total: "USD 90,071,992,547,409.94", totalText: "$90,071,992,547,409.94", orders: 2 },
    ]);
  });

  it("lists the tags that arrived on hijacked orders, most frequent first", async () => {
    const data = await load(SHOP, "?days=90");
    expect(data.topArrivedTags).toEqual([
      { tag: "coupon-x", orders: 2 },
      { tag: "", orders: 1 },
      { tag: "coupon-y", orders: 1 },
    ]);
  });

  it("raises banners with a next step", async () => {
    const data = await load(SHOP, "?days=7");
    expect(data.banners.failing).toBe(1);
    expect(data.banners.captureNotSeen).toBe(false);
    expect(data.banners.credentialsRejectedAt).toBeNull();
    const other = await load(OTHER, "?days=7");
    expect(other.banners.captureNotSeen).toBe(true);
    expect(other.themeEditorUrl).toBe(
      `https://${OTHER}/admin/themes/current/editor?context=apps&activateAppId=test-api-key/click-capture`,
    );
    await prisma.shopSettings.update({
      where: { shop: OTHER },
      data: { credentialsRejectedAt: new Date("2026-11-20T10:00:00Z") },
    });
    expect((await load(OTHER)).banners.credentialsRejectedAt).toBe("2026-11-20T10:00:00.000Z");
  });

  it("lists recent verifications with links to the order page, and data requests", async () => {
    const data = await load(SHOP);
    expect(data.recent.length).toBe(13);
    expect(data.recent[0].outcome).toBeNull();
    expect(data.recent.every((r: { id: string }) => typeof r.id === "string")).toBe(true);
    expect(data.dataRequests).toEqual([
      expect.objectContaining({ customerId: "207119551", ordersAsked: 2, ordersFound: 1 }),
    ]);
  });

  it("says what the reconciliation sweep found since install, edits with the rest, and nothing before the first authorization", async () => {
    const since = new Date("2026-11-20T09:00:00.000Z");
    await prisma.shopReconciliation.create({
      data: {
        shop: SHOP,
        since,
        watermark: since,
        foundOrders: 3,
        foundRefunds: 2,
        foundCancellations: 1,
        foundEdits: 4,
        sweptAt: new Date("2026-11-20T10:00:00.000Z"),
      },
    });
    expect((await load(SHOP)).reconciliation).toMatchObject({
      sweptAt: "2026-11-20T10:00:00.000Z",
      found: { orders: 3, refunds: 2, cancellations: 1, edits: 4 },
    });
    expect((await load(OTHER)).reconciliation).toBeNull();
  });

  it("falls back to 30 days for an unknown period and shows the empty state before settings exist", async () => {
    expect((await load(SHOP, "?days=13")).period).toBe(30);
    const empty = await load(EMPTY);
    expect(empty.configured).toBe(false);
    expect(empty.banners.captureNotSeen).toBe(false);
  });

  it("never sends the API key", async () => {
    const response = await call(dashboardRoute.loader as never, adminRequest("/app", SHOP));
    expect(await response.text()).not.toContain("sk_dashboard_key_1234");
  });
});

describe("the edges of the 7, 30 and 90-day periods", () => {
  it.each([7, 30, 90])("%i days: from exactly that long ago, to the millisecond, and no earlier", async (days) => {
    const shop = `dash-edge-${days}.myshopify.com`;
    await storeOfflineSession(shop);
    expect(
      (await saveSettings(shop, { clickServiceUrl: "https://clicks.example.com", apiKey: "sk_edge_key_1234" })).ok,
    ).toBe(true);
    const now = new Date("2026-11-20T12:00:00.000Z");
    const start = now.getTime() - days * DAY;
    const hijackedAt = async (at: number) =>
      seedVerification({
        shop,
        outcome: "hijacked",
        arrivedTag: "coupon-edge",
        createdAt: new Date(at),
        commission: { amountMinor: 100n, amount: "1.00", currency: "USD", redirected: true },
      });
    await hijackedAt(start - 1);
    await hijackedAt(start);
    await hijackedAt(start + 1);

    const data = await getDashboard(shop, days as Period, now);
    expect(data.period).toBe(days);
    expect(data.counts).toMatchObject({ hijacked: 2, verified: 2, total: 2 });
    expect(data.redirected).toEqual([{ currency: "USD", total: "USD 2.00", totalText: "$2.00", orders: 2 }]);
    expect(data.topArrivedTags).toEqual([{ tag: "coupon-edge", orders: 2 }]);
  });

  it.each([7, 30, 90])("?days=%i on the page picks that period", async (days) => {
    const shop = `dash-page-${days}.myshopify.com`;
    await storeOfflineSession(shop);
    const now = Date.now();
    // A minute either side of the edge: the loader reads the clock itself, a little later.
    await seedVerification({ shop, outcome: "matched", createdAt: new Date(now - days * DAY + 60_000) });
    await seedVerification({ shop, outcome: "matched", createdAt: new Date(now - days * DAY - 60_000) });
    const data = await load(shop, `?days=${days}`);
    expect(data.period).toBe(days);
    expect(data.counts.matched).toBe(1);
  });
});
