import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { seedSuspectedCreator, type SuspectedCreatorSeed } from "../../sandbox/admin-pages/suspected-creator";
import { snap } from "./embedded-admin";
import { useEmbeddedAdmin } from "./embedded-suite";

const prisma = databaseClient();

// A suspected creator walked from the dashboard to a decision, in a real browser against the
// built app: "Needs your attention" names the creator and what of theirs is held; their page
// reads the evidence in sentences, each with its orders, says why the rule suspects them, and
// offers the decisions behind confirmations that say what each does; reverse moves the order
// their click took to the honest creator and reverses the other, the answer takes the focus,
// and undo puts both back. The seed writes the orders and clicks as the pipeline leaves them and
// the claims through the app's evidence module (sandbox/admin-pages/suspected-creator.ts).

const SHOP = "e2e-creators.myshopify.com";

const suite = useEmbeddedAdmin({
  shop: SHOP,
  apiKey: "e2e-creators-api-key",
  apiSecret: "e2e-creators-api-secret",
  standin: { shopProfile: { ianaTimezone: "Asia/Tokyo", currencyCode: "USD" } },
});

let seed: SuspectedCreatorSeed;

beforeAll(async () => {
  await saveSettings(SHOP, { clickServiceUrl: suite.clicks.url, apiKey: suite.clicks.createApiKey() });
  seed = await seedSuspectedCreator(SHOP, { firstOrder: 91_001, approved: true });
});

const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? "");

describe("a suspected creator in the embedded admin", () => {
  it(
    "goes from the dashboard's attention to the creator's evidence, a reversal and its undo",
    { timeout: 180_000 },
    async () => {
      const page = await suite.openPage("/app", { context: { locale: "en-US" } });
      const attention = page.locator("#attention");
      await attention
        .getByText("1 creator is suspected of hijacking orders: their commissions are held until you decide.")
        .waitFor();
      // Their pending and approved records: $10.00 each.
      await attention.getByText("$20.00 held").waitFor();
      await attention.getByRole("link", { name: "cr_mallory" }).click();
      await page.waitForURL(/\/app\/creators\?creator=cr_mallory/);

      // Their page: the evidence in sentences, each with its orders a click away.
      await page.getByRole("heading", { name: "Creator cr_mallory" }).waitFor();
      const evidence = page.locator("#creator-evidence");
      await evidence.getByText("2 of 4 orders: another creator's click was seen first").waitFor();
      await evidence.getByText("1 of 4 orders: a script named their click, but no page landed with it").waitFor();
      await evidence.getByText("2 orders credited to this creator").waitFor();
      const later = page.locator("#evidence-signal-later").locator("..");
      const orderLinks = await later.getByRole("link").evaluateAll((links) => links.map((a) => a.getAttribute("href")));
      expect(orderLinks.map((href) => href?.split("?")[0])).toEqual(
        [seed.stoodDown[1], seed.stoodDown[0]].map((id) => `/app/orders/${id}`),
      );
      await page
        .locator("#evidence-delay")
        .getByText(/3 min 0 s at the median; 3 of 4 clicks took over a minute/)
        .waitFor();
      await page
        .locator("#standing-why")
        .getByText(/2 of their 4 orders named their click without crediting it/)
        .waitFor();
      await page
        .locator("#standing-rule")
        .getByText(/at least 2 such orders, at least 1 of them marked/)
        .waitFor();
      await snap(page, "creator-suspected");

      // Reverse, behind a confirmation that says what it does.
      await page.locator("#creator-standing").getByRole("button", { name: "Reverse" }).click();
      const dialog = page.getByRole("dialog");
      await dialog
        .getByText(
          "Their 2 unpaid commissions are reversed; orders that named another creator's click (1 of them) are credited to that creator instead. Paid commissions stay paid.",
        )
        .waitFor();
      await dialog.getByRole("button", { name: "Reverse" }).click();
      const answer = page.locator("#creator-answer");
      await answer
        .getByText("cr_mallory reversed: 2 unpaid commissions moved (1 credited to the rightful creators, 1 reversed).")
        .waitFor();
      await expect.poll(() => focusedText(page)).toContain("cr_mallory reversed");
      await page
        .locator("#standing-summary")
        .getByText(/^Reversed: their unpaid commissions were reversed/)
        .waitFor();
      await page.getByText(/^Reversed by staff member 42, .+: 2 commissions moved$/).waitFor();
      expect(await prisma.commission.findUniqueOrThrow({ where: { verificationId: seed.taken } })).toMatchObject({
        creatorId: "cr_dana",
        redirected: true,
      });
      expect(await prisma.commission.findUniqueOrThrow({ where: { verificationId: seed.approved! } })).toMatchObject({
        creatorId: "cr_mallory",
        status: "reversed",
      });
      await snap(page, "creator-reversed");

      // Undo: both records back as they were, the creator suspected again.
      await page.locator("#creator-standing").getByRole("button", { name: "Undo" }).click();
      await page
        .getByRole("dialog")
        .getByText(/^Every commission this decision moved goes back as it was/)
        .waitFor();
      await page.getByRole("dialog").getByRole("button", { name: "Undo" }).click();
      await answer.getByText("Decision undone: 2 commissions are back as they were.").waitFor();
      await page
        .locator("#standing-summary")
        .getByText(/^Suspected since .+GMT\+9\./)
        .waitFor();
      expect(await prisma.commission.findUniqueOrThrow({ where: { verificationId: seed.taken } })).toMatchObject({
        creatorId: "cr_mallory",
        status: "pending",
      });
      expect(await prisma.commission.findUniqueOrThrow({ where: { verificationId: seed.approved! } })).toMatchObject({
        creatorId: "cr_mallory",
        status: "approved",
      });
      await page.context().close();
    },
  );

  it(
    "is held on Payouts and named on the orders that name them, each with a way to their page",
    { timeout: 120_000 },
    async () => {
      const payouts = await suite.openPage("/app/payouts", { context: { locale: "en-US" } });
      await payouts
        .getByText("Held: this creator is suspected of hijacking orders. Decide on the creator's page first.")
        .first()
        .waitFor();
      // Nothing of theirs can be chosen: no box to pay them.
      expect(await payouts.getByRole("checkbox", { name: /^Pay cr_mallory/ }).count()).toBe(0);
      await payouts.getByRole("link", { name: "Open cr_mallory" }).first().click();
      await payouts.waitForURL(/\/app\/creators\?creator=cr_mallory/);
      await payouts.getByRole("heading", { name: "Creator cr_mallory" }).waitFor();
      await payouts.context().close();

      const order = await suite.openPage(`/app/orders/${seed.stoodDown[0]}`, { context: { locale: "en-US" } });
      await order
        .getByText(
          "cr_mallory is suspected of hijacking orders: their commissions are held until you decide on the creator's page.",
        )
        .waitFor();
      await order
        .locator("#order-claims")
        .getByText(
          "another creator's click took the order; a script named their click, but no page landed with it; another creator's click was seen first",
        )
        .waitFor();
      await snap(order, "order-names-suspected-creator");
      await order.context().close();
    },
  );
});
