import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { saveMethod } from "../../app/payouts/payout-settings.server";
import { addCredit, addCustomer, payoutState } from "../../sandbox/shopify/payouts";
import { creator, payoutRunner, record } from "../support/paypal-runs";
import { standinAdmin } from "../support/standin-admin";
import { logProblems } from "./embedded-admin";
import { useEmbeddedAdmin } from "./embedded-suite";

// Turning store credit on from the Payouts page, in a real browser against the built app and the
// Shopify stand-in: the page asks App Bridge for the method's optional scopes before saving it
// (declined: nothing is saved and the page says why; granted: the method is saved), then a
// payout sent as store credit is credited once in the stand-in and shown as paid, and a balance
// in another currency is listed apart with the reason. The run's job runs in this process, on
// the app's database, with the shop's token from the stand-in, as the worker would.

const SHOP = "e2e-shopify-payouts.myshopify.com";
const STORE_CREDIT_SCOPES = [
  "read_customers",
  "read_store_credit_account_transactions",
  "write_store_credit_account_transactions",
];
const prisma = databaseClient();
const suite = useEmbeddedAdmin({
  shop: SHOP,
  apiKey: "e2e-shopify-payouts-api-key",
  apiSecret: "e2e-shopify-payouts-api-secret",
});
const runner = await payoutRunner({
  shopifyAdmin: standinAdmin(
    () => suite.standin,
    (shop) => ["read_orders", ...suite.standin.store.shop(shop).grantedScopes],
  ),
});

/** The page with App Bridge's scopes API answered by the stand-in's grants: the merchant accepts or declines. */
function openPayouts(answer: { accept: boolean }, asked: string[][]): Promise<Page> {
  const { store } = suite.standin;
  const detail = () => ({
    granted: ["read_orders", "write_orders", ...store.shop(SHOP).grantedScopes],
    required: ["read_orders", "write_orders"],
    optional: STORE_CREDIT_SCOPES,
  });
  return suite.openPage("/app/payouts", {
    async watch(page) {
      logProblems(page);
      await page.exposeFunction("tagGuardScopesQuery", () => detail());
      await page.exposeFunction("tagGuardScopesRequest", (scopes: string[]) => {
        asked.push(scopes);
        if (!answer.accept) return { result: "declined-all", detail: detail() };
        store.grantScopes(SHOP, scopes);
        return { result: "granted-all", detail: detail() };
      });
    },
  });
}

const defaultMethod = async () =>
  (await prisma.payoutSettings.findUnique({ where: { shop: SHOP } }))?.defaultMethod ?? "manual";

