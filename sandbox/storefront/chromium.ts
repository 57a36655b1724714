import { existsSync } from "node:fs";
import { chromium, type Browser, type LaunchOptions } from "playwright-core";

// One way to start a real browser for every browser test (storefront, admin) and the demo's
// storefront step (tests import it through tests/support/chromium.ts): Debian's
// Chromium driven by playwright-core, headless and quiet on the network. `chromium.launch`
// gives each browser a fresh temporary profile (deleted on close), and each
// `browser.newContext()` is isolated again (own cookies and storage), so tests never leak
// into each other. CI installs the browser with `apt-get install -y chromium`; set
// CHROMIUM_PATH to use another binary. A missing browser is a failure, never a skipped test.

/**
 * A desktop Chrome user agent. The Shopify library answers requests that look like bots (Node's
 * fetch, headless Chromium's default) with 410, so anything acting as the merchant's browser
 * presents this.
 */
export const BROWSER_USER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Safari/537.36";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function assertChromiumInstalled(executablePath = CHROMIUM_PATH): void {
  if (!existsSync(executablePath)) {
    throw new Error(
      `Chromium not found at ${executablePath}. Browser tests and the demo's storefront step need it: run ` +
        "`apt-get update && apt-get install -y chromium` (CI does), or set CHROMIUM_PATH to a Chromium binary.",
    );
  }
}

/** Launch Chromium; close it with `browser.close()` (in afterAll). */
export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const executablePath = options.executablePath ?? CHROMIUM_PATH;
  assertChromiumInstalled(executablePath);
  return chromium.launch({
    headless: true,
    ...options,
    executablePath,
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
  });
}
