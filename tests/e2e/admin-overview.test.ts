import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { formatShopTime } from "../../app/units/shop-format";
import { snap } from "./embedded-admin";
import { useEmbeddedAdmin } from "./embedded-suite";

const prisma = databaseClient();

// What a merchant reads first, in a real browser against the built app, for a shop in Tokyo:
// the dashboard opens with the money Tag Guard recovered and what needs the merchant; an order
// opens with one sentence saying what happened and what it meant for the money; every time is
// the shop's (read from Shopify when the embedded admin authorized the app), not UTC.

const SHOP = "e2e-overview.myshopify.com";
const API_KEY = "e2e-overview-api-key";
const API_SECRET = "e2e-overview-api-secret";
const ZONE = "Asia/Tokyo";

const suite = useEmbeddedAdmin({
  shop: SHOP,
  apiKey: API_KEY,
  apiSecret: API_SECRET,
  standin: { shopProfile: { ianaTimezone: ZONE, currencyCode: "USD" } },
});

/** The page, with what went wrong in it collected (problemsOf) for the test to assert on. */
function openPage(pathname: string): Promise<Page> {
  return suite.openPage(pathname, {
    context: { locale: "en-US" },
    watch(page) {
      const problems: string[] = [];
      page.on("pageerror", (error) => problems.push(error.message.slice(0, 600)));
      page.on("console", (message) => {
        // A hydration mismatch means the browser re-rendered text the server wrote differently.
        if (message.type() === "error") problems.push(message.text().slice(0, 600));
      });
      page.on("response", (response) => {
        if (response.status() >= 500) problems.push(`${response.status()} ${response.url()}`);
      });
      (page as Page & { problems: string[] }).problems = problems;
    },
  });
}

const problemsOf = (page: Page) => (page as Page & { problems: string[] }).problems;
const tokyo = (at: Date) => formatShopTime(at, { locale: "en-US", timeZone: ZONE });

let seq = 7_700;

async function order(data: {
  outcome: string;
  createdAt: Date;
  expectedTag?: string | null;
  arrivedTag?: string | null;
  creatorId?: string | null;
  captureSource?: string;
  capturedAt?: Date | null;
  taggedAt?: Date | null;
}) {
  seq += 1;
  return prisma.verification.create({
    data: {
      shop: SHOP,
      orderId: String(seq),
      orderGid: `gid://shopify/Order/${seq}`,
      orderName: `#${seq}`,
      orderCreatedAt: data.createdAt,
      createdAt: data.createdAt,
      outcome: data.outcome,
      captureSource: data.captureSource ?? "cart_attributes",
      clickId: `clk-${seq}`,
      capturedAt: data.capturedAt ?? null,
      arrivedTag: data.arrivedTag ?? null,
      expectedTag: data.expectedTag ?? null,
      creatorId: data.creatorId ?? null,
      taggedAt: data.taggedAt ?? null,
      verdictSource: data.outcome === "hijacked" ? "service" : null,
      currency: "USD",
      orderFacts: "{}",
    },
  });
}

const placed = new Date(Date.now() - 3 * 3_600_000);
let hijacked: { id: string; orderId: string };
let expired: { id: string };
let failed: { id: string; orderName: string | null };

beforeAll(async () => {
  await saveSettings(SHOP, { clickServiceUrl: suite.clicks.url, apiKey: suite.clicks.createApiKey() });

  hijacked = await order({
    outcome: "hijacked",
    createdAt: placed,
    expectedTag: "alice-20",
    arrivedTag: "HONEY",
    creatorId: "cr_alice",
    capturedAt: new Date(placed.getTime() - 10 * 60_000),
    taggedAt: new Date(placed.getTime() + 60_000),
  });
  await prisma.verificationAttempt.createMany({
    data: [
      {
        verificationId: hijacked.id,
        number: 1,
        step: "verify-click",
        result: "retryable",
        error: "the service answered HTTP 503: a server error",
        startedAt: new Date(placed.getTime() + 5_000),
      },
      { verificationId: hijacked.id, number: 2, step: "verify-click", result: "ok", startedAt: placed },
      { verificationId: hijacked.id, number: 3, step: "tag-order", result: "ok", startedAt: placed },
    ],
  });
  await prisma.commission.create({
    data: {
      shop: SHOP,
      verificationId: hijacked.id,
      orderId: hijacked.orderId,
      orderName: `#${hijacked.orderId}`,
      creatorId: "cr_alice",
      expectedTag: "alice-20",
      arrivedTag: "HONEY",
      orderValue: "50.00",
      currency: "USD",
      rate: "10",
      amount: "5.00",
      amountMinor: 500n,
      redirected: true,
      status: "pending",
      createdAt: placed,
      entries: { create: [{ shop: SHOP, kind: "credit", amountMinor: 500n, amount: "5.00", createdAt: placed }] },
    },
  });
  // The click was captured two hours before the order: its hour had ended when the order came.
  expired = await order({
    outcome: "expired",
    createdAt: placed,
    capturedAt: new Date(placed.getTime() - 2 * 3_600_000),
  });
  failed = await order({ outcome: "failed", createdAt: placed, expectedTag: null });
});

