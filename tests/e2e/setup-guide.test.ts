import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { APP_SCOPES } from "../../sandbox/demo/app-process";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { snap } from "./embedded-admin";
import { useEmbeddedAdmin } from "./embedded-suite";

// The home page's setup guide in a real browser against the built app: the embed's status as
// App Bridge's shopify.app.extensions() answers it (active, off, or no answer at all), the key's
// test against the sandbox click service, the web pixel the app connects on the Shopify
// stand-in, and the first verified order.

const SHOP = "e2e-setup.myshopify.com";
const API_KEY = "e2e-setup-api-key";
const API_SECRET = "e2e-setup-api-secret";

const suite = useEmbeddedAdmin({
  shop: SHOP,
  apiKey: API_KEY,
  apiSecret: API_SECRET,
  // The stand-in grants what shopify.app.toml declares, the pixel's scopes among them.
  standin: { scopes: APP_SCOPES },
  env: { SCOPES: APP_SCOPES },
  async beforeApp({ clicks }) {
    const saved = await saveSettings(SHOP, { clickServiceUrl: clicks.url, apiKey: clicks.createApiKey() });
    expect(saved.ok).toBe(true);
  },
});

/** Shopify's answer for the click-capture embed on the published theme. */
const embedAnswer = (status: "active" | "available" | "unavailable") => [
  {
    handle: "click-capture",
    type: "theme_app_extension",
    activations: [
      {
        handle: "click-capture",
        name: "Tag Guard click capture",
        target: "body",
        status,
        activations: status === "active" ? [{ target: "body", themeId: "gid://shopify/OnlineStoreTheme/1" }] : [],
      },
    ],
  },
  { handle: "tag-guard-pixel", type: "ui_extension", activations: [] },
];

async function openHome(extensions: unknown[] | "reject" | undefined): Promise<Page> {
  const page = await suite.openPage("/app", { stub: { extensions } });
  await page.locator("#setup-embed:not([data-state=checking])").waitFor();
  return page;
}

const stateOf = (page: Page, step: string) => page.locator(`#setup-${step}`).getAttribute("data-state");

describe("the home page's setup guide", () => {
  it(
    "App Bridge says the embed is active: the step is done, no banner; the pixel was connected with no merchant step",
    { timeout: 90_000 },
    async () => {
      const page = await openHome(embedAnswer("active"));
      await snap(page, "setup-active");
      expect(await stateOf(page, "embed")).toBe("done");
      expect(await page.locator("#embed-banner").count()).toBe(0);
      expect(await stateOf(page, "key")).toBe("done");
      expect(await stateOf(page, "pixel")).toBe("done");
      // No order yet.
      expect(await stateOf(page, "order")).toBe("todo");
      // The app connected its pixel on the stand-in, with the shop's tag parameters.
      expect(suite.standin.store.shop(SHOP).webPixel?.settings).toEqual({ tagParams: '["tag"]' });
      await page.context().close();
    },
  );

  it(
    "App Bridge says the embed is off: the step and a banner say so, with the deep link that turns it on",
    { timeout: 90_000 },
    async () => {
      const page = await openHome(embedAnswer("available"));
      await snap(page, "setup-embed-off");
      expect(await stateOf(page, "embed")).toBe("todo");
      await page.getByText("Click capture is not active on your published theme").waitFor();
      expect(await page.locator("#embed-banner").textContent()).toMatch(/off on your published theme/);
      const links = await page
        .getByRole("link", { name: "Turn on in the theme editor" })
        .evaluateAll((elements) => elements.map((element) => element.getAttribute("href")));
      expect(links.length).toBeGreaterThan(0);
      for (const href of links)
        expect(href).toBe(
          `https://${SHOP}/admin/themes/current/editor?context=apps&activateAppId=${API_KEY}/click-capture`,
        );
      await page.context().close();
    },
  );

  it("a theme that cannot show the embed is unavailable, said the same way", { timeout: 90_000 }, async () => {
    const page = await openHome(embedAnswer("unavailable"));
    expect(await stateOf(page, "embed")).toBe("todo");
    expect(await page.locator("#embed-banner").textContent()).toMatch(/does not show the click capture app embed/);
    await page.context().close();
  });

  it("App Bridge cannot answer: the guess from orders stands in", { timeout: 90_000 }, async () => {
    for (const extensions of [undefined, "reject"] as const) {
      const page = await openHome(extensions);
      expect(await page.locator("#embed-banner").textContent()).toMatch(/We have not seen an order/);
      expect(await stateOf(page, "embed")).toBe("todo");
      await page.context().close();
    }
  });

  it("the pixel disconnected by the merchant is connected again at the next visit", { timeout: 90_000 }, async () => {
    suite.standin.store.webPixelDelete(suite.standin.store.shop(SHOP));
    const page = await openHome(embedAnswer("active"));
    expect(await stateOf(page, "pixel")).toBe("done");
    expect(suite.standin.store.shop(SHOP).webPixel).not.toBeNull();
    await page.context().close();
  });
});
