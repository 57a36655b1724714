import { afterAll, describe, expect, it } from "vitest";
import { startPaypalStandin } from "../../sandbox/paypal/server";
import { useEmbeddedAdmin } from "./embedded-suite";

// Paying creators with PayPal from the Payouts page, in a real browser against the built app and
// the PayPal stand-in: the account saved (its secret never comes back to the page), PayPal chosen
// for a creator, a payout sent, PayPal's status shown as it comes, and a returned payment shown
// as bounced with its balance payable again. The run's job runs in this process, on the app's
// database, as the worker would.

const SHOP = "e2e-paypal.myshopify.com";
const paypal = await startPaypalStandin();
process.env.PAYPAL_API_ORIGIN = paypal.url;
const { databaseClient } = await import("../../app/database/db.server");
const { creator, payoutRunner, record } = await import("../support/paypal-runs");
const prisma = databaseClient();

const suite = useEmbeddedAdmin({
  shop: SHOP,
  apiKey: "e2e-paypal-api-key",
  apiSecret: "e2e-paypal-api-secret",
  env: { PAYPAL_API_ORIGIN: paypal.url },
});
const runner = await payoutRunner();
const work = runner.work;

afterAll(async () => {
  await runner.stop();
  await paypal.close();
});

describe("PayPal payouts on the Payouts page", () => {
  it(
    "saves the account without showing its secret, sends a payout, and shows a returned one as payable again",
    { timeout: 180_000 },
    async () => {
      const client = paypal.addClient();
      await creator(SHOP, "cr_pia", "pia@creators.test");
      await record(SHOP, "cr_pia", "USD", 1200n);
      paypal.plan("pia@creators.test", "UNCLAIMED");

      const page = await suite.openPage("/app/payouts");
      await page.getByRole("heading", { name: "PayPal Payouts" }).waitFor();
      const webhookId = paypal.registerWebhook(`${suite.appUrl}/webhooks/paypal/${SHOP}`, client.clientId);
      await page.getByLabel("Client id").fill(client.clientId);
      await page.getByLabel("Secret").fill(client.secret);
      await page.getByLabel("Webhook id").fill(webhookId);
      await page.getByRole("button", { name: "Save PayPal account" }).click();
      await page.getByText("PayPal account saved.").waitFor();
      await page.getByText(`secret ••••${client.secret.slice(-4)}`, { exact: false }).waitFor();
      expect(await page.content()).not.toContain(client.secret);

      await page.getByRole("combobox", { name: "cr_pia", exact: true }).selectOption("paypal");
      await page.getByRole("button", { name: "Save methods: cr_pia" }).click();
      await page.getByText("Payout methods saved.").waitFor();

      await page.getByRole("checkbox", { name: "Pay cr_pia $12.00" }).check();
      await page.getByRole("button", { name: "Send with PayPal" }).click();
      await page.getByText("PayPal payout started for 1 creator.", { exact: false }).waitFor();
      // The badge, not the send button's label.
      await page.getByText("With PayPal", { exact: true }).waitFor();
      expect(await prisma.commission.count({ where: { shop: SHOP, status: "paying" } })).toBe(1);

      await work();
      await paypal.advance();
      await work();
      await page.reload();
      await page.getByText("UNCLAIMED", { exact: false }).waitFor();

      await paypal.advance({ returnUnclaimed: true });
      await expect.poll(() => prisma.paypalEvent.count({ where: { shop: SHOP, status: "RETURNED" } })).toBe(1);
      await work();
      await page.reload();
      await page.getByText("Bounced: payable again").waitFor();
      await page.getByText("The payment came back unclaimed or returned: payable again.", { exact: false }).waitFor();
      await page.getByRole("checkbox", { name: "Pay cr_pia $12.00" }).waitFor();
      // The creator's page says so too.
      const creatorPage = await suite.openPage("/app/creators", { query: "&creator=cr_pia" });
      await creatorPage.getByRole("heading", { name: "Payouts to cr_pia" }).waitFor();
      await creatorPage.getByText("Bounced: payable again", { exact: true }).waitFor();
      await creatorPage
        .getByText("The payment came back unclaimed or returned: payable again.", { exact: false })
        .waitFor();
      // Read only there: a payout is voided on Payouts.
      expect(await creatorPage.getByRole("button", { name: "Void" }).count()).toBe(0);
      expect(await creatorPage.content()).not.toContain(client.secret);
      expect(await page.content()).not.toContain(client.secret);
      // The secret went to PayPal's token endpoint only.
      const basic = Buffer.from(`${client.clientId}:${client.secret}`).toString("base64");
      expect(
        paypal
          .requests()
          .filter((r) => r.authorization.includes(basic))
          .every((r) => r.path === "/v1/oauth2/token"),
      ).toBe(true);
    },
  );
});