describe("store credit on the Payouts page", () => {
  it(
    "asks for the method's scopes when it is turned on, saves it only once granted, and pays as store credit",
    { timeout: 180_000 },
    async () => {
      await creator(SHOP, "cr_sol", "sol@creators.test");
      await record(SHOP, "cr_sol", "USD", 1875n);
      await creator(SHOP, "cr_eu", "eu@creators.test");
      await record(SHOP, "cr_eu", "EUR", 900n);
      const customer = addCustomer(suite.standin.store.shop(SHOP), "sol@creators.test");
      const asked: string[][] = [];
      const answer = { accept: false };

      const page = await openPayouts(answer, asked);
      await page.getByRole("heading", { name: "Payout methods" }).waitFor();
      await page.getByRole("combobox", { name: "Shop default", exact: true }).selectOption("store_credit");
      await page.getByText("Store credit needs access to customers", { exact: false }).waitFor();
      await page.getByRole("button", { name: "Save methods: Shop default" }).click();
      await page.getByText("Permission was not granted, so Store credit was not turned on.").waitFor();
      expect(asked).toEqual([STORE_CREDIT_SCOPES]);
      expect(await defaultMethod()).toBe("manual");

      answer.accept = true;
      await page.getByRole("button", { name: "Save methods: Shop default" }).click();
      await page.getByText("Payout methods saved.").waitFor();
      expect(asked).toEqual([STORE_CREDIT_SCOPES, STORE_CREDIT_SCOPES]);
      expect(await defaultMethod()).toBe("store_credit");
      expect([...suite.standin.store.shop(SHOP).grantedScopes]).toEqual(STORE_CREDIT_SCOPES);

      // The euro balance cannot be paid in a dollar shop's store credit: listed apart, with why.
      await page.getByText("Not payable by store credit or gift card").waitFor();
      await page.getByText("In EUR, not the shop’s currency (USD)", { exact: false }).waitFor();

      await page.getByRole("checkbox", { name: "Pay cr_sol $18.75" }).check();
      await page.getByRole("button", { name: "Pay as store credit" }).click();
      await page.getByText("Store credit payout started for 1 creator.", { exact: false }).waitFor();
      expect(await prisma.commission.count({ where: { shop: SHOP, status: "paying" } })).toBe(1);

      await runner.work();
      const { credits } = payoutState(suite.standin.store.shop(SHOP));
      expect(credits).toMatchObject([{ customerGid: customer, amount: "18.75", currency: "USD" }]);
      await page.reload();
      await page.getByText(`Store credit ${credits[0]!.gid}: paid`).waitFor();
      expect(await prisma.commission.findMany({ where: { shop: SHOP }, orderBy: { currency: "asc" } })).toMatchObject([
        { currency: "EUR", status: "approved" },
        { currency: "USD", status: "paid" },
      ]);

      // Creating customers needs write_customers too; a gift card for one creator, its own scopes.
      await page.getByRole("checkbox", { name: "Create a customer account for a creator who has none" }).check();
      await page.getByRole("button", { name: "Save methods: Shop default" }).click();
      await page.getByText("Payout methods saved.").waitFor();
      await expect
        .poll(() => asked.at(-1))
        .toEqual(["read_customers", "write_customers", ...STORE_CREDIT_SCOPES.slice(1)]);
      await expect
        .poll(async () => (await prisma.payoutSettings.findUnique({ where: { shop: SHOP } }))?.createCustomers)
        .toBe(true);
      // The page reloads its data after that save, and a choice made before it lands is reset;
      // on a busy machine it can land after the network falls quiet. A fresh load has none due.
      await page.reload();
      await page.getByRole("heading", { name: "Payout methods" }).waitFor();
      const euMethod = page.getByRole("combobox", { name: "cr_eu", exact: true });
      await euMethod.selectOption("gift_card");
      await expect.poll(() => euMethod.inputValue()).toBe("gift_card");
      await page.getByRole("button", { name: "Save methods: cr_eu" }).click();
      // The banner of the save before is still up: the stand-in's grants and the database say when this one is done.
      await expect
        .poll(() => asked.at(-1))
        .toEqual(["read_customers", "write_customers", "read_gift_cards", "write_gift_cards"]);
      await expect
        .poll(async () => (await prisma.creatorPayoutMethod.findMany({ where: { shop: SHOP } })).map((m) => m.method))
        .toEqual(["gift_card"]);
      expect(suite.standin.validationFailures()).toEqual([]);
    },
  );

  it(
    "leaves a payout Shopify's records cannot settle to the merchant, who says it was not paid: payable again",
    { timeout: 120_000 },
    async () => {
      const { store } = suite.standin;
      store.grantScopes(SHOP, STORE_CREDIT_SCOPES);
      expect(await saveMethod(SHOP, { creatorId: "cr_pat", method: "store_credit" })).toEqual({ ok: true });
      await creator(SHOP, "cr_pat", "pat@creators.test");
      await record(SHOP, "cr_pat", "USD", 650n);
      const customer = addCustomer(store.shop(SHOP), "pat@creators.test");

      const page = await openPayouts({ accept: true }, []);
      await page.getByRole("checkbox", { name: "Pay cr_pat $6.50" }).check();
      await page.getByRole("button", { name: "Pay as store credit" }).click();
      await page.getByText("Store credit payout started for 1 creator.", { exact: false }).waitFor();
      // Shopify credits it but its answer is lost; meanwhile the same amount is credited by hand.
      suite.standin.faults({ loseAnswer: 1, operation: "TagGuardPayoutStoreCredit" });
      await runner.runOnce();
      addCredit(store.shop(SHOP), customer, "6.50", "USD", new Date().toISOString());
      await runner.work();
      expect(payoutState(store.shop(SHOP)).credits.filter((c) => c.customerGid === customer)).toHaveLength(2);

      await page.reload();
      await page.getByText(/check in Shopify/).waitFor();
      await page.getByRole("button", { name: "Say what you found in Shopify" }).click();
      const dialog = page.getByRole("dialog", { name: "What did you find in Shopify?" });
      await dialog.getByRole("button", { name: "Save what I found" }).click();
      await dialog.getByText("Choose what you found.").waitFor();
      await dialog.getByText("Was not paid: I found no payment in Shopify").click();
      await dialog.getByText("can be paid a second time", { exact: false }).waitFor();
      await dialog.getByRole("button", { name: "Save what I found" }).click();
      await page.getByText("Saved: the payout was not paid, and its balance is payable again.").waitFor();
      await page.getByRole("checkbox", { name: "Pay cr_pat $6.50" }).waitFor();
      await page.getByText("Not paid, as you found it").waitFor();
      expect(await page.getByRole("button", { name: "Say what you found in Shopify" }).count()).toBe(0);
      expect(await prisma.commission.findMany({ where: { shop: SHOP, creatorId: "cr_pat" } })).toMatchObject([
        { status: "approved" },
      ]);
    },
  );
});
