import { randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { logProblems, snap } from "./embedded-admin";
import { useEmbeddedAdmin } from "./embedded-suite";
import { orderRow } from "../../sandbox/admin-pages/order-row";

const prisma = databaseClient();

// The Codes page in a real browser against the built app and the Shopify stand-in: empty, with
// codes, switching a code off without the optional discount scopes (the page asks for them
// through App Bridge's scopes API, and says what they allow when declined) and with them (a
// confirmation, then the code is expired in the stand-in and shown as switched off).

const SHOP = "e2e-codes.myshopify.com";
const EMPTY_SHOP = "e2e-codes-empty.myshopify.com";
const API_KEY = "e2e-codes-api-key";
const API_SECRET = "e2e-codes-api-secret";
const DISCOUNT_SCOPES = ["read_discounts", "write_discounts"];

const suite = useEmbeddedAdmin({ shop: SHOP, apiKey: API_KEY, apiSecret: API_SECRET });

/** What the merchant does in App Bridge's permission modal: accept (the stand-in grants) or decline. */
type ScopesAnswer = "accept" | "decline";

/** The page, its App Bridge scopes API answered by the stand-in's grants and `answer`; each request in `asked`. */
function openPage(shop: string, pathname: string, answer: ScopesAnswer, asked: string[][] = []): Promise<Page> {
  const { store } = suite.standin;
  const granted = () => ["read_orders", "write_orders", ...store.shop(shop).grantedScopes];
  const detail = () => ({ granted: granted(), required: ["read_orders", "write_orders"], optional: DISCOUNT_SCOPES });
  return suite.openPage(pathname, {
    shop,
    async watch(page) {
      logProblems(page);
      await page.exposeFunction("tagGuardScopesQuery", () => detail());
      await page.exposeFunction("tagGuardScopesRequest", (scopes: string[]) => {
        asked.push(scopes);
        if (answer === "decline") return { result: "declined-all", detail: detail() };
        store.grantScopes(shop, scopes);
        return { result: "granted-all", detail: detail() };
      });
    },
  });
}

let orderSeq = 5_500;

async function seedOrder(outcome: "matched" | "hijacked", codes: [string, string][], redirectedMinor: bigint) {
  orderSeq += 1;
  const orderId = String(orderSeq);
  const at = new Date(Date.now() - 2 * 86_400_000);
  const verification = await prisma.verification.create({
    data: {
      ...orderRow(SHOP, orderId, at),
      outcome,
      captureSource: "cart_attributes",
      clickId: `clk-${orderId}`,
      arrivedTag: outcome === "hijacked" ? "honey-77" : "alice-20",
      expectedTag: "alice-20",
      creatorId: "cr_alice",
      currency: "USD",
      orderFacts: "{}",
    },
  });
  for (const [code, amount] of codes) {
    await prisma.orderDiscountCode.create({
      data: {
        id: randomUUID(),
        shop: SHOP,
        verificationId: verification.id,
        orderId,
        code,
        amount,
        amountMinor: BigInt(amount.replace(".", "")),
        type: "fixed_amount",
        currency: "USD",
        createdAt: at,
      },
    });
    suite.standin.store.ensureDiscount(SHOP, code);
  }
  await prisma.commission.create({
    data: {
      shop: SHOP,
      verificationId: verification.id,
      orderId,
      creatorId: "cr_alice",
      expectedTag: "alice-20",
      arrivedTag: outcome === "hijacked" ? "honey-77" : "alice-20",
      orderValue: "100.00",
      currency: "USD",
      rate: "10",
      amount: "10.00",
      amountMinor: redirectedMinor,
      redirected: outcome === "hijacked",
      createdAt: at,
    },
  });
}

beforeAll(async () => {
  for (const shop of [SHOP, EMPTY_SHOP])
    await saveSettings(shop, { clickServiceUrl: suite.clicks.url, apiKey: suite.clicks.createApiKey() });
});

describe("the Codes page in the embedded admin", () => {
  it("says so when no code rode on an order with a click", { timeout: 60_000 }, async () => {
    const page = await openPage(EMPTY_SHOP, "/app/codes", "decline");
    await page.getByText("No discount code was used on an order with a click in this period.").waitFor();
    await snap(page, "codes-empty");
    await page.context().close();
  });

  it(
    "lists codes by harm, asks for the discount scopes on first use, and switches a code off after a confirmation",
    { timeout: 120_000 },
    async () => {
      await seedOrder("hijacked", [["LEAKED20", "20.00"]], 1000n);
      await seedOrder("hijacked", [["LEAKED20", "5.50"]], 250n);
      await seedOrder("matched", [["LEAKED20", "10.00"]], 1000n);
      await seedOrder("matched", [["FRIENDS", "3.00"]], 500n);

      // Declined: nothing changes in Shopify, and the page says what granting would allow.
      const asked: string[][] = [];
      const declined = await openPage(SHOP, "/app/codes", "decline", asked);
      const leaked = declined.locator("tr", { hasText: "LEAKED20" });
      await leaked.waitFor();
      for (const text of ["3", "2 (66.7%)", "$25.50", "$12.50"])
        await leaked.getByText(text, { exact: true }).waitFor();
      const rows = await declined.locator("tbody tr").allInnerTexts();
      expect(rows[0]).toContain("LEAKED20");
      expect(rows[1]).toContain("FRIENDS");
      await declined.getByText("Switching codes off needs access to your discounts").waitFor();
      await declined.getByRole("button", { name: "Switch off LEAKED20" }).click();
      await declined.getByText("Tag Guard was not given access to discounts", { exact: false }).waitFor();
      // The answer takes the focus, so a keyboard or screen reader user learns it at once.
      const declinedBanner = declined.getByRole("alert").filter({ hasText: "Tag Guard was not given access" });
      expect(await declinedBanner.evaluate((banner) => banner === document.activeElement)).toBe(true);
      expect(asked).toEqual([DISCOUNT_SCOPES]);
      expect(suite.standin.store.discountByCode(suite.standin.store.shop(SHOP), "LEAKED20")!.status).toBe("ACTIVE");
      await snap(declined, "codes-scopes-declined");
      await declined.context().close();

      // Granted on first use, then the confirmation, then the code is off in Shopify and shown so.
      const granted = await openPage(SHOP, "/app/codes", "accept", asked);
      await granted.getByRole("button", { name: "Switch off LEAKED20" }).click();
      const dialog = granted.getByRole("dialog");
      await dialog.getByText("Shoppers can no longer use LEAKED20 at checkout", { exact: false }).waitFor();
      await snap(granted, "codes-confirm");
      expect(suite.standin.store.discountByCode(suite.standin.store.shop(SHOP), "LEAKED20")!.status).toBe("ACTIVE");
      await dialog.getByRole("button", { name: "Switch off" }).click();
      await granted.getByText("LEAKED20 is switched off: shoppers can no longer use it.").waitFor();
      const done = granted.getByRole("status").filter({ hasText: "LEAKED20 is switched off" });
      expect(await done.evaluate((banner) => banner === document.activeElement)).toBe(true);
      const row = granted.locator("tr", { hasText: "LEAKED20" });
      await row.getByText("Switched off").waitFor();
      await row.getByText("staff member 42", { exact: false }).waitFor();
      expect(asked).toEqual([DISCOUNT_SCOPES, DISCOUNT_SCOPES]);
      expect(suite.standin.store.discountByCode(suite.standin.store.shop(SHOP), "LEAKED20")!.status).toBe("EXPIRED");
      expect(suite.standin.store.discountByCode(suite.standin.store.shop(SHOP), "FRIENDS")!.status).toBe("ACTIVE");
      expect(
        await prisma.codeDeactivation.findMany({ where: { shop: SHOP }, select: { code: true, userId: true } }),
      ).toEqual([{ code: "LEAKED20", userId: "42" }]);
      expect(suite.standin.validationFailures()).toEqual([]);
      await snap(granted, "codes-switched-off");
      await granted.context().close();

      // The dashboard names the top code.
      const dashboard = await openPage(SHOP, "/app", "decline");
      await dashboard.getByText("Discount codes on hijacked orders").waitFor();
      await dashboard.getByText("2 hijacked orders, USD 25.50 off").waitFor();
      await dashboard.context().close();
    },
  );
});
