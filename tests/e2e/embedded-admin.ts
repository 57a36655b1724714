import path from "node:path";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { signSessionToken } from "../../sandbox/shopify";
import { BROWSER_USER_AGENT } from "../../sandbox/storefront/chromium";

// Opening the app as Shopify admin does: embedded, with an id_token, and App Bridge replaced by a
// stub that adds the session token to the page's own requests (its CDN script cannot load offline).

export interface EmbeddedAdminConfig {
  shop: string;
  apiKey: string;
  apiSecret: string;
  /** The app's base URL, known once the test's server is up. */
  appUrl(): string;
}

/** What the App Bridge stub does: see appBridgeStub. */
export interface AppBridgeStubOptions {
  extensions?: unknown[] | "reject";
  saveBar?: boolean;
}

export function embeddedAdmin(config: EmbeddedAdminConfig) {
  const token = () =>
    signSessionToken({ shop: config.shop, apiKey: config.apiKey, secret: config.apiSecret, ttlSeconds: 600 });
  return {
    token,
    embeddedUrl(pathname: string, query = ""): string {
      const store = config.shop.replace(".myshopify.com", "");
      const host = Buffer.from(`admin.shopify.com/store/${store}`).toString("base64url");
      return `${config.appUrl()}${pathname}?embedded=1&shop=${config.shop}&host=${host}&id_token=${token()}${query}`;
    },
    /**
     * What App Bridge would do for the page's own requests, minus everything else it does.
     * `extensions`: what `shopify.app.extensions()` resolves with (Shopify's ExtensionInfo list),
     * "reject" for a call that fails; omitted, the stub has no `app` at all (an older App Bridge).
     * `saveBar: false` leaves out `shopify.saveBar` and the `ui-save-bar` element (as an App
     * Bridge without them would). Otherwise the save bar's and the toast's calls are recorded in
     * `window.tagGuardAppBridgeCalls` (read it with `appBridgeCalls(page)`), the save bar's
     * visibility in `window.tagGuardSaveBars`, and `ui-save-bar` hides its buttons as the admin does.
     */
    appBridgeStub(options: AppBridgeStubOptions = {}): string {
      const app =
        options.extensions === undefined
          ? ""
          : options.extensions === "reject"
            ? `app: { extensions: async () => { throw new Error("extensions unavailable"); } },`
            : `app: { extensions: async () => ${JSON.stringify(options.extensions)} },`;
      return `(() => {
    const origin = ${JSON.stringify(config.appUrl())};
    const realFetch = window.fetch.bind(window);
    // The scopes API asks the test (page.exposeFunction) when it has set up answers; otherwise
    // the shop has granted exactly the required scopes and a request is declined.
    const required = ["read_orders", "write_orders"];
    const detail = (granted) => ({ granted, required, optional: ["read_discounts", "write_discounts"] });
    const calls = (window.tagGuardAppBridgeCalls = []);
    const saveBars = (window.tagGuardSaveBars = {});
    const record = (name, ...args) => calls.push([name, ...args]);
    const saveBar = ${
      options.saveBar === false
        ? "undefined"
        : `{
      show: async (id) => { record("saveBar.show", id); saveBars[id] = true; },
      hide: async (id) => { record("saveBar.hide", id); saveBars[id] = false; },
      toggle: async (id) => { record("saveBar.toggle", id); saveBars[id] = !saveBars[id]; },
      leaveConfirmation: async () => { record("saveBar.leaveConfirmation"); },
    }`
    };
    if (saveBar && !customElements.get("ui-save-bar"))
      customElements.define("ui-save-bar", class extends HTMLElement {
        connectedCallback() { this.style.display = "none"; }
      });
    window.shopify = {
      saveBar,
      toast: { show: (message, opts) => { record("toast.show", message, opts); return "toast-" + calls.length; }, hide: () => {} },
      idToken: async () => ${JSON.stringify(token())},
      scopes: {
        query: async () => (window.tagGuardScopesQuery ? window.tagGuardScopesQuery() : detail(required)),
        request: async (scopes) =>
          window.tagGuardScopesRequest
            ? window.tagGuardScopesRequest(scopes)
            : { result: "declined-all", detail: detail(required) },
      },
      ${app}
    };
    window.fetch = (input, init = {}) => {
      const url = new URL(typeof input === "string" ? input : input.url ?? String(input), location.href);
      if (url.origin !== origin) return realFetch(input, init);
      const headers = new Headers(init.headers || (input instanceof Request ? input.headers : undefined));
      headers.set("Authorization", "Bearer " + ${JSON.stringify(token())});
      return realFetch(input, { ...init, headers });
    };
  })();`;
    },
  };
}

