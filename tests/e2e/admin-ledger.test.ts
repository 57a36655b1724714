import { existsSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import prisma from "../../app/database/db.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { startClickService, type RunningClickService } from "../../sandbox/click-service/server";
import { startShopifyStandin, type ShopifyStandin } from "../../sandbox/shopify";
import { BROWSER_USER_AGENT } from "../../sandbox/storefront/chromium";
import { launchChromium } from "../support/chromium";
import { embeddedAdmin, snap } from "./embedded-admin";
import type { AppProcess } from "../../sandbox/demo/app-process";
import { startBuiltApp } from "../support/built-app";

// The ledger's pages in a real browser against the built app: the Creators totals, a payout
// recorded from the Payouts page (its records become paid, the clawback is netted, its CSV
// downloads), the ledger filtered by the new statuses, and an order's entries. Embedded as
// Shopify admin opens it, with App Bridge replaced by a stub that adds the session token to
// the page's own requests (its CDN script cannot load offline), as tests/e2e/embedded-admin.ts sets up.

const ROOT = path.resolve(__dirname, "../..");
const SHOP = "e2e-ledger.myshopify.com";
const API_KEY = "e2e-ledger-api-key";
const API_SECRET = "e2e-ledger-api-secret";

let server: AppProcess | undefined;
let appUrl = "";
let standin: ShopifyStandin;
let clicks: RunningClickService;
let browser: Browser;

const { embeddedUrl, appBridgeStub } = embeddedAdmin({
  shop: SHOP,
  apiKey: API_KEY,
  apiSecret: API_SECRET,
  appUrl: () => appUrl,
});

async function openPage(pathname: string, query = ""): Promise<Page> {
  const context = await browser.newContext({ userAgent: BROWSER_USER_AGENT });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on("pageerror", (error) => console.error(`[browser] ${error.message.slice(0, 600)}`));
  page.on("response", (response) => {
    if (response.status() >= 500) console.error(`[browser http] ${response.status()} ${response.url()}`);
  });
  await page.route("https://cdn.shopify.com/**", (route) =>
    route.request().url().endsWith(".js")
      ? route.fulfill({ status: 200, contentType: "text/javascript", body: appBridgeStub() })
      : route.fulfill({ status: 200, contentType: "text/css", body: "" }),
  );
  await page.goto(embeddedUrl(pathname, query));
  return page;
}

let orderSeq = 8_800;

/** A verified order and its commission record, with its entries: [kind, minor] after the credit. */
async function seedRecord(creatorId: string, status: string, creditMinor: bigint, more: [string, bigint][] = []) {
  orderSeq += 1;
  const orderId = String(orderSeq);
  const at = new Date(Date.now() - 40 * 86_400_000);
  const verification = await prisma.verification.create({
    data: {
      shop: SHOP,
      orderId,
      orderGid: `gid://shopify/Order/${orderId}`,
      orderName: `#${orderId}`,
      orderCreatedAt: at,
      createdAt: at,
      outcome: "matched",
      captureSource: "cart_attributes",
      clickId: `clk-${orderId}`,
      arrivedTag: "tag-1",
      expectedTag: "tag-1",
      creatorId,
      orderFacts: "{}",
    },
  });
  await prisma.job.create({
    data: {
      id: `job-${verification.id}`,
      shop: SHOP,
      kind: "verify-order",
      subject: verification.id,
      state: "done",
      runAt: at,
    },
  });
  const net = more.reduce((sum, [, minor]) => sum + minor, creditMinor);
  const text = (minor: bigint) => (Number(minor) / 100).toFixed(2);
  await prisma.commission.create({
    data: {
      shop: SHOP,
      verificationId: verification.id,
      orderId,
      orderName: `#${orderId}`,
      creatorId,
      expectedTag: "tag-1",
      arrivedTag: "tag-1",
      orderValue: "100.00",
      currency: "USD",
      rate: "10",
      amount: text(net),
      amountMinor: net,
      status,
      holdUntil: new Date(at.getTime() + 30 * 86_400_000),
      createdAt: at,
      entries: {
        create: [
          { shop: SHOP, kind: "credit", amountMinor: creditMinor, amount: text(creditMinor), createdAt: at },
          ...more.map(([kind, minor], i) => ({
            shop: SHOP,
            kind,
            amountMinor: minor,
            amount: text(minor),
            eventId: `e-${orderId}-${i}`,
            createdAt: new Date(at.getTime() + (i + 1) * 1000),
          })),
        ],
      },
    },
  });
  return verification;
}

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, "build/server/index.js")))
    throw new Error("no app build: run `npx remix vite:build` (global setup does)");
  standin = await startShopifyStandin({ apiKey: API_KEY, appSecret: API_SECRET });
  clicks = await startClickService();
  server = await startBuiltApp({ apiKey: API_KEY, apiSecret: API_SECRET, standinUrl: standin.url });
  appUrl = server.url;
  browser = await launchChromium();
  await saveSettings(SHOP, { clickServiceUrl: clicks.url, apiKey: clicks.createApiKey() });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await standin?.close();
  await clicks?.close();
});

