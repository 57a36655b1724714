import { existsSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import german from "../../app/i18n/locales/de.json";
import { freePort } from "../../sandbox/listen";
import { signSessionToken, startShopifyStandin, type ShopifyStandin } from "../../sandbox/shopify";
import { BROWSER_USER_AGENT } from "../../sandbox/storefront/chromium";
import { launchChromium } from "../support/chromium";
import { startApp, type AppProcess } from "../../sandbox/demo/app-process";

// What the built app answers outside the admin's pages, served by the app's production server as a host runs
// it: the root URL Shopify opens, the login page (in Chromium: a person uses it), the health
// check with and without a database that answers, and the headers that let only the shop's
// admin frame the embedded app.

const ROOT = path.resolve(__dirname, "../..");
const SHOP = "e2e-public.myshopify.com";
const API_KEY = "e2e-public-api-key";
const API_SECRET = "e2e-public-api-secret";

/** The production build, as a host starts it, once it answers HTTP at all (healthy or not). */
function serveBuild(env: Record<string, string>): Promise<AppProcess> {
  return startApp(
    {
      NODE_ENV: "test",
      SHOPIFY_API_KEY: API_KEY,
      SHOPIFY_API_SECRET: API_SECRET,
      WORKER_ENABLED: "false",
      LOG_LEVEL: "error",
      NODE_OPTIONS: "",
      ...env,
    },
    () => {},
    [],
    "answering",
  );
}

let standin: ShopifyStandin;
let app: AppProcess;
let broken: AppProcess;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, "build/server/index.js")))
    throw new Error("no app build: run `npx remix vite:build` (global setup does)");
  standin = await startShopifyStandin({ apiKey: API_KEY, appSecret: API_SECRET });
  // A database server that is down: nothing listens on its port, so no query is answered.
  const down = `postgresql://tag_guard@127.0.0.1:${await freePort()}/tag_guard`;
  [app, broken] = await Promise.all([
    serveBuild({ DATABASE_URL: process.env.DATABASE_URL!, SHOPIFY_STANDIN_URL: standin.url }),
    serveBuild({ DATABASE_URL: down }),
  ]);
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([app?.stop(), broken?.stop()]);
  await standin?.close();
});

const asBrowser = { "user-agent": BROWSER_USER_AGENT };

