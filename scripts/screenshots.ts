import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { startClickService } from "../sandbox/click-service/server";
import { APP_SCOPES, ensureBuild, migrate, standinAppEnv, startApp } from "../sandbox/demo/app-process";
import { createDemoDatabase } from "../sandbox/demo/database";
import { startShopifyStandin } from "../sandbox/shopify";
import { launchChromium } from "../sandbox/storefront/chromium";
import { adminPageStates, openAdminPage } from "../tests/e2e/admin-pages";

// `npm run screenshots`: every admin page, on a shop with data and on a fresh one, at a desktop
// width (1280px) and a phone's (390px), in English, German and Japanese (`--locales` names
// others: any tag Shopify admin passes, en-XA for the pseudo-locale), as PNG files a person can
// look through before a release, one folder per language. The production build runs as the demo runs it (the Shopify stand-in, the sandbox
// click service, a throwaway SQLite file); the pages are opened embedded, as the browser
// tests open them.

const log = (line: string) => process.stdout.write(`${line}\n`);
const ROOT = path.resolve(import.meta.dirname, "..");
const WIDTHS = [1280, 390];
/** German's long words and Japanese's script are where a layout breaks first. */
const LOCALES = "en,de,ja";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { out: { type: "string", default: "screenshots" }, locales: { type: "string", default: LOCALES } },
  });
  const out = path.resolve(ROOT, values.out!);
  const locales = values.locales!.split(",").filter(Boolean);
  for (const locale of locales) mkdirSync(path.join(out, locale), { recursive: true });
  ensureBuild(log);

  const workDir = mkdtempSync(path.join(tmpdir(), "tag-guard-screenshots-"));
  const cleanups: (() => Promise<unknown> | void)[] = [() => rmSync(workDir, { recursive: true, force: true })];
  try {
    const database = await createDemoDatabase(undefined, workDir);
    migrate(database.url);
    const apiKey = randomBytes(16).toString("hex");
    const apiSecret = randomBytes(32).toString("hex");
    const clicks = await startClickService();
    cleanups.push(() => clicks.close());
    const shopify = await startShopifyStandin({ appSecret: apiSecret, apiKey, scopes: APP_SCOPES });
    cleanups.push(() => shopify.close());
    const env = {
      ...standinAppEnv({
        apiKey,
        apiSecret,
        databaseUrl: database.url,
        shopifyUrl: shopify.url,
        clickServiceUrl: clicks.url,
      }),
      // No worker: the pages show the seeded orders as they are, not as a retry left them.
      WORKER_ENABLED: "false",
      LOG_LEVEL: "error",
    };
    // The seed writes through the app's own modules, which read the same environment.
    const app = await startApp(env, log);
    cleanups.push(() => app.stop());
    Object.assign(process.env, env, { SHOPIFY_APP_URL: app.url });
    const { seedShopWithData } = await import("../sandbox/admin-pages/seed-shop");
    const shop = "screenshots-shop.myshopify.com";
    const seeded = await seedShopWithData(shop, { clickServiceUrl: clicks.url, apiKey: clicks.createApiKey() });

    const browser = await launchChromium();
    cleanups.push(() => browser.close());
    const shops = [
      { kind: "data", shop, states: adminPageStates(seeded) },
      { kind: "empty", shop: "screenshots-fresh.myshopify.com", states: adminPageStates(null) },
    ];
    let written = 0;
    for (const locale of locales)
      for (const { kind, shop: name, states } of shops)
        for (const state of states)
          for (const width of WIDTHS) {
            // The language as Shopify admin passes it, after the page's own query.
            const pathname = `${state.path}${state.path.includes("?") ? "&" : "?"}locale=${locale}`;
            const page = await openAdminPage(
              browser,
              { shop: name, apiKey, apiSecret, appUrl: () => app.url },
              pathname,
              width,
            );
            await page.locator("h1").first().waitFor();
            const file = path.join(out, locale, `${kind}-${state.name}-${width}.png`);
            await page.screenshot({ path: file, fullPage: true });
            await page.context().close();
            written += 1;
          }
    log(`Wrote ${written} screenshots to ${path.relative(ROOT, out) || "."}/`);
  } finally {
    for (const step of cleanups.reverse()) await Promise.resolve(step()).catch(() => {});
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
