import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedShopWithData, type SeededShop } from "../../sandbox/admin-pages/seed-shop";
import { startApp, type AppProcess } from "../../sandbox/demo/app-process";
import { freePort } from "../../sandbox/listen";
import { adminPageStates, openAdminPage } from "./admin-pages";
import { blockingViolations, describeViolations } from "./axe";
import { snap } from "./embedded-admin";
import { useEmbeddedAdmin } from "./embedded-suite";

// Every admin page state, in a real browser against the built app, checked by axe-core: each
// page with data, each page on a fresh shop, and the error states (an order that does not
// exist, the database out of reach, a settings save and a payout that were refused). No
// serious or critical violation, a document title naming the page, exactly one <main>, and
// after a refused submit the focus on the banner that says why. Then the dashboard and the
// ledger on a 390px phone: nothing scrolls sideways and every action is on screen.

const SHOP = "e2e-a11y.myshopify.com";
const FRESH_SHOP = "e2e-a11y-fresh.myshopify.com";
const API_KEY = "e2e-a11y-api-key";
const API_SECRET = "e2e-a11y-api-secret";

const suite = useEmbeddedAdmin({ shop: SHOP, apiKey: API_KEY, apiSecret: API_SECRET });
let broken: AppProcess | undefined;
let brokenUrl = "";
let seeded: SeededShop;

/** How Shopify admin opens the app for `shop`: the suite's app, or another at `url`. */
const admin = (shop: string, url?: () => string) => ({ ...suite.adminFor(shop), ...(url && { appUrl: url }) });

beforeAll(async () => {
  seeded = await seedShopWithData(SHOP, { clickServiceUrl: suite.clicks.url, apiKey: suite.clicks.createApiKey() });
}, 120_000);

afterAll(async () => {
  await broken?.stop();
});

/** The checks every page state must pass, with the state's name in each failure. */
async function expectAccessible(page: Page, state: string, title: string) {
  expect(await page.title(), state).toBe(title);
  expect(await page.locator("main, [role=main]").count(), `${state}: main landmarks`).toBe(1);
  const violations = await blockingViolations(page);
  expect(violations, `${state}:\n${describeViolations(violations)}`).toEqual([]);
}

