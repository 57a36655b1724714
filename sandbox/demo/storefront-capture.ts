import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { APP_PROXY_APP_PATH } from "../../app/attribution/cart-attributes";
import { CHROMIUM_PATH, launchChromium } from "../storefront/chromium";
import { ASSET_FILE, Storefront, type AppProxyTarget } from "../storefront/server";
import { signedProxyQuery } from "../storefront/app-proxy";
import { syntheticCapture, type CaptureCart, type CaptureInput } from "./run-scenario";
import { shopperJourney } from "./shopper-journey";

// Where the demo's cart attributes come from. With Chromium and the built extension asset, each
// order is a new shopper (a fresh browser context) clicking through the stand-in storefront
// with the real click-capture script, and the attributes are read from that shopper's cart:
// exactly what Shopify would copy into the order's note_attributes. Without them, the
// attributes are written as the script writes them (syntheticCapture), and the log says why.
// DEMO_STOREFRONT=synthetic forces the fallback.
//
// With `appProxy` (the app's URL and secret, and the shop), the stand-in storefront forwards the
// script's touches through its app proxy to the app, signed as Shopify signs them, and each
// capture waits until the app has answered every touch of the journey, so the order that
// follows finds them; `captureShopper` also tells the cart token the order must carry. Without
// it, touches are answered by the stand-in itself and go no further.

const PAGE_TIMEOUT_MS = 10_000;

/** Send the storefront's app proxy calls to the app. */
export interface DemoAppProxy extends AppProxyTarget {
  shop: string;
}

export interface CaptureOptions {
  appProxy?: DemoAppProxy;
}

export interface ShopperCart {
  /** The cart attributes Shopify would copy into the order's note_attributes. */
  attributes: Record<string, string>;
  /** The cart's bare token (orders/create's cart_token); null when no browser ran. */
  cartToken: string | null;
}

export interface StorefrontCapture {
  capture: CaptureCart;
  /** The same journey, with the cart token as well. */
  captureShopper(input: Parameters<CaptureCart>[0]): Promise<ShopperCart>;
  close(): Promise<void>;
}

/** Why the real browser step cannot run here, or null when it can. */
export function browserUnavailable(): string | null {
  if (process.env.DEMO_STOREFRONT === "synthetic") return "DEMO_STOREFRONT=synthetic";
  if (!existsSync(CHROMIUM_PATH)) {
    return `Chromium not found at ${CHROMIUM_PATH}; install it (apt-get install -y chromium) or set CHROMIUM_PATH`;
  }
  if (!existsSync(ASSET_FILE))
    return `extension asset ${ASSET_FILE} missing; build it with npx tsx scripts/build-extension.ts`;
  return null;
}

export async function chooseCapture(
  log: (line: string) => void,
  options: CaptureOptions = {},
): Promise<StorefrontCapture> {
  const reason = browserUnavailable();
  if (reason) {
    log(
      `Storefront step: synthetic cart attributes, written as the click-capture extension writes them (${reason})` +
        (options.appProxy ? "; no landing reaches the app through the app proxy" : ""),
    );
    const { appProxy } = options;
    return {
      capture: syntheticCapture,
      captureShopper: async (input) => ({
        attributes: await syntheticCapture(input),
        cartToken: input.landing && appProxy ? await syntheticLanding(appProxy, input) : null,
      }),
      close: async () => {},
    };
  }
  const capture = await browserCapture(options);
  log(
    "Storefront step: real Chromium with the click-capture extension" +
      (options.appProxy ? `; landings reach the app through the app proxy (${options.appProxy.appUrl})` : ""),
  );
  return capture;
}

/** Starts the stand-in storefront and one Chromium; every capture is a new browser context. */
export async function browserCapture(options: CaptureOptions = {}): Promise<StorefrontCapture> {
  const { appProxy } = options;
  const store = new Storefront(
    appProxy ? { shop: appProxy.shop, appProxy: { appUrl: appProxy.appUrl, apiSecret: appProxy.apiSecret } } : {},
  );
  await store.start();
  let browser: Browser;
  try {
    browser = await launchChromium();
  } catch (error) {
    await store.stop();
    throw new Error(
      `Storefront step: Chromium at ${CHROMIUM_PATH} did not start (${(error as Error).message.split("\n")[0]}). ` +
        "Fix the browser or set CHROMIUM_PATH; DEMO_STOREFRONT=synthetic skips the browser step.",
    );
  }

  // The storefront's page settings are shared, so captures run one at a time.
  let queue: Promise<unknown> = Promise.resolve();
  const captureShopper = (input: CaptureInput): Promise<ShopperCart> => {
    const run = queue.then(() => captureOne(browser, store, input, input.landing ? appProxy : undefined));
    queue = run.catch(() => undefined);
    return run;
  };

  let closed = false;
  return {
    capture: async (input) => (await captureShopper(input)).attributes,
    captureShopper,
    async close() {
      if (closed) return;
      closed = true;
      await browser.close().catch(() => undefined);
      await store.stop();
    },
  };
}