describe("the ledger's pages in the embedded admin", () => {
  it(
    "shows creators' totals, records a payout that nets a clawback, and downloads its CSV",
    { timeout: 120_000 },
    async () => {
      await seedRecord("cr_alice", "approved", 500n);
      await seedRecord("cr_alice", "approved", 300n, [["refund", -100n]]);
      const paid = await seedRecord("cr_alice", "paid", 400n, [["clawback", -150n]]);
      await seedRecord("cr_alice", "reversed", 250n, [["reversal", -250n]]);
      await seedRecord("cr_bob", "pending", 900n);

      const creators = await openPage("/app/creators");
      const alice = creators.locator("tr", { hasText: "cr_alice" });
      await alice.waitFor();
      // Approved 5.00 + 2.00, paid 2.50 net, reversed 1.00 + 1.50 + 2.50, due 7.00 - 1.50.
      for (const text of ["USD 7.00", "USD 2.50", "USD 5.00", "USD 5.50"])
        await alice.getByText(text).first().waitFor();
      await creators.locator("tr", { hasText: "cr_bob" }).getByText("USD 9.00").waitFor();
      await snap(creators, "creators");
      await creators.context().close();

      const payouts = await openPage("/app/payouts");
      await payouts.getByText("Approved balances").waitFor();
      expect(await payouts.locator("tr", { hasText: "cr_bob" }).count()).toBe(0);
      await payouts.getByLabel("Pay cr_alice USD 5.50").check();
      await payouts.getByLabel("Payment reference").fill("Wire 77");
      await payouts.getByLabel("Date paid").fill("2026-11-20");
      // Approved while the page was open: the merchant paid what the page showed, not this.
      await seedRecord("cr_alice", "approved", 100n);
      await payouts.getByRole("button", { name: "Record payout" }).click();
      await payouts
        .getByText("cr_alice was USD 5.50 when the page loaded and is USD 6.50 now", { exact: false })
        .waitFor();
      expect(await payouts.getByLabel("Pay cr_alice USD 6.50").isChecked()).toBe(false);
      expect(await prisma.payout.count({ where: { shop: SHOP } })).toBe(0);
      await snap(payouts, "payouts-balance-changed");
      await payouts.getByLabel("Pay cr_alice USD 6.50").check();
      await payouts.getByRole("button", { name: "Record payout" }).click();
      await payouts.getByText("Payout recorded: 1 balance marked paid.").waitFor();
      await payouts.getByText("2026-11-20 — Wire 77").waitFor();
      await payouts.getByText("cr_alice: USD 6.50 (3 records)").waitFor();
      await payouts.getByText("No approved balances to pay.").waitFor();
      await snap(payouts, "payouts");
      expect(await prisma.commission.count({ where: { shop: SHOP, status: "approved" } })).toBe(0);
      expect(await prisma.payout.count({ where: { shop: SHOP } })).toBe(1);
      const clawback = await prisma.commissionEntry.findFirstOrThrow({ where: { kind: "clawback", shop: SHOP } });
      expect(clawback.payoutId).not.toBeNull();

      const [download] = await Promise.all([
        payouts.waitForEvent("download"),
        payouts.getByRole("button", { name: "Download CSV" }).click(),
      ]);
      const chunks: Buffer[] = [];
      for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
      expect(download.suggestedFilename()).toBe("payout-2026-11-20.csv");
      expect(Buffer.concat(chunks).toString("utf8")).toBe("Creator,Amount,Currency,Records\r\ncr_alice,6.50,USD,3\r\n");
      await payouts.context().close();

      // The ledger filters by the new statuses.
      const ledger = await openPage("/app/commissions", "&status=reversed");
      await ledger.getByText("USD 0.00 across 1 record").waitFor();
      await snap(ledger, "ledger-reversed");
      await ledger.context().close();

      // The order page lists the record's entries.
      const order = await openPage(`/app/orders/${paid.id}`);
      await order.getByText("Ledger entries").waitFor();
      await order.getByText(/Credit \$4\.00/).waitFor();
      await order.getByText(/Clawback \(after payment\) -\$1\.50/).waitFor();
      await snap(order, "order-entries");
      await order.context().close();
    },
  );
});