describe("/healthz", () => {
  it("answers 200 while the database answers, and 503 when it cannot be reached", async () => {
    const healthy = await fetch(`${app.url}/healthz`);
    expect(healthy.status).toBe(200);
    expect(await healthy.json()).toEqual({ ok: true });

    const down = await fetch(`${broken.url}/healthz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ ok: false });
    // Still up and answering: a failing database is reported, not a crash.
    expect((await fetch(`${broken.url}/healthz`)).status).toBe(503);
  });
});

describe("the root URL", () => {
  it("sends Shopify's launch (with ?shop) on into the embedded app, keeping every parameter", async () => {
    const query = `shop=${SHOP}&host=YWRtaW4uc2hvcGlmeS5jb20&embedded=1`;
    const response = await fetch(`${app.url}/?${query}`, { redirect: "manual", headers: asBrowser });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`/app?${query}`);
  });

  it("sends anyone else to the login page", async () => {
    const response = await fetch(`${app.url}/`, { redirect: "manual", headers: asBrowser });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/auth/login");
  });
});

describe("the login page", () => {
  it("asks for the shop, says what is wrong with a bad one, and sends a good one to Shopify", async () => {
    const context = await browser.newContext({ userAgent: BROWSER_USER_AGENT });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    // Shopify's admin is not reachable from here: note where the app sent the merchant instead.
    const leftFor: string[] = [];
    await page.route("https://admin.shopify.com/**", (route) => {
      leftFor.push(route.request().url());
      return route.fulfill({ status: 200, contentType: "text/html", body: "<p>Shopify admin</p>" });
    });

    await page.goto(`${app.url}/auth/login`);
    const shop = page.getByLabel("Shop domain");
    await shop.waitFor();
    expect(await page.getByText("Enter your shop domain to log in.").count()).toBe(0);

    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByText("Enter your shop domain to log in.").waitFor();

    await shop.fill("not a shop!");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByText("Enter a valid shop domain, such as my-shop.myshopify.com.").waitFor();

    await shop.fill("e2e-public");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByText("Shopify admin").waitFor();
    expect(leftFor).toEqual([`https://admin.shopify.com/store/e2e-public/oauth/install?client_id=${API_KEY}`]);
    expect(errors).toEqual([]);
    await context.close();
  });

  // In German two ways: Shopify admin's `?locale=de` (the browser itself English), and a German
  // browser's Accept-Language with no `?locale=`. Each error comes back from the server's action
  // in the language of the request that sent the form.
  for (const [how, path, locale] of [
    ["?locale=de", "/auth/login?locale=de", "en-US"],
    ["a German browser", "/auth/login", "de-DE"],
  ] as const)
    it(`is in German with ${how}, its errors too`, async () => {
      const context = await browser.newContext({ userAgent: BROWSER_USER_AGENT, locale });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      // The page hydrates once its language has loaded (app/entry.client.tsx): the German chunks
      // are held back until the merchant has typed, as on a slow line, where a merchant types
      // into the server's page before it hydrates; what they typed must be what is sent.
      let release = () => {};
      const loaded = new Promise<void>((resolve) => (release = resolve));
      await page.route(/\/assets\/de-[^/]*\.js$/, async (route) => {
        await loaded;
        await route.continue();
      });
      const hydrated = () => page.waitForFunction(() => "__remixRouter" in window);
      await page.goto(`${app.url}${path}`);
      expect(await page.locator("html").getAttribute("lang")).toBe("de");
      const shop = page.getByLabel(german.login.shopLabel);
      await shop.waitFor();
      const submit = page.getByRole("button", { name: german.login.submit });

      // Not hydrated yet: the browser sends the form itself, and the server's page answers.
      await submit.click();
      await page.getByText(german.login.missingShop).waitFor();
      await shop.fill("not a shop!");
      release();
      await hydrated();
      await submit.click();
      await page.getByText(german.login.invalidShop.replace("{example}", "my-shop.myshopify.com")).waitFor();

      // Hydrated: the app sends the form, and its answer is German too.
      await shop.fill("");
      await submit.click();
      await page.getByText(german.login.missingShop).waitFor();
      expect(errors).toEqual([]);
      await context.close();
    });
});

describe("the embedded app's document", () => {
  const host = Buffer.from(`admin.shopify.com/store/${SHOP.replace(".myshopify.com", "")}`).toString("base64url");
  const idToken = () => signSessionToken({ shop: SHOP, apiKey: API_KEY, secret: API_SECRET, ttlSeconds: 600 });

  it("may be framed only by the shop's own admin (and Shopify's), and preloads App Bridge", async () => {
    const response = await fetch(`${app.url}/app?embedded=1&shop=${SHOP}&host=${host}&id_token=${idToken()}`, {
      redirect: "manual",
      headers: asBrowser,
    });
    expect(response.status, app.output()).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const csp = response.headers.get("content-security-policy") ?? "";
    const ancestors = /frame-ancestors ([^;]*);/.exec(csp)?.[1]?.split(" ") ?? [];
    expect(ancestors.slice(0, 2)).toEqual([`https://${SHOP}`, "https://admin.shopify.com"]);
    // No wildcard that lets any site frame the admin, and no other shop.
    expect(ancestors).not.toContain("*");
    expect(ancestors.filter((source) => source.endsWith(".myshopify.com"))).toEqual([`https://${SHOP}`]);
    // X-Frame-Options would forbid the admin's own frame: the CSP above is the whole rule.
    expect(response.headers.get("x-frame-options")).toBeNull();
    expect(response.headers.get("link")).toContain("https://cdn.shopify.com/shopifycloud/app-bridge.js");
    await response.body?.cancel();
  });
});
