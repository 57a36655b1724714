import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { CART_ATTRIBUTES } from "../../app/attribution/cart-attributes";
import { databaseClient } from "../../app/database/db.server";
import { routeShopifyTrafficTo } from "../../app/platform/shopify-standin-routing.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { formatShopTime } from "../../app/units/shop-format";
import { startWorker } from "../../app/worker/worker.server";
import { deliver } from "../support/deliver";
import { orderPayload, storeOfflineSession } from "../support/fixtures";
import { testDeps } from "../support/pipeline-harness";
import { snap } from "./embedded-admin";
import { useEmbeddedAdmin } from "./embedded-suite";
import { commissionOfMatched, matchedOrderRow } from "../../sandbox/admin-pages/order-row";

const prisma = databaseClient();

// The ledger's pages in a real browser against the built app: the Creators totals, a payout
// recorded from the Payouts page (its records become paid, the clawback is netted, its CSV
// downloads), the ledger filtered by the new statuses, an order's entries, and an order edited
// after its credit (its edit's entry and event on its page, in the ledger's CSV). Embedded as
// Shopify admin opens it, with App Bridge replaced by a stub that adds the session token to
// the page's own requests (its CDN script cannot load offline), as tests/e2e/embedded-admin.ts sets up.

const SHOP = "e2e-ledger.myshopify.com";
const API_KEY = "e2e-ledger-api-key";
const API_SECRET = "e2e-ledger-api-secret";

const suite = useEmbeddedAdmin({
  shop: SHOP,
  apiKey: API_KEY,
  apiSecret: API_SECRET,
  // A shop in Tokyo: the pages' times are its own (GMT+9), not UTC.
  standin: { shopProfile: { ianaTimezone: "Asia/Tokyo", currencyCode: "USD" } },
});

const openPage = (pathname: string, query = ""): Promise<Page> => suite.openPage(pathname, { query });

let orderSeq = 8_800;