describe("the admin at a glance", () => {
  it(
    "the dashboard opens with the money recovered, then what needs the merchant, in the shop's time",
    { timeout: 90_000 },
    async () => {
      // What the reconciliation sweep has found since install (the sweep itself finds nothing
      // more here: the stand-in holds none of these orders).
      const found = { foundOrders: 1, foundRefunds: 0, foundCancellations: 0, foundEdits: 2 };
      await prisma.shopReconciliation.upsert({
        where: { shop: SHOP },
        create: { shop: SHOP, since: placed, watermark: placed, ...found },
        update: found,
      });
      const page = await openPage("/app");
      const recovered = page.locator("#recovered");
      await recovered.waitFor();
      expect(await page.locator("#recovered-USD").textContent()).toBe("$5.00");
      expect(await recovered.textContent()).toContain("from 1 hijacked order");
      expect(await page.locator("#hijacked-share").textContent()).toBe(
        "1 of 1 orders that came through a creator's link was hijacked (100.0%).",
      );
      expect(await page.locator("#attention-failed").textContent()).toBe(
        "1 order could not be checked: the Click Verification Service did not answer in time.",
      );
      await page.locator("#attention").getByRole("link", { name: failed.orderName! }).waitFor();
      // The money comes first on the page: before the attention card, the setup guide and the counts.
      const order = await page.evaluate(() =>
        ["recovered", "attention", "setup-embed", "count-hijacked"].map((id) => {
          const element = document.getElementById(id);
          return element ? element.getBoundingClientRect().top : null;
        }),
      );
      const present = order.filter((top): top is number => top !== null);
      expect(present.length).toBeGreaterThanOrEqual(3);
      expect([...present].sort((a, b) => a - b)).toEqual(present);
      expect(await page.locator("#reconciliation-found").textContent()).toBe(
        "Since install it found and handled 1 order, 0 refunds, 0 cancellations and 2 order edits that Shopify never delivered.",
      );
      // Outcomes with no orders fold away: "Key rejected" is not shown as a count of 0.
      expect(await page.locator("#count-hijacked").isVisible()).toBe(true);
      expect(await page.locator("#count-rejected").isVisible()).toBe(false);
      await page.locator("#counts-folded").waitFor();
      // Times are Tokyo's, and said to be.
      await page.getByText(tokyo(placed)).first().waitFor();
      const text = (await page.locator("main, body").first().textContent()) ?? "";
      expect(text).not.toMatch(/÷|HTTP \d{3}|UTC/);
      await snap(page, "dashboard-overview");
      expect(problemsOf(page)).toEqual([]);
      await page.context().close();
    },
  );

  it(
    "an order opens with its sentence, then the evidence, then the audit trail in plain words",
    { timeout: 90_000 },
    async () => {
      const page = await openPage(`/app/orders/${hijacked.id}`);
      const story = page.locator("#order-story");
      await story.waitFor();
      expect(await story.textContent()).toBe(
        "A browser extension or script replaced cr_alice's tag alice-20 with HONEY; Tag Guard credited cr_alice $5.00 and tagged the order affiliate-hijacked.",
      );
      expect(await page.locator("#order-placed").textContent()).toBe(`Order placed ${tokyo(placed)}`);
      expect(await page.getByRole("link", { name: "Open in Shopify" }).first().getAttribute("href")).toBe(
        `shopify://admin/orders/${hijacked.orderId}`,
      );
      // The sentence is above everything else: the commission, the evidence, the audit trail.
      const tops = await page.evaluate(() => {
        const top = (text: string) =>
          [...document.querySelectorAll("h2")].find((h) => h.textContent === text)?.getBoundingClientRect().top ?? -1;
        return {
          story: document.getElementById("order-story")!.getBoundingClientRect().top,
          commission: top("Commission"),
          evidence: top("What arrived"),
          audit: top("Audit trail"),
        };
      });
      expect(tops.story).toBeLessThan(tops.commission);
      expect(tops.commission).toBeLessThan(tops.evidence);
      expect(tops.evidence).toBeLessThan(tops.audit);
      // The audit trail in plain words; the service's own words only behind "Technical detail".
      await page
        .getByText(
          `${tokyo(new Date(placed.getTime() + 5_000))}: Asked the Click Verification Service whether the tag was the creator's — no answer, tried again later`,
        )
        .waitFor();
      await page.getByText(/Tagged the order in Shopify — done/).waitFor();
      expect(await page.getByText("the service answered HTTP 503: a server error").isVisible()).toBe(false);
      await page.getByText("Technical detail").first().click();
      expect(await page.getByText("the service answered HTTP 503: a server error").isVisible()).toBe(true);
      expect(await page.locator("#click-valid-until").textContent()).toBe(
        tokyo(new Date(placed.getTime() + 50 * 60_000)),
      );
      // The click came from the cart the embed wrote: the journey line does not say the embed was off.
      await page
        .getByText(
          "The storefront sent no landing report for this cart; the click came from the cart's attributes, which the app embed writes.",
        )
        .waitFor();
      expect(await page.getByText(/embed was off/).count()).toBe(0);
      await snap(page, "order-hijacked");
      expect(problemsOf(page)).toEqual([]);
      await page.context().close();
    },
  );

  it(
    "an order placed after its click's hour says so, with the hour counted from the click",
    { timeout: 90_000 },
    async () => {
      const page = await openPage(`/app/orders/${expired.id}`);
      await page.locator("#order-story").waitFor();
      expect(await page.locator("#order-story").textContent()).toBe(
        "The order was placed after the creator's click had expired (a click counts for one hour), so no commission was recorded.",
      );
      expect(await page.locator("#click-valid-until").textContent()).toBe(
        `Expired at ${tokyo(new Date(placed.getTime() - 3_600_000))}, before the order was placed`,
      );
      await snap(page, "order-expired");
      expect(problemsOf(page)).toEqual([]);
      await page.context().close();
    },
  );
});