async function captureOne(
  browser: Browser,
  store: Storefront,
  input: CaptureInput,
  appProxy: DemoAppProxy | undefined,
): Promise<ShopperCart> {
  // The block renders the scenario's tag parameter as the merchant's setting would. Only a
  // landing journey's touches go on to the app; the others are answered by the stand-in.
  store.reset({ storefrontConfig: { tagParams: [input.tagParam] } });
  store.appProxy = appProxy ? { appUrl: appProxy.appUrl, apiSecret: appProxy.apiSecret } : null;
  const toApp = appProxy !== undefined;
  const context = await browser.newContext();
  const errors: string[] = [];
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(PAGE_TIMEOUT_MS);
    page.on("pageerror", (error) => errors.push(String(error)));
    const journey = shopperJourney(input);
    for (const path of journey) {
      let status: string;
      try {
        await page.goto(store.url(path), { waitUntil: "load" });
        status = await completion(page);
      } catch (error) {
        throw new Error(`${path}: ${(error as Error).message.split("\n")[0]}`);
      }
      if (status !== "saved")
        throw new Error(`${path}: the click-capture script finished with "${status}", expected "saved"`);
    }
    const cart = store.cartByCookie(await cartCookie(context, store.origin));
    if (!cart) throw new Error("the shopper has no cart after the visits");
    if (errors.length > 0) throw new Error(`page errors: ${errors.join("; ")}`);
    if (toApp) {
      // Every page of a journey brings a new click or tag, so one touch each, answered by the app.
      const calls = await store.waitForProxyCalls(journey.length, { answered: true, timeoutMs: PAGE_TIMEOUT_MS });
      const refused = calls.filter((call) => call.status !== 202);
      if (refused.length > 0)
        throw new Error(
          `the app answered the touches through the app proxy with ${refused.map((c) => c.status).join(", ")}`,
        );
    }
    return { attributes: { ...cart.attributes }, cartToken: cart.token.split("?")[0]! };
  } catch (error) {
    throw new Error(
      `Storefront step failed for click ${input.clickId} in Chromium: ${(error as Error).message}` +
        " (DEMO_STOREFRONT=synthetic skips the browser step)",
    );
  } finally {
    await context.close().catch(() => undefined);
  }
}

/** The script's completion signal: its status attribute (set with the tag-guard:captured event). */
async function completion(page: Page): Promise<string> {
  const handle = await page.waitForFunction(
    () => document.querySelector("script[data-tag-params]")?.getAttribute("data-tag-guard") ?? null,
  );
  return (await handle.jsonValue()) as string;
}

async function cartCookie(context: BrowserContext, origin: string): Promise<string | undefined> {
  return (await context.cookies(origin)).find((cookie) => cookie.name === "cart")?.value;
}

/**
 * Without a browser, a landing is what the script would report: one signed touch per page of the
 * journey, straight to the app's /proxy/touch as Shopify's proxy would forward it. Returns the
 * cart token the order must carry.
 */
async function syntheticLanding(appProxy: DemoAppProxy, input: CaptureInput): Promise<string> {
  const cartToken = `demo-${randomBytes(12).toString("hex")}`;
  const tags = [...new Set([input.expectedTag ?? input.arrivedTag, input.arrivedTag])];
  for (const tag of input.arrivedTag === null ? [null] : tags) {
    const query = signedProxyQuery("", { shop: appProxy.shop, apiSecret: appProxy.apiSecret });
    const response = await fetch(`${appProxy.appUrl.replace(/\/$/, "")}${APP_PROXY_APP_PATH}/touch?${query}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ clickId: input.clickId, tag, cartToken }),
    });
    if (response.status !== 202) throw new Error(`the app answered ${response.status} to the landing's touch`);
  }
  return cartToken;
}