describe("every admin page passes axe-core with no serious or critical violation", () => {
  it("with data", { timeout: 180_000 }, async () => {
    for (const state of adminPageStates(seeded)) {
      const page = await openAdminPage(suite.browser, admin(SHOP), state.path);
      await page.locator("h1").first().waitFor();
      await expectAccessible(page, `${state.name} (with data)`, state.title);
      await page.context().close();
    }
  });

  it("on a fresh shop, with nothing saved or recorded", { timeout: 180_000 }, async () => {
    for (const state of adminPageStates(null)) {
      const page = await openAdminPage(suite.browser, admin(FRESH_SHOP), state.path);
      await page.locator("h1").first().waitFor();
      await expectAccessible(page, `${state.name} (fresh shop)`, state.title);
      await page.context().close();
    }
  });

  it("when the app cannot reach its database", { timeout: 60_000 }, async () => {
    // A database server that is down: nothing listens on its port. Started here, just before
    // the page is opened: the app exits about ten seconds after start-up when its session
    // table never answers (app/sessions/sealed-session-storage.server.ts).
    const down = `postgresql://tag_guard@127.0.0.1:${await freePort()}/tag_guard`;
    broken = await startApp(
      {
        NODE_ENV: "test",
        DATABASE_URL: down,
        SHOPIFY_API_KEY: API_KEY,
        SHOPIFY_API_SECRET: API_SECRET,
        WORKER_ENABLED: "false",
        LOG_LEVEL: "error",
        NODE_OPTIONS: "",
      },
      () => {},
      [],
      "answering",
    );
    brokenUrl = broken.url;
    const page = await openAdminPage(
      suite.browser,
      admin(SHOP, () => brokenUrl),
      "/app/commissions",
    );
    await page.getByText("Tag Guard cannot reach its database right now").waitFor();
    await expectAccessible(page, "database unavailable", "Tag Guard cannot reach its database right now");
    await page.context().close();
  });

  it("after a refused settings save, with focus on the banner that says why", { timeout: 60_000 }, async () => {
    const page = await openAdminPage(suite.browser, admin(SHOP), "/app/settings");
    await page.getByLabel("Service base URL").fill("not a url");
    await page.getByRole("button", { name: "Save" }).click();
    const banner = page.getByRole("alert").filter({ hasText: "Nothing was saved. Fix these fields:" });
    await banner.waitFor();
    // The focus is on the banner, or on the region that holds it and its links to the fields.
    expect(await banner.evaluate((element) => document.activeElement?.contains(element) ?? false)).toBe(true);
    await snap(page, "a11y-settings-refused");
    await expectAccessible(page, "settings refused", "Settings · Tag Guard");
    await page.context().close();
  });

  it("after a refused payout, with focus on the banner that says why", { timeout: 60_000 }, async () => {
    const page = await openAdminPage(suite.browser, admin(SHOP), "/app/payouts");
    await page.getByRole("checkbox", { name: "Pay cr_alice $20.50" }).check();
    // A reference longer than the 200 characters a payout keeps: refused by the server.
    await page.getByLabel("Payment reference").fill("x".repeat(201));
    await page.getByRole("button", { name: "Review payout" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Record payout" }).click();
    const banner = page.getByRole("alert").first();
    await banner.waitFor();
    expect(await banner.evaluate((element) => element === document.activeElement)).toBe(true);
    await expectAccessible(page, "payout refused", "Payouts · Tag Guard");
    await page.context().close();
  });
});

describe("on a 390px phone", () => {
  for (const [name, pathname, rowText] of [
    ["the dashboard", "/app", "#1006"],
    ["the commission ledger", "/app/commissions", "#1002"],
  ] as const)
    it(`${name} lists its rows without scrolling sideways, every action on screen`, { timeout: 60_000 }, async () => {
      const page = await openAdminPage(suite.browser, admin(SHOP), pathname, 390);
      await page.locator("h1").first().waitFor();
      // The table's rows are read as a list here: the order is visible, the table is not.
      await page.getByRole("listitem").filter({ hasText: rowText }).first().waitFor();
      expect(
        await page.locator("table").evaluateAll((tables) => tables.filter((t) => t.checkVisibility()).length),
      ).toBe(0);

      const scrollWidth = await page.evaluate(() => document.scrollingElement!.scrollWidth);
      expect(scrollWidth).toBeLessThanOrEqual(390);
      const actions = await page
        .locator("main a[href], main button, main input:not([type=hidden]), main select")
        .evaluateAll((elements) =>
          elements
            .filter((element) => element.checkVisibility())
            .map((element) => {
              const box = element.getBoundingClientRect();
              return {
                action: (element.textContent || element.getAttribute("aria-label") || element.tagName).trim(),
                left: box.left,
                right: box.right,
              };
            }),
        );
      expect(actions.length).toBeGreaterThan(0);
      const offScreen = actions.filter((action) => action.left < 0 || action.right > 390);
      expect(offScreen, JSON.stringify(offScreen)).toEqual([]);
      await snap(page, `phone-${pathname.replaceAll("/", "-")}`);
      const violations = await blockingViolations(page);
      expect(violations, describeViolations(violations)).toEqual([]);
      await page.context().close();
    });

  it("the same tables are tables on a wide screen", { timeout: 60_000 }, async () => {
    const page = await openAdminPage(suite.browser, admin(SHOP), "/app/commissions", 1280);
    await page.locator("tr", { hasText: "#1002" }).waitFor();
    expect(await page.getByRole("listitem").filter({ hasText: "#1002" }).count()).toBe(0);
    await page.context().close();
  });
});