export interface OpenPageOptions {
  /** More query after the embedded app's own ("&cursor=..."). */
  query?: string;
  /** What the App Bridge stub does. */
  stub?: AppBridgeStubOptions;
  /** The browser context's options beside the user agent: a viewport, a locale. */
  context?: BrowserContextOptions;
  /**
   * Listens to the page before it loads: its errors, its answers, functions it may call. By
   * default its uncaught errors and answers of 500 or more are logged (logProblems).
   */
  watch?(page: Page): void | Promise<void>;
}

/**
 * Opens `pathname` as Shopify admin does (embedded, with an id_token, App Bridge stubbed) in a
 * fresh browser context, and resolves once the page has begun to hydrate: the page's language
 * loads before hydration, often after the load event, and a click on a page not yet hydrated is
 * lost (once hydration has begun, React replays it).
 */
export async function openEmbeddedPage(
  browser: Browser,
  admin: EmbeddedAdminConfig,
  pathname: string,
  options: OpenPageOptions = {},
): Promise<Page> {
  const { embeddedUrl, appBridgeStub } = embeddedAdmin(admin);
  // Headless Chromium says "HeadlessChrome", which the library answers as a bot (410).
  const context = await browser.newContext({ userAgent: BROWSER_USER_AGENT, ...options.context });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await (options.watch ?? logProblems)(page);
  await page.route("https://cdn.shopify.com/**", (route) =>
    route.request().url().endsWith(".js")
      ? route.fulfill({ status: 200, contentType: "text/javascript", body: appBridgeStub(options.stub) })
      : route.fulfill({ status: 200, contentType: "text/css", body: "" }),
  );
  await page.goto(embeddedUrl(pathname, options.query));
  // Remix's browser router is made as hydration starts.
  await page.waitForFunction(() => "__remixRouter" in window);
  return page;
}

/** Logs what went wrong in a page: an uncaught error, or an answer of 500 or more. */
export function logProblems(page: Page): void {
  page.on("pageerror", (error) => console.error(`[browser] ${error.message.slice(0, 600)}`));
  page.on("response", (response) => {
    if (response.status() >= 500) console.error(`[browser http] ${response.status()} ${response.url()}`);
  });
}

/** TAG_GUARD_E2E_SCREENSHOTS=dir saves a full-page screenshot at each checkpoint, for a human to look at. */
export async function snap(page: Page, name: string): Promise<void> {
  const dir = process.env.TAG_GUARD_E2E_SCREENSHOTS;
  if (dir) await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

/** The save bar and toast calls the page made to the App Bridge stub, oldest first. */
export async function appBridgeCalls(page: Page): Promise<unknown[][]> {
  return page.evaluate(
    () => (window as unknown as { tagGuardAppBridgeCalls?: unknown[][] }).tagGuardAppBridgeCalls ?? [],
  );
}

/** Whether the stub's save bar with this id is showing. */
export async function saveBarShown(page: Page, id: string): Promise<boolean> {
  return page.evaluate(
    (barId) => (window as unknown as { tagGuardSaveBars?: Record<string, boolean> }).tagGuardSaveBars?.[barId] === true,
    id,
  );
}