/** A verified order and its commission record, with its entries: [kind, minor] after the credit. */
async function seedRecord(creatorId: string, status: string, creditMinor: bigint, more: [string, bigint][] = []) {
  orderSeq += 1;
  const orderId = String(orderSeq);
  const at = new Date(Date.now() - 40 * 86_400_000);
  const verification = await prisma.verification.create({
    data: {
      ...matchedOrderRow(SHOP, orderId, at, { creatorId, tag: "tag-1" }),
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
      ...commissionOfMatched(verification),
      orderValue: "100.00",
      currency: "USD",
      rate: "10",
      amount: text(net),
      amountMinor: net,
      status,
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
  await saveSettings(SHOP, { clickServiceUrl: suite.clicks.url, apiKey: suite.clicks.createApiKey() });
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
      // In the merchant's locale (the browser's en-US here), with the currency's sign.
      for (const text of ["$7.00", "$2.50", "$5.00", "$5.50"]) await alice.getByText(text).first().waitFor();
      await creators.locator("tr", { hasText: "cr_bob" }).getByText("$9.00").waitFor();
      // The merchant names the creator; a wrong email is refused in place, saving nothing.
      await creators.getByRole("button", { name: "Edit details for cr_alice" }).click();
      const details = creators.getByRole("dialog");
      await details.getByLabel("Display name").fill("Alice Liddell");
      await details.getByLabel("Email").fill("alice@");
      await details.getByRole("button", { name: "Save details" }).click();
      await details.getByText("Enter an email address like name@example.com, or leave it empty.").waitFor();
      expect(await prisma.creatorProfile.count({ where: { shop: SHOP } })).toBe(0);
      await details.getByLabel("Email").fill("alice@example.com");
      await details.getByRole("button", { name: "Save details" }).click();
      await creators.getByText("Details saved for cr_alice.").waitFor();
      await alice.getByRole("link", { name: "Alice Liddell (cr_alice)" }).waitFor();
      await alice.getByText("alice@example.com").waitFor();
      await snap(creators, "creators");
      // The name links to the creator's records in the ledger.
      await alice.getByRole("link", { name: "Alice Liddell (cr_alice)" }).click();
      await creators.waitForURL(/\/app\/commissions\?creator=cr_alice/);
      await creators.getByText("$9.50 across 4 records").waitFor();
      expect(await creators.getByRole("link", { name: "Alice Liddell (cr_alice)" }).count()).toBe(4);
      await creators.context().close();

      const payouts = await openPage("/app/payouts");
      await payouts.getByText("Approved balances").waitFor();
      expect(await payouts.locator("tr", { hasText: "cr_bob" }).count()).toBe(0);
      await payouts.getByText("Nothing selected yet.").waitFor();
      await payouts.getByRole("checkbox", { name: "Pay cr_alice $5.50" }).check();
      await payouts.getByTestId("selected-total").getByText("Selected: $5.50").waitFor();
      await payouts.getByLabel("Date paid").fill("2026-11-20");
      // Reviewing needs the payment's reference first.
      await payouts.getByRole("button", { name: "Review payout" }).click();
      await payouts.getByText("Enter the payment's reference before reviewing the payout.").waitFor();
      await payouts.getByLabel("Payment reference").fill("Wire 77");
      // Approved while the page was open: the merchant paid what the page showed, not this.
      await seedRecord("cr_alice", "approved", 100n);
      await payouts.getByRole("button", { name: "Review payout" }).click();
      await payouts.getByRole("dialog").getByRole("button", { name: "Record payout" }).click();
      await payouts.getByText("cr_alice was $5.50 when the page loaded and is $6.50 now", { exact: false }).waitFor();
      await payouts.getByText("Your choices were cleared", { exact: false }).waitFor();
      expect(await payouts.getByRole("checkbox", { name: "Pay cr_alice $6.50" }).isChecked()).toBe(false);
      await payouts.getByText("Nothing selected yet.").waitFor();
      expect(await payouts.getByRole("button", { name: "Review payout" }).isDisabled()).toBe(true);
      expect(await prisma.payout.count({ where: { shop: SHOP } })).toBe(0);
      await snap(payouts, "payouts-balance-changed");

      // The confirmation names each creator, amount and currency, the reference and the date.
      await payouts.getByRole("checkbox", { name: "Pay cr_alice $6.50" }).check();
      await payouts.getByRole("button", { name: "Review payout" }).click();
      const confirm = payouts.getByRole("dialog");
      await confirm
        .getByText("You are recording a payment of $6.50, reference “Wire 77”, paid on Nov 20, 2026:")
        .waitFor();
      await confirm.getByText("Alice Liddell (cr_alice): $6.50 (3 records)").waitFor();
      await confirm
        .getByText("This marks 3 records paid. A recorded payout cannot be edited", { exact: false })
        .waitFor();
      await snap(payouts, "payouts-confirm");
      // Going back records nothing.
      await confirm.getByRole("button", { name: "Go back" }).click();
      await confirm.waitFor({ state: "hidden" });
      expect(await prisma.payout.count({ where: { shop: SHOP } })).toBe(0);
      await payouts.getByRole("button", { name: "Review payout" }).click();
      await payouts.getByRole("dialog").getByRole("button", { name: "Record payout" }).click();
      await payouts.getByText("Payout recorded: 1 balance marked paid.").waitFor();
      await payouts.getByText("Nov 20, 2026 — Wire 77").waitFor();
      const line = payouts.getByRole("listitem").filter({ hasText: "$6.50 (3 records)" });
      await line.getByRole("link", { name: "Alice Liddell (cr_alice)" }).waitFor();
      await payouts.getByText("No approved balances to pay.").waitFor();
      await snap(payouts, "payouts");
      expect(await prisma.commission.count({ where: { shop: SHOP, status: "approved" } })).toBe(0);
      expect(await prisma.payout.count({ where: { shop: SHOP } })).toBe(1);
      const clawback = await prisma.commissionEntry.findFirstOrThrow({ where: { kind: "clawback", shop: SHOP } });
      expect(clawback.payoutId).not.toBeNull();

      const csv = async () => {
        const [download] = await Promise.all([
          payouts.waitForEvent("download"),
          payouts.getByRole("button", { name: "Download CSV" }).click(),
        ]);
        const chunks: Buffer[] = [];
        for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
        expect(download.suggestedFilename()).toBe("payout-2026-11-20.csv");
        return Buffer.concat(chunks).toString("utf8").split("\r\n");
      };
      expect(await csv()).toEqual([
        "Reference,Date paid,Creator,Creator name,Creator email,Amount,Currency,Records,Voided at (UTC),Method,Provider id",
        "Wire 77,2026-11-20,cr_alice,Alice Liddell,alice@example.com,6.50,USD,3,,manual,",
        "",
      ]);

      // Void: it asks why, then the records are approved again and the payout stays, marked voided.
      await payouts.getByRole("button", { name: "Void payout" }).click();
      const voiding = payouts.getByRole("dialog");
      await voiding.getByText("Void the payout Wire 77 of Nov 20, 2026?").waitFor();
      await voiding.getByRole("button", { name: "Void payout" }).click();
      await voiding.getByText("Say why you are voiding this payout.").waitFor();
      await voiding.getByLabel("Why are you voiding it?").fill("The transfer bounced");
      await voiding.getByRole("button", { name: "Void payout" }).click();
      await payouts.getByText("Payout voided: 3 records are approved again.").waitFor();
      await payouts.getByText("Voided", { exact: true }).waitFor();
      await payouts.getByText(/^Voided .+ GMT\+9 by .+: The transfer bounced$/).waitFor();
      await payouts.getByRole("checkbox", { name: "Pay cr_alice $6.50" }).waitFor();
      expect(await payouts.getByRole("button", { name: "Void payout" }).count()).toBe(0);
      await snap(payouts, "payouts-voided");
      expect(await prisma.commission.count({ where: { shop: SHOP, status: "approved" } })).toBe(3);
      expect(await prisma.commissionEntry.count({ where: { shop: SHOP, kind: "payout_void" } })).toBe(4);
      expect((await prisma.payout.findFirstOrThrow({ where: { shop: SHOP } })).voidReason).toBe("The transfer bounced");
      expect(
        (await prisma.commissionEntry.findFirstOrThrow({ where: { kind: "clawback", shop: SHOP } })).payoutId,
      ).toBeNull();
      const voidedCsv = await csv();
      expect(voidedCsv[1]).toMatch(
        /^Wire 77,2026-11-20,cr_alice,Alice Liddell,alice@example.com,6.50,USD,3,\d{4}-\d\d-\d\dT/,
      );
      await payouts.context().close();

      // The ledger filters by the new statuses.
      const ledger = await openPage("/app/commissions", "&status=reversed");
      await ledger.getByText("$0.00 across 1 record").waitFor();
      // The record: its status as a badge, its time in the shop's zone, its order here and in Shopify.
      const reversed = ledger.locator("tr", { hasText: "Reversed" });
      await reversed.getByText(/GMT\+9$/).waitFor();
      const openInShopify = reversed.getByRole("link", { name: /^Open in Shopify: order #\d+$/ });
      expect(await openInShopify.getAttribute("href")).toMatch(/^shopify:\/\/admin\/orders\/\d+$/);
      expect(await openInShopify.getAttribute("target")).toBe("_top");
      await reversed.getByRole("link", { name: /^#\d+$/ }).click();
      await ledger.waitForURL(/\/app\/orders\//);
      await ledger.getByText("Ledger entries").waitFor();
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

  it(
    "a contested order: listed for the merchant, its claims on the order page, credited to the creator chosen",
    { timeout: 120_000 },
    async () => {
      // The embed reported alice's click for the cart, a script bob's; Shopify recorded no landing page.
      const contested = await seedRecord("cr_alice", "review", 1000n);
      const claims = [
        {
          clickId: "clk-alice-1",
          creatorId: "cr_alice",
          witnesses: ["landing"],
          firstSeenAt: new Date().toISOString(),
          arrivedTag: "tag-1",
        },
        {
          clickId: "clk-bob-1",
          creatorId: "cr_bob",
          witnesses: ["landing", "cart_attributes"],
          firstSeenAt: new Date().toISOString(),
          arrivedTag: "bob-10",
        },
      ];
      await prisma.verification.update({
        where: { id: contested.id },
        data: {
          clickId: "clk-alice-1",
          expectedTag: "tag-1",
          contest: JSON.stringify({ reason: "creators-differ", claims }),
        },
      });
      await prisma.clickRecord.create({
        data: {
          id: "cr-bob-click",
          shop: SHOP,
          clickId: "clk-bob-1",
          state: "known",
          expectedTag: "bob-10",
          creatorId: "cr_bob",
          firstSeenAt: new Date(),
        },
      });

      const home = await openPage("/app");
      await home
        .getByText("1 contested order waits for you to choose who is credited; its commission is held until you do.")
        .waitFor();
      await home.locator("#attention").getByRole("link", { name: contested.orderName! }).click();
      await home.waitForURL(/\/app\/orders\//);
      await home.getByText("Contested: choose who is credited").waitFor();
      await home.getByText(/^Click clk-bob-1, reported by the app embed, cart attributes at .+, tag bob-10/).waitFor();
      const save = home.getByRole("button", { name: "Save decision" });
      expect(await save.isDisabled()).toBe(true);
      await home.getByText("cr_bob (clk-bob-1)", { exact: true }).click();
      expect(await home.getByRole("radio", { name: "cr_bob (clk-bob-1)" }).isChecked()).toBe(true);
      await save.click();
      // The answer takes the focus; the record is bob's now, approved: its hold ended days ago.
      const saved = home.getByText("Saved. The commission is now Approved: $10.00.");
      await saved.waitFor();
      await expect.poll(() => home.evaluate(() => document.activeElement?.textContent ?? "")).toContain("Saved.");
      await home.getByText(/^Decided .+: credited cr_bob/).waitFor();
      await snap(home, "order-contest-decided");
      expect(await prisma.commission.findUniqueOrThrow({ where: { verificationId: contested.id } })).toMatchObject({
        creatorId: "cr_bob",
        expectedTag: "bob-10",
        status: "approved",
      });
      expect(await prisma.commissionEntry.count({ where: { shop: SHOP, kind: "review" } })).toBe(1);
      await home.context().close();
    },
  );

  it(
    "an order edited after its credit: the edit's entry and event on its page, and its entry in the ledger CSV",
    { timeout: 120_000 },
    async () => {
      // Made as Shopify and the app make it: orders/create and orders/edited delivered to the
      // built app's webhook routes, the order and its edit held by the Shopify stand-in, and the
      // order's job run by the app's worker (here in this process: the built app runs none),
      // which verifies the click with the click service and reads the edited order's amounts.
      const routing = routeShopifyTrafficTo(suite.standin.url);
      const worker = startWorker({ concurrency: 1, pollIntervalMs: 3_600_000, intakeFirst: false, deps: testDeps() });
      const send = (topic: string, body: unknown, eventId: string) =>
        deliver(suite.appUrl, `/webhooks/${topic}`, { topic, shop: SHOP, body, eventId, secret: API_SECRET });
      const record = (orderId: string) => prisma.commission.findFirst({ where: { shop: SHOP, orderId } });
      try {
        const issued = suite.standin.issueToken(SHOP, { scope: ["read_orders", "write_orders"] });
        await storeOfflineSession(SHOP, issued.token);
        const clickedAt = new Date(Date.now() - 5 * 60_000);
        const { clickId } = suite.clicks.addClick({
          expectedTag: "carol-20",
          creatorId: "cr_carol",
          timestamp: clickedAt.toISOString(),
        });
        const order = orderPayload({
          currency: "USD",
          lineItems: [{ title: "Widget", price: "120.00" }],
          noteAttributes: {
            [CART_ATTRIBUTES.clickId]: clickId,
            [CART_ATTRIBUTES.capturedAt]: clickedAt.toISOString(),
            [CART_ATTRIBUTES.arrivedTag]: "carol-20",
          },
          landingSite: `/?lb_click=${clickId}&tag=carol-20`,
          createdAt: new Date(Date.now() - 60_000),
        });
        const orderId = String(order.id);
        suite.standin.createOrder(SHOP, order);
        expect((await send("orders/create", order, `evt-${orderId}`)).status).toBe(200);
        await worker.runOnce();
        // Credited at the shop's 10 %, held (pending) for its 30 days.
        expect(await record(orderId)).toMatchObject({ creatorId: "cr_carol", amount: "12.00", status: "pending" });

        // The merchant takes something off the order by phone: Shopify commits the edit (its
        // subtotal 80.00 now) and sends orders/edited; the order's job reads the edited amounts.
        const edit = suite.standin.store.editOrder(SHOP, orderId, "80.00");
        expect((await send("orders/edited", edit, `evt-edit-${orderId}`)).status).toBe(200);
        await worker.runOnce();
        expect(await record(orderId)).toMatchObject({ amount: "8.00", orderValue: "80.00", status: "pending" });
        const verification = await prisma.verification.findUniqueOrThrow({
          where: { shop_orderId: { shop: SHOP, orderId } },
        });

        const page = await openPage(`/app/orders/${verification.id}`);
        await page.getByText("Ledger entries").waitFor();
        await page.getByText(/^Credit \$12\.00 — /).waitFor();
        // The edit's entry: the difference, and the value and commission before and after it.
        await page
          .getByText(/^Order edited -\$4\.00 — .+ \(order value \$120\.00 → \$80\.00, commission \$12\.00 → \$8\.00\)$/)
          .waitFor();
        // Among the order's events, applied: what it moved.
        await page.getByText("Refunds, edits and cancellations").waitFor();
        await page
          .getByText(
            /^Order edit received .+: edit -4\.00 USD \(order value 120\.00 -> 80\.00, commission 12\.00 -> 8\.00\)$/,
          )
          .waitFor();
        expect(await page.getByText("waiting to be applied").count()).toBe(0);
        await snap(page, "order-edited");
        await page.context().close();

        // The ledger's CSV, downloaded from its page for carol, carries the edit in its entries.
        const ledger = await openPage("/app/commissions", "&creator=cr_carol");
        await ledger.getByText("$8.00 across 1 record").waitFor();
        const [download] = await Promise.all([
          ledger.waitForEvent("download"),
          ledger.getByRole("button", { name: "Export CSV" }).click(),
        ]);
        const chunks: Buffer[] = [];
        for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
        const [header = "", row = "", ...rest] = Buffer.concat(chunks).toString("utf8").split("\r\n");
        // One record, then the file's closing line break.
        expect(rest).toEqual([""]);
        const columns = header.split(",");
        const cells = row.split(",");
        expect(columns).toContain("Entries (kind amount)");
        const cell = (name: string) => cells[columns.indexOf(name)];
        expect(cell("Order ID")).toBe(orderId);
        expect(cell("Order value")).toBe("80.00");
        expect(cell("Commission")).toBe("8.00");
        expect(cell("Entries (kind amount)")).toBe("credit 12.00; edit -4.00");
        await ledger.context().close();
      } finally {
        await worker.stop();
        await routing.restore();
      }
    },
  );

  it(
    "a top-up still in its hold: listed on Payouts with when it becomes payable, in the shop's time, and not payable yet",
    { timeout: 120_000 },
    async () => {
      // Dana's record was paid, then its order edited up: a top-up of $5.00 due in five days.
      await seedRecord("cr_dana", "paid", 2000n, [["top_up", 500n]]);
      const dueAt = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 5 * 86_400_000);
      await prisma.commissionEntry.updateMany({ where: { shop: SHOP, kind: "top_up" }, data: { dueAt } });

      const payouts = await openPage("/app/payouts");
      const dana = payouts.locator("tr", { hasText: "cr_dana" });
      await dana.waitFor();
      await dana.getByText("Nothing to pay yet: top-ups wait for the hold").waitFor();
      expect(await dana.getByRole("checkbox").count()).toBe(0);
      const when = formatShopTime(dueAt, { locale: "en-US", timeZone: "Asia/Tokyo" });
      expect(when).toMatch(/GMT\+9$/);
      await dana.getByText(`$5.00 top-up payable from ${when}`).waitFor();
      await snap(payouts, "payouts-top-up-waiting");
      await payouts.context().close();
    },
  );
});
