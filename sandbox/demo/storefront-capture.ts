import { existsSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { CLICK_ID_PARAM } from "../../app/attribution/cart-attributes";
import { CHROMIUM_PATH, launchChromium } from "../storefront/chromium";
import { ASSET_FILE, Storefront } from "../storefront/server";
import { syntheticCapture, type CaptureCart } from "./run-scenario";

// Where the demo's cart attributes come from. With Chromium and the built extension asset, each
// order is a new shopper (a fresh browser context) clicking through the stand-in storefront
// with the real click-capture script, and the attributes are read from that shopper's cart:
// exactly what Shopify would copy into the order's note_attributes. Without them, the
// attributes are written as the script writes them (syntheticCapture), and the log says why.
// DEMO_STOREFRONT=synthetic forces the fallback.

const PAGE_TIMEOUT_MS = 10_000;

export interface StorefrontCapture {
  capture: CaptureCart;
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

export async function chooseCapture(log: (line: string) => void): Promise<StorefrontCapture> {
  const reason = browserUnavailable();
  if (reason) {
    log(`Storefront step: synthetic cart attributes, written as the click-capture extension writes them (${reason})`);
    return { capture: syntheticCapture, close: async () => {} };
  }
  const capture = await browserCapture();
  log("Storefront step: real Chromium with the click-capture extension");
  return capture;
}

/** Starts the stand-in storefront and one Chromium; every capture is a new browser context. */
export async function browserCapture(): Promise<StorefrontCapture> {
  const store = new Storefront();
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
  const capture: CaptureCart = (input) => {
    const run = queue.then(() => captureOne(browser, store, input));
    queue = run.catch(() => undefined);
    return run;
  };

  let closed = false;
  return {
    capture,
    async close() {
      if (closed) return;
      closed = true;
      await browser.close().catch(() => undefined);
      await store.stop();
    },
  };
}

type CaptureInput = Parameters<CaptureCart>[0];

/** The pages one shopper visits for an order, in order. */
export function shopperJourney({ clickId, expectedTag, arrivedTag, tagParam }: CaptureInput): string[] {
  const query = (params: Record<string, string>) => new URLSearchParams(params).toString();
  if (arrivedTag === null) return [`/?${query({ [CLICK_ID_PARAM]: clickId })}`]; // the tag was stripped
  if (expectedTag === null || arrivedTag === expectedTag)
    return [`/?${query({ [CLICK_ID_PARAM]: clickId, [tagParam]: arrivedTag })}`];
  // A coupon extension's redirect: the creator's link first, then the same shop with the tag swapped.
  return [
    `/?${query({ [CLICK_ID_PARAM]: clickId, [tagParam]: expectedTag })}`,
    `/products/x?${query({ [tagParam]: arrivedTag })}`,
  ];
}

async function captureOne(browser: Browser, store: Storefront, input: CaptureInput): Promise<Record<string, string>> {
  // The block renders the scenario's tag parameter as the merchant's setting would.
  store.reset({ storefrontConfig: { tagParams: [input.tagParam] } });
  const context = await browser.newContext();
  const errors: string[] = [];
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(PAGE_TIMEOUT_MS);
    page.on("pageerror", (error) => errors.push(String(error)));
    for (const path of shopperJourney(input)) {
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
    return { ...cart.attributes };
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
