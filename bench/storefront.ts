import { existsSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { CHROMIUM_PATH, launchChromium } from "../sandbox/storefront/chromium";
import { ASSET_FILE, Storefront } from "../sandbox/storefront/server";

// The click-capture script as a shopper's browser gets it: its size, and what it costs a page
// that came without a tracked link (it must cost nothing: no request at all).

export interface StorefrontResult {
  rawBytes: number;
  gzipBytes: number;
  /** Requests the script made on quiet pages (no click id, no tag); null without Chromium. */
  requestsWithoutParams: number | null;
}

export async function benchStorefront(): Promise<StorefrontResult> {
  const asset = readFileSync(ASSET_FILE);
  const result = { rawBytes: asset.length, gzipBytes: gzipSync(asset, { level: 9 }).length };
  if (!existsSync(CHROMIUM_PATH)) return { ...result, requestsWithoutParams: null };
  const store = new Storefront();
  await store.start();
  const browser = await launchChromium();
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    for (const path of ["/", "/products/x", "/collections/all?sort_by=price", "/?utm_source=newsletter"]) {
      await page.goto(store.url(path), { waitUntil: "load" });
      await page.waitForFunction(() => document.readyState === "complete");
    }
    await context.close();
    // What the script can send: cart reads and writes, and touches through the app proxy.
    return { ...result, requestsWithoutParams: store.cartRequests().length + store.proxyCalls.length };
  } finally {
    await browser.close();
    await store.stop();
  }
}
