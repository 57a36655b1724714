import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CART_ATTRIBUTES } from "../../app/attribution/cart-attributes";
import { PRODUCT_VARIANT } from "../../sandbox/storefront/products";
import { ShopStorefront, type PaidCheckout } from "../../sandbox/storefront/shop";
import { launchChromium } from "../support/chromium";

// The stand-in shop's cart in Chromium, through its real theme pages: a cart built, changed and
// cleared only with Shopify's Ajax Cart API (as an extension or a theme's script does it) checks
// out with the right lines and total, and a cart built with the theme's forms and one built with
// the Ajax API make the same checkout. Every wait is for what the page or the shop reports (the
// app embed's status, the URL a form leads to, the order placed), never for time.

const VARIANT = PRODUCT_VARIANT.id;
const PRODUCT_PATH = "/products/merino-beanie";

const paid: PaidCheckout[] = [];
const shop = new ShopStorefront({
  shop: "cart-api-test.myshopify.com",
  pixel: null,
  placeOrder: (checkout) => {
    paid.push(checkout);
    return { id: String(7_200_000 + paid.length), name: `#${1000 + paid.length}` };
  },
});
let browser: Browser;

beforeAll(async () => {
  await shop.start();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await shop.stop();
});

async function shopper(): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

/** Opens a theme page and waits for the app embed to finish with it. */
async function visit(page: Page, path: string): Promise<void> {
  await page.goto(shop.url(path), { waitUntil: "load" });
  await page.waitForFunction(() => document.querySelector("script[data-tag-params]")?.getAttribute("data-tag-guard"));
}

/** Clicks a form's button and waits for the page its post leads to. */
async function submit(page: Page, selector: string, to: RegExp): Promise<void> {
  await Promise.all([page.waitForURL((url) => to.test(url.pathname), { waitUntil: "load" }), page.click(selector)]);
}

/** A call to the Ajax Cart API from the page, as a script on it makes one: the status and the JSON. */
function ajax(page: Page, endpoint: string, body?: unknown, form?: Record<string, string>) {
  return page.evaluate(
    async ({ endpoint, body, form }) => {
      let init: RequestInit = {};
      if (form) {
        const data = new FormData();
        for (const [name, value] of Object.entries(form)) data.append(name, value);
        init = { method: "POST", body: data };
      } else if (body !== undefined) {
        init = { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
      }
      const root: string = (window as any).Shopify.routes.root;
      const response = await fetch(`${root}${endpoint}`, init);
      return { status: response.status, json: await response.json() };
    },
    { endpoint, body, form },
  );
}

/** From the cart page: Check out, then Pay now; the checkout Shopify made the order of. */
async function checkOut(page: Page): Promise<{ checkout: PaidCheckout; subtotal: string | null }> {
  const before = paid.length;
  await visit(page, "/cart");
  await submit(page, "#checkout", /^\/checkouts\/cn\/[^/]+$/);
  const subtotal = await page.textContent("#subtotal");
  await submit(page, "#pay-now", /\/thank-you$/);
  expect(paid).toHaveLength(before + 1);
  return { checkout: paid.at(-1)!, subtotal };
}

const bare = (token: string) => token.split("?")[0];

describe("the cart in the browser, through the theme's pages", () => {
  it("a cart built, changed and cleared only through the Ajax API checks out with the right lines and total", async () => {
    const page = await shopper();
    await visit(page, PRODUCT_PATH);

    const added = await ajax(page, "cart/add.js", { items: [{ id: VARIANT, quantity: 2 }] });
    expect(added.status).toBe(200);
    const engraved = await ajax(page, "cart/add.js", undefined, {
      id: String(VARIANT),
      quantity: "1",
      "properties[Engraving]": "Ada",
    });
    expect(engraved.json).toMatchObject({ quantity: 1, properties: { Engraving: "Ada" } });
    const changed = await ajax(page, "cart/change.js", { line: 2, quantity: 5 });
    expect(changed.json.items.map((item: any) => item.quantity)).toEqual([1, 5]);
    const cleared = await ajax(page, "cart/clear.js", {});
    expect(cleared.json).toMatchObject({ items: [], token: changed.json.token });

    // Built again: two lines, one of them removed by its key, the other set by its variant id.
    const rebuilt = await ajax(page, "cart/add.js", {
      items: [
        { id: VARIANT, quantity: 1, properties: { Engraving: "Ada" } },
        { id: VARIANT, quantity: 2 },
      ],
    });
    await ajax(page, "cart/change.js", { id: rebuilt.json.items[0].key, quantity: 0 });
    const updated = await ajax(page, "cart/update.js", { updates: { [VARIANT]: 3 }, attributes: { Gift: "yes" } });
    expect(updated.json).toMatchObject({ item_count: 3, total_price: 3 * PRODUCT_VARIANT.price });

    // The theme's cart page shows it, and its checkout pays for exactly that.
    await visit(page, "/cart");
    expect(await page.locator("#lines li").allTextContents()).toEqual(["Merino wool beanie × 3 — $29.00"]);
    const { checkout, subtotal } = await checkOut(page);
    expect(subtotal).toBe("$87.00");
    expect(checkout.lines).toEqual([{ title: "Merino wool beanie", price: "29.00", quantity: 3 }]);
    expect(checkout.cartToken).toBe(bare(updated.json.token));
    expect(checkout.attributes).toEqual({ Gift: "yes" });
    await page.context().close();
  });

  it("a checkout from a cart built with the theme's forms carries what one built with the Ajax API carries", async () => {
    /** A shopper who follows a creator's link (the embed writes the click into the cart), fills the cart, checks out. */
    async function journey(clickId: string, fill: (page: Page) => Promise<void>) {
      const page = await shopper();
      await visit(page, `${PRODUCT_PATH}?lb_click=${clickId}&tag=creator-20`);
      await fill(page);
      const cart = (await ajax(page, "cart.js")).json;
      const { checkout, subtotal } = await checkOut(page);
      await page.context().close();
      return { cart, checkout, subtotal };
    }

    const forms = await journey("clk_forms", async (page) => {
      await submit(page, "#add-to-cart", /^\/cart$/);
      await visit(page, PRODUCT_PATH);
      await submit(page, "#add-to-cart", /^\/cart$/);
    });
    const api = await journey("clk_api", async (page) => {
      expect((await ajax(page, "cart/add.js", { id: VARIANT, quantity: 2 })).status).toBe(200);
    });

    for (const { cart, checkout } of [forms, api]) {
      expect(checkout.cartToken).toBe(bare(cart.token));
      expect(checkout.attributes).toEqual(cart.attributes);
    }
    expect(forms.checkout.attributes[CART_ATTRIBUTES.clickId]).toBe("clk_forms");
    expect(api.checkout.attributes[CART_ATTRIBUTES.clickId]).toBe("clk_api");
    expect(Object.keys(api.checkout.attributes).sort()).toEqual(Object.keys(forms.checkout.attributes).sort());
    expect(forms.checkout.lines).toEqual([{ title: "Merino wool beanie", price: "29.00", quantity: 2 }]);
    expect(api.checkout.lines).toEqual(forms.checkout.lines);
    expect(api.cart.items).toEqual(forms.cart.items);
    expect([forms.subtotal, api.subtotal]).toEqual(["$58.00", "$58.00"]);
  });
});
