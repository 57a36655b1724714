import { existsSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { startClickService, type RunningClickService } from "../../sandbox/click-service/server";
import type { AppProcess } from "../../sandbox/demo/app-process";
import { startShopifyStandin, type ShopifyStandin, type ShopifyStandinOptions } from "../../sandbox/shopify";
import { startBuiltApp } from "../support/built-app";
import { launchChromium } from "../support/chromium";
import { embeddedAdmin, openEmbeddedPage, type EmbeddedAdminConfig, type OpenPageOptions } from "./embedded-admin";

// What every browser suite of the admin starts before its tests and stops after them: the
// Shopify stand-in (token exchange, the Admin API), the sandbox click service, the production
// build on this file's database, and Chromium; and how it opens a page, embedded as Shopify
// admin opens it with App Bridge stubbed (embedded-admin.ts).

const ROOT = path.resolve(import.meta.dirname, "../..");

export interface EmbeddedSuiteOptions {
  /** The shop the suite's pages open for, unless a page names another. */
  shop: string;
  apiKey: string;
  apiSecret: string;
  /** The stand-in's options beside the app's key and secret: the scopes it grants, the shops' profile. */
  standin?: Omit<ShopifyStandinOptions, "apiKey" | "appSecret">;
  /** More environment for the built app (SCOPES, say). */
  env?: Record<string, string>;
  /** Runs once the stand-in and the click service answer, before the app starts (settings saved, say). */
  beforeApp?(services: { standin: ShopifyStandin; clicks: RunningClickService }): Promise<void>;
}

export interface EmbeddedSuite {
  readonly standin: ShopifyStandin;
  readonly clicks: RunningClickService;
  readonly browser: Browser;
  /** The built app's base URL. */
  readonly appUrl: string;
  /** How Shopify admin opens the app for `shop`, the suite's by default. */
  adminFor(shop?: string): EmbeddedAdminConfig;
  /** The suite's shop's embedded URL and App Bridge stub (embeddedAdmin). */
  embeddedUrl(pathname: string, query?: string): string;
  /** Opens `pathname` embedded in a fresh context, for the suite's shop or `options.shop`. */
  openPage(pathname: string, options?: OpenPageOptions & { shop?: string }): Promise<Page>;
}

/** Starts the stand-ins, the built app and Chromium for the test file that calls it, and stops them after. */
export function useEmbeddedAdmin(options: EmbeddedSuiteOptions): EmbeddedSuite {
  const { apiKey, apiSecret } = options;
  let standin: ShopifyStandin | undefined;
  let clicks: RunningClickService | undefined;
  let server: AppProcess | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    // The production build (npx remix vite:build) is made once per run by tests/support/global-setup.ts,
    // so no two browser suites write build/ at the same time.
    if (!existsSync(path.join(ROOT, "build/server/index.js")))
      throw new Error("no app build: run `npx remix vite:build` (global setup does)");
    standin = await startShopifyStandin({ apiKey, appSecret: apiSecret, ...options.standin });
    clicks = await startClickService();
    await options.beforeApp?.({ standin, clicks });
    server = await startBuiltApp({ apiKey, apiSecret, standinUrl: standin.url }, options.env);
    browser = await launchChromium();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await standin?.close();
    await clicks?.close();
  });

  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} starts in beforeAll`);
    return value;
  };
  const adminFor = (shop = options.shop): EmbeddedAdminConfig => ({
    shop,
    apiKey,
    apiSecret,
    appUrl: () => started(server, "the app").url,
  });
  return {
    get standin() {
      return started(standin, "the Shopify stand-in");
    },
    get clicks() {
      return started(clicks, "the click service");
    },
    get browser() {
      return started(browser, "Chromium");
    },
    get appUrl() {
      return started(server, "the app").url;
    },
    adminFor,
    embeddedUrl: (pathname, query) => embeddedAdmin(adminFor()).embeddedUrl(pathname, query),
    openPage: (pathname, { shop, ...open } = {}) =>
      openEmbeddedPage(started(browser, "Chromium"), adminFor(shop), pathname, open),
  };
}
