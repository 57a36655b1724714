import { createServer, type Server } from "node:http";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  CART_ATTRIBUTES,
  MAX_ATTRIBUTE_LENGTH,
  TAG_HISTORY_LIMIT,
  TOUCH_PATH,
  type TouchRequest,
} from "../../app/attribution/cart-attributes";
import { authenticate } from "../../app/shopify.server";
import { listen } from "../../sandbox/listen";
import { launchChromium } from "../support/chromium";
import { serveRoutes } from "../support/route-server";
import type { Cart } from "../../sandbox/storefront/cart";
import { ASSET_PATH, type LoggedRequest, Storefront } from "../../sandbox/storefront/server";

// The click-capture app embed running for real in Chromium against a stand-in storefront
// (sandbox/storefront/server.ts). Every case waits for the script's own completion signal (the
// data-tag-guard attribute it sets on its <script> element) and, when touches are expected, for
// them to reach the stand-in's app proxy; then it counts requests: no sleeps, no timing
// assertions.

const { clickId: CLICK, arrivedTag: TAG, capturedAt: AT, tagHistory: TAGS } = CART_ATTRIBUTES;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const STATUS_SELECTOR = "script[data-tag-params]";
const TOUCH = `/${TOUCH_PATH}`;

const store = new Storefront();
let browser: Promise<Browser> | undefined;
const shoppers: Shopper[] = [];

// Launched by the first test that needs it, so a missing Chromium fails every test with the
// launcher's message (install it) instead of skipping them.
const chromium = () => (browser ??= launchChromium());

beforeAll(async () => {
  await store.start();
});

afterAll(async () => {
  await Promise.all(shoppers.map((shopper) => shopper.context.close().catch(() => undefined)));
  await (await browser?.catch(() => undefined))?.close();
  await store.stop();
});

beforeEach(() => {
  store.reset();
});

interface Visit {
  status: string;
  /** Cart API requests the page made during this visit, as the server saw them. */
  cartRequests: LoggedRequest[];
  /** Every request the page made other than the document itself and the script asset. */
  scriptRequests: string[];
  /** The touches the app proxy received during this visit (as many as `touches` asked to wait for). */
  touches: TouchRequest[];
}

/** One browser profile (cookies + storage) visiting the store page after page. */
class Shopper {
  readonly errors: string[] = [];
  readonly dialogs: string[] = [];
  readonly requested: string[] = [];

  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
  ) {}

  static async create(initScript?: string): Promise<Shopper> {
    const context = await (await chromium()).newContext({ viewport: { width: 1024, height: 700 } });
    if (initScript) await context.addInitScript(initScript);
    const page = await context.newPage();
    // Fail a wait with Playwright's message well before vitest's 30 s test timeout.
    page.setDefaultTimeout(10_000);
    const shopper = new Shopper(context, page);
    page.on("pageerror", (error) => shopper.errors.push(String(error)));
    page.on("dialog", (dialog) => {
      shopper.dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on("request", (request) => shopper.requested.push(request.url()));
    shoppers.push(shopper);
    return shopper;
  }

  /** Load a page, wait until the script reports it is done and `touches` touches have arrived. */
  async visit(pathAndQuery: string, { touches = 0 } = {}): Promise<Visit> {
    const serverBefore = store.requests.length;
    const proxyBefore = store.proxyCalls.length;
    const pageBefore = this.requested.length;
    await this.page.goto(store.url(pathAndQuery), { waitUntil: "load" });
    const status = await this.waitForStatus();
    const calls = await store.waitForProxyCalls(proxyBefore + touches);
    const document = store.url(pathAndQuery);
    return {
      status,
      cartRequests: store.cartRequests().filter((request) => store.requests.indexOf(request) >= serverBefore),
      scriptRequests: this.requested
        .slice(pageBefore)
        .filter((url) => url !== document && url !== store.url(ASSET_PATH)),
      touches: calls.slice(proxyBefore).map((call) => JSON.parse(call.body) as TouchRequest),
    };
  }

  async waitForStatus(until?: string): Promise<string> {
    const handle = await this.page.waitForFunction(
      ([selector, wanted]) => {
        const status = document.querySelector(selector!)?.getAttribute("data-tag-guard");
        return status && (!wanted || status === wanted) ? status : null;
      },
      [STATUS_SELECTOR, until] as const,
    );
    return (await handle.jsonValue()) as string;
  }

  async cartCookie(): Promise<string | undefined> {
    const cookies = await this.context.cookies(store.origin);
    return cookies.find((cookie) => cookie.name === "cart")?.value;
  }

  async cart(): Promise<Cart | undefined> {
    return store.cartByCookie(await this.cartCookie());
  }

  async attributes(): Promise<Record<string, string>> {
    return (await this.cart())?.attributes ?? {};
  }

  async storage(): Promise<string | null> {
    return this.page.evaluate(() => {
      try {
        return localStorage.getItem("tag_guard");
      } catch {
        return "(blocked)";
      }
    });
  }
}

const history = (attributes: Record<string, string>) => JSON.parse(attributes[TAGS] ?? "null") as [string, string][];

function expectNoRequests(visit: Visit) {
  expect(visit.cartRequests).toEqual([]);
  expect(visit.scriptRequests).toEqual([]);
  expect(visit.touches).toEqual([]);
}

/** Consent declined: the landing's click and tag reported once, without a cart; nothing else asked or sent. */
function expectOnlyArrival(visit: Visit, clickId: string, tag: string | null) {
  expect(visit.cartRequests).toEqual([]);
  expect(visit.touches).toEqual([{ clickId, tag, cartToken: null }]);
  expect(visit.scriptRequests).toEqual([store.url(`/${TOUCH_PATH}`)]);
}

/** The cart token as orders/create carries it: the cookie's token without its ?key= suffix. */
const bare = (cart: Cart | undefined) => cart?.token.split("?")[0];

const describeRequests = (visit: Visit) => visit.cartRequests.map((request) => `${request.method} ${request.path}`);

describe("click capture on the storefront", () => {
  it("first landing with a click and a tag writes all four attributes in one request", async () => {
    const shopper = await Shopper.create();
    const visit = await shopper.visit("/products/beanie?lb_click=clk_123&tag=creator-20", { touches: 1 });

    expect(visit.status).toBe("saved");
    // No cart yet, so nothing to read first: one write, then the touch for the cart it made.
    expect(describeRequests(visit)).toEqual(["POST /cart/update.js"]);
    expect(visit.scriptRequests).toEqual([store.url("/cart/update.js"), store.url(TOUCH)]);
    const attributes = await shopper.attributes();
    expect(attributes[CLICK]).toBe("clk_123");
    expect(attributes[TAG]).toBe("creator-20");
    expect(attributes[AT]).toMatch(ISO);
    expect(history(attributes)).toEqual([["creator-20", attributes[AT]]]);
    expect(JSON.parse(visit.cartRequests[0]!.body)).toEqual({ attributes });
    expect(shopper.errors).toEqual([]);
  });

  it("makes no request on later pages without parameters, nor when the same link is opened again", async () => {
    const shopper = await Shopper.create();
    await shopper.visit("/?lb_click=clk_1&tag=creator-20");

    const plain = await shopper.visit("/collections/all");
    expect(plain.status).toBe("idle");
    expectNoRequests(plain);

    const again = await shopper.visit("/?lb_click=clk_1&tag=creator-20");
    expect(again.status).toBe("unchanged");
    expectNoRequests(again);
    expect(shopper.errors).toEqual([]);
  });

  it("a later page with a different tag replaces the arrived tag and keeps both in the history (the hijack)", async () => {
    const shopper = await Shopper.create();
    await shopper.visit("/?lb_click=clk_1&tag=creator-20");
    const first = await shopper.attributes();

    // A coupon extension redirects through its own link: the click id is gone, the tag swapped.
    const hijack = await shopper.visit("/products/beanie?tag=honey-20");
    expect(hijack.status).toBe("saved");
    // Memory describes this cart: no read, one write of what changed.
    expect(describeRequests(hijack)).toEqual(["POST /cart/update.js"]);
    expect(Object.keys(JSON.parse(hijack.cartRequests[0]!.body).attributes).sort()).toEqual([TAG, TAGS].sort());

    const attributes = await shopper.attributes();
    expect(attributes[CLICK]).toBe("clk_1");
    expect(attributes[AT]).toBe(first[AT]);
    expect(attributes[TAG]).toBe("honey-20");
    const tags = history(attributes);
    expect(tags.map(([tag]) => tag)).toEqual(["creator-20", "honey-20"]);
    expect(tags[1]![1]).toMatch(ISO);
    expect(Date.parse(tags[1]![1])).toBeGreaterThanOrEqual(Date.parse(tags[0]![1]));

    // Same click, swapped tag (the extension kept lb_click): also last touch.
    await shopper.visit("/?lb_click=clk_1&tag=other-21");
    expect(history(await shopper.attributes()).map(([tag]) => tag)).toEqual(["creator-20", "honey-20", "other-21"]);
    expect(shopper.errors).toEqual([]);
  });

  it("reads a repeated parameter in order: the last occurrence is the arrived tag, all are evidence", async () => {
    const shopper = await Shopper.create();
    // A coupon extension appended its own tag to the creator's link.
    const visit = await shopper.visit("/?lb_click=clk_a&tag=creator-20&lb_click=clk_b&tag=&tag=honey-20");
    expect(visit.status).toBe("saved");
    const attributes = await shopper.attributes();
    expect(attributes[CLICK]).toBe("clk_b");
    expect(attributes[TAG]).toBe("honey-20");
    expect(history(attributes).map(([tag]) => tag)).toEqual(["creator-20", "honey-20"]);
  });

  it("keeps the tag history bounded: the journey's first tag and the most recent ones", async () => {
    const shopper = await Shopper.create();
    await shopper.visit("/?lb_click=clk_1&tag=t0");
    for (let i = 1; i <= 7; i++) await shopper.visit(`/?tag=t${i}`);
    const attributes = await shopper.attributes();
    const tags = history(attributes).map(([tag]) => tag);
    expect(tags).toHaveLength(TAG_HISTORY_LIMIT);
    expect(tags).toEqual(["t0", "t4", "t5", "t6", "t7"]);
    expect(attributes[TAG]).toBe("t7");
  });

  it("a click without a tag records the click only", async () => {
    const shopper = await Shopper.create();
    const visit = await shopper.visit("/?lb_click=clk_only");
    expect(visit.status).toBe("saved");
    const attributes = await shopper.attributes();
    expect(attributes).toEqual({ [CLICK]: "clk_only", [AT]: expect.stringMatching(ISO) });
  });

  it("a new click starts a new journey: the old click's tag and history are cleared", async () => {
    const shopper = await Shopper.create();
    await shopper.visit("/?lb_click=clk_old&tag=creator-20");
    const visit = await shopper.visit("/?lb_click=clk_new");
    expect(visit.status).toBe("saved");
    const attributes = await shopper.attributes();
    expect(attributes[CLICK]).toBe("clk_new");
    expect(attributes[TAG] ?? "").toBe("");
    expect(attributes[TAGS] ?? "").toBe("");
  });

  it("a tag without a click records the tag and its history, no click", async () => {
    const shopper = await Shopper.create();
    const visit = await shopper.visit("/?tag=creator-20");
    expect(visit.status).toBe("saved");
    const attributes = await shopper.attributes();
    expect(attributes[CLICK]).toBeUndefined();
    expect(attributes[AT]).toBeUndefined();
    expect(attributes[TAG]).toBe("creator-20");
    expect(history(attributes).map(([tag]) => tag)).toEqual(["creator-20"]);
  });

  it("a first visit without parameters makes no request, sets no cookie and stores nothing", async () => {
    const shopper = await Shopper.create();
    const visit = await shopper.visit("/");
    expect(visit.status).toBe("idle");
    expectNoRequests(visit);
    expect(await shopper.cartCookie()).toBeUndefined();
    expect(await shopper.storage()).toBeNull();
    expect(store.carts.size).toBe(0);
  });

  it("writes the attributes again into the new cart after a checkout (new cart token)", async () => {
    const shopper = await Shopper.create();
    await shopper.visit("/?lb_click=clk_1&tag=creator-20");
    const before = await shopper.attributes();

    // Checkout done: the browser now holds a different cart.
    const token = store.newCartToken();
    await shopper.context.addCookies([{ name: "cart", value: encodeURIComponent(token), url: store.origin }]);

    const visit = await shopper.visit("/");
    expect(visit.status).toBe("saved");
    // The new cart may already hold attributes (another tab): read it, then write.
    expect(describeRequests(visit)).toEqual(["GET /cart.js", "POST /cart/update.js"]);
    expect((await shopper.cart())?.token).toBe(token);
    expect(await shopper.attributes()).toEqual(before);

    const after = await shopper.visit("/products/beanie");
    expect(after.status).toBe("idle");
    expectNoRequests(after);
  });

  it("writes the attributes again when the checkout left no cart at all", async () => {
    const shopper = await Shopper.create();
    await shopper.visit("/?lb_click=clk_1&tag=creator-20");
    const before = await shopper.attributes();
    const oldCookie = await shopper.cartCookie();
    await shopper.context.clearCookies();

    const visit = await shopper.visit("/");
    expect(visit.status).toBe("saved");
    expect(describeRequests(visit)).toEqual(["POST /cart/update.js"]);
    expect(await shopper.cartCookie()).not.toBe(oldCookie);
    expect(await shopper.attributes()).toEqual(before);
  });

  it("works with storage blocked, using the cart itself as the record", async () => {
    const shopper = await Shopper.create(`
      Object.defineProperty(window, "localStorage", {
        configurable: true,
        get() { throw new DOMException("The operation is insecure.", "SecurityError"); },
      });
    `);
    const landing = await shopper.visit("/?lb_click=clk_1&tag=creator-20");
    expect(landing.status).toBe("saved");
    expect(describeRequests(landing)).toEqual(["POST /cart/update.js"]);

    // No memory: read the cart to extend its history, then write.
    const hijack = await shopper.visit("/?tag=honey-20");
    expect(hijack.status).toBe("saved");
    expect(describeRequests(hijack)).toEqual(["GET /cart.js", "POST /cart/update.js"]);
    const attributes = await shopper.attributes();
    expect(attributes[CLICK]).toBe("clk_1");
    expect(history(attributes).map(([tag]) => tag)).toEqual(["creator-20", "honey-20"]);

    const plain = await shopper.visit("/");
    expect(plain.status).toBe("idle");
    expectNoRequests(plain);
    expect(await shopper.storage()).toBe("(blocked)");
    expect(shopper.errors).toEqual([]);
  });

  for (const failure of ["500", "network"] as const) {
    it(`survives a failing cart endpoint (${failure}) and retries on a later page view`, async () => {
      const shopper = await Shopper.create();
      // A network error is made in the browser (the request never reaches the server), so
      // Chromium's own retry of a reset keep-alive connection cannot blur the count.
      const cartUrls = /\/cart(\.js|\/update\.js)$/;
      if (failure === "500") store.failure = "500";
      else await shopper.context.route(cartUrls, (route) => route.abort("connectionreset"));

      const landing = await shopper.visit("/?lb_click=clk_1&tag=creator-20");
      expect(landing.status).toBe("failed");
      expect(landing.scriptRequests).toEqual([store.url("/cart/update.js")]);
      expect(shopper.errors).toEqual([]);
      expect(await shopper.attributes()).toEqual({});

      // Still failing: retried (and failing quietly) on the next page too.
      const still = await shopper.visit("/collections/all");
      expect(still.status).toBe("failed");
      expect(still.scriptRequests).toEqual([store.url("/cart/update.js")]);
      expect(shopper.errors).toEqual([]);

      store.failure = "none";
      await shopper.context.unroute(cartUrls);
      // No touch until a write succeeded: the cart (and its token) may not exist before.
      expect(store.proxyCalls).toEqual([]);
      const retry = await shopper.visit("/products/beanie", { touches: 1 });
      expect(retry.status).toBe("saved");
      expect(retry.touches).toEqual([{ clickId: "clk_1", tag: "creator-20", cartToken: bare(await shopper.cart()) }]);
      const attributes = await shopper.attributes();
      expect(attributes[CLICK]).toBe("clk_1");
      expect(attributes[TAG]).toBe("creator-20");

      const settled = await shopper.visit("/");
      expect(settled.status).toBe("idle");
      expectNoRequests(settled);
      expect(shopper.errors).toEqual([]);
    });
  }

  it("stores hostile values as bounded text and never puts them in the page", async () => {
    const shopper = await Shopper.create(`
      window.__mutations = [];
      let watching = false;
      const observer = new MutationObserver((records) => {
        if (!watching) return;
        for (const r of records) window.__mutations.push(r.type + ":" + (r.attributeName || "") + ":" + r.target.nodeName);
      });
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      document.addEventListener("readystatechange", () => {
        if (document.readyState === "interactive") { observer.takeRecords(); watching = true; }
      });
    `);
    const script = `"><script>alert(1)</script><img src=x onerror=alert(2)>`;
    const long = "x".repeat(5000);
    const unicode = "créateur-😀-مرحبا-日本";
    const split = `${"a".repeat(MAX_ATTRIBUTE_LENGTH - 1)}😀`; // the cut would halve the emoji

    await shopper.visit(`/?lb_click=${encodeURIComponent(script)}&tag=${encodeURIComponent(unicode)}`);
    let attributes = await shopper.attributes();
    expect(attributes[CLICK]).toBe(script);
    expect(attributes[TAG]).toBe(unicode);

    await shopper.visit(`/?tag=${encodeURIComponent(long)}`);
    await shopper.visit(`/?lb_click=${encodeURIComponent(split)}&tag=%00%1Fctl%7F-tag`);
    await shopper.visit(`/?tag=${encodeURIComponent(`${'"'}`.repeat(600))}`);
    attributes = await shopper.attributes();
    for (const value of Object.values(attributes)) expect(value.length).toBeLessThanOrEqual(MAX_ATTRIBUTE_LENGTH);
    expect(attributes[CLICK]).toBe("a".repeat(MAX_ATTRIBUTE_LENGTH - 1));
    expect(history(attributes).map(([tag]) => tag)[0]).toBe("ctl-tag");
    expect(attributes[TAG]).toBe('"'.repeat(MAX_ATTRIBUTE_LENGTH));

    await shopper.visit(`/?tag=${encodeURIComponent(script)}`);
    const last = await shopper.visit(`/?lb_click=clk_${encodeURIComponent(long)}&tag=${encodeURIComponent(long)}`);
    expect(last.status).toBe("saved");
    attributes = await shopper.attributes();
    for (const value of Object.values(attributes)) expect(value.length).toBeLessThanOrEqual(MAX_ATTRIBUTE_LENGTH);
    expect(() => history(attributes)).not.toThrow();

    // Text only: no dialog, no element added, nothing changed but the script's status attribute.
    expect(shopper.dialogs).toEqual([]);
    expect(shopper.errors).toEqual([]);
    const mutations = await shopper.page.evaluate(() => (window as unknown as { __mutations: string[] }).__mutations);
    expect(new Set(mutations)).toEqual(new Set(["attributes:data-tag-guard:SCRIPT"]));
    // The head's two stand-in scripts (window.Shopify, Shopify.actions).
    expect(await shopper.page.locator("img, script:not([data-tag-params]):not([src])").count()).toBe(2);
  });

  it("copes with a cart whose attributes were tampered with", async () => {
    const shopper = await Shopper.create();
    const token = store.newCartToken();
    const lone = "\ud800".repeat(600); // escapes to 6 characters each in JSON
    store.carts.get(token)!.attributes = {
      [CLICK]: "clk_1",
      [TAG]: "creator-20",
      [TAGS]: JSON.stringify([[lone, lone], [lone, lone], ["x", 5], "junk", [lone, lone], [lone, lone], [lone, lone]]),
      Other: "kept",
    };
    await shopper.context.addCookies([{ name: "cart", value: encodeURIComponent(token), url: store.origin }]);

    const visit = await shopper.visit("/?tag=honey-20");
    expect(visit.status).toBe("saved");
    const attributes = await shopper.attributes();
    expect(attributes.Other).toBe("kept"); // merged, not replaced
    expect(attributes[TAG]).toBe("honey-20");
    expect(attributes[TAGS]!.length).toBeLessThanOrEqual(MAX_ATTRIBUTE_LENGTH);
    const tags = history(attributes);
    expect(tags.at(-1)![0]).toBe("honey-20");
    expect(tags.length).toBeLessThanOrEqual(TAG_HISTORY_LIMIT);
    expect(shopper.errors).toEqual([]);

    store.carts.get(token)!.attributes[TAGS] = "{not json";
    await shopper.page.evaluate(() => localStorage.clear());
    expect((await shopper.visit("/?tag=other-21")).status).toBe("saved");
    expect(history(await shopper.attributes()).map(([tag]) => tag)).toEqual(["other-21"]);
  });

  it("renders nothing: no layout shift and an unchanged page", async () => {
    const shopper = await Shopper.create(`
      window.__shift = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) window.__shift += entry.value;
      }).observe({ type: "layout-shift", buffered: true });
    `);
    const visit = await shopper.visit("/products/beanie?lb_click=clk_1&tag=creator-20");
    expect(visit.status).toBe("saved");
    const box = await shopper.page.locator("main").boundingBox();
    await shopper.page.screenshot({ path: "/tmp/tag-guard-storefront.png", fullPage: true });
    expect(await shopper.page.evaluate(() => (window as unknown as { __shift: number }).__shift)).toBe(0);
    // The embed's only element is its script, which is not rendered.
    expect(
      await shopper.page.locator("body > script[data-tag-params]").evaluate((el) => getComputedStyle(el).display),
    ).toBe("none");
    expect(box).toEqual(expect.objectContaining({ x: 0, y: 64 }));
  });

  it("uses the locale-aware cart and app proxy URLs from Shopify.routes.root", async () => {
    store.reset({ root: "/fr/" });
    const shopper = await Shopper.create();
    const visit = await shopper.visit("/fr/products/beanie?lb_click=clk_fr&tag=createur-20", { touches: 1 });
    expect(visit.status).toBe("saved");
    expect(describeRequests(visit)).toEqual(["POST /fr/cart/update.js"]);
    expect(visit.scriptRequests).toEqual([store.url("/fr/cart/update.js"), store.url(`/fr${TOUCH}`)]);
    expect((await shopper.attributes())[CLICK]).toBe("clk_fr");
  });
});

describe("every request stays on the shop's origin, whatever Shopify.routes.root says", () => {
  // Another origin on this machine: anything the script sent off the shop's origin lands here
  // (or, for a cross-origin JSON POST, its CORS preflight does).
  let decoy: Server;
  let decoyOrigin = "";
  const offOrigin: string[] = [];

  beforeAll(async () => {
    decoy = createServer((request, response) => {
      offOrigin.push(`${request.method} ${request.url}`);
      response.writeHead(404);
      response.end();
    });
    decoyOrigin = (await listen(decoy)).url;
  });

  afterAll(async () => {
    decoy.closeAllConnections();
    await new Promise<void>((resolve) => decoy.close(() => resolve()));
  });

  beforeEach(() => {
    offOrigin.length = 0;
  });

  const host = () => decoyOrigin.replace(/^http:\/\//, "");
  for (const [label, root] of [
    ["a protocol-relative root", () => `//${host()}/`],
    ["a backslash root (/\\host/)", () => `/\\${host()}/`],
    ["a root with a tab (/<tab>/host/)", () => `/\t/${host()}/`],
    ["an absolute root on another origin", () => `${decoyOrigin}/`],
  ] as const) {
    it(`falls back to "/" for ${label}: cart write and touch go to the shop`, async () => {
      store.reset({ root: root() });
      const shopper = await Shopper.create();
      const visit = await shopper.visit("/?lb_click=clk_1&tag=creator-20", { touches: 1 });
      expect(visit.status).toBe("saved");
      expect(visit.scriptRequests).toEqual([store.url("/cart/update.js"), store.url(TOUCH)]);
      expect(visit.touches.map((touch) => touch.clickId)).toEqual(["clk_1"]);

      // A cart whose memory was lost is read first: that GET stays on the shop too.
      await shopper.page.evaluate(() => localStorage.clear());
      const again = await shopper.visit("/?tag=honey-20", { touches: 1 });
      expect(again.scriptRequests).toEqual([store.url("/cart.js"), store.url("/cart/update.js"), store.url(TOUCH)]);
      expect(shopper.requested.every((url) => url.startsWith(`${store.origin}/`))).toBe(true);
      expect(offOrigin).toEqual([]);
      expect(shopper.errors).toEqual([]);
    });
  }

  it("accepts an absolute root on the shop's own origin", async () => {
    store.reset({ root: `${store.origin}/fr/` });
    const shopper = await Shopper.create();
    const visit = await shopper.visit("/fr/?lb_click=clk_1", { touches: 1 });
    expect(visit.scriptRequests).toEqual([store.url("/fr/cart/update.js"), store.url(`/fr${TOUCH}`)]);
  });
});

describe("tag parameter settings (app-owned metafield)", () => {
  it("reads the tag from the parameters the merchant configured, in order", async () => {
    store.reset({ storefrontConfig: { tagParams: ["ref", "tag"] } });
    const shopper = await Shopper.create();
    const html = store.pageHtml();
    expect(html).toContain('data-tag-params="[&quot;ref&quot;,&quot;tag&quot;]"');
    await shopper.visit("/?lb_click=clk_1&ref=creator-ref&tag=second");
    expect((await shopper.attributes())[TAG]).toBe("creator-ref");
    await shopper.visit("/?tag=fallback-tag");
    expect((await shopper.attributes())[TAG]).toBe("fallback-tag");
  });

  it("falls back to ?tag= when the metafield is not set", async () => {
    store.reset({ storefrontConfig: undefined });
    expect(store.pageHtml()).toContain('data-tag-params="[&quot;tag&quot;]"');
    const shopper = await Shopper.create();
    const ignored = await shopper.visit("/?ref=creator-ref");
    expect(ignored.status).toBe("idle");
    expectNoRequests(ignored);
    await shopper.visit("/?tag=creator-20");
    expect((await shopper.attributes())[TAG]).toBe("creator-20");
  });

  it("falls back to ?tag= when the configuration is unusable", async () => {
    for (const blockHtml of [
      `<script src="${ASSET_PATH}" defer data-tag-params="{not json"></script>`,
      `<script src="${ASSET_PATH}" defer data-tag-params="[&quot;lb_click&quot;, 7, null]"></script>`,
      `<script src="${ASSET_PATH}" defer data-tag-params=""></script>`,
    ]) {
      store.reset({ blockHtml });
      const shopper = await Shopper.create();
      const visit = await shopper.visit("/?tag=creator-20");
      expect(visit.status).toBe("saved");
      expect((await shopper.attributes())[TAG]).toBe("creator-20");
      expect(shopper.errors).toEqual([]);
    }
  });
});

describe("customer privacy (marketing consent where the shop requires it)", () => {
  it("captures when consent is given", async () => {
    store.reset({ consent: "granted" });
    const shopper = await Shopper.create();
    const visit = await shopper.visit("/?lb_click=clk_1&tag=creator-20");
    expect(visit.status).toBe("saved");
    expect((await shopper.attributes())[CLICK]).toBe("clk_1");
  });

  it("without consent reports only the landing's click, without a cart, then captures the landing once the visitor accepts", async () => {
    store.reset({ consent: "denied" });
    const shopper = await Shopper.create();
    const visit = await shopper.visit("/?lb_click=clk_1&tag=creator-20", { touches: 1 });
    expect(visit.status).toBe("denied");
    expectOnlyArrival(visit, "clk_1", "creator-20");
    expect(await shopper.storage()).toBeNull();
    expect(await shopper.cartCookie()).toBeUndefined();

    await shopper.page.evaluate(() => (window as unknown as { __grantConsent(): void }).__grantConsent());
    expect(await shopper.waitForStatus("saved")).toBe("saved");
    const attributes = await shopper.attributes();
    expect(attributes[CLICK]).toBe("clk_1");
    expect(attributes[TAG]).toBe("creator-20");
    expect(store.cartRequests()).toHaveLength(1);
    // The touch with the cart waited for consent, and went once, after the arrival.
    const [, call, ...more] = await store.waitForProxyCalls(2);
    expect(more).toEqual([]);
    expect(JSON.parse(call!.body)).toEqual({
      clickId: "clk_1",
      tag: "creator-20",
      cartToken: bare(await shopper.cart()),
    });
    expect(shopper.errors).toEqual([]);
  });

  it("reports nothing at all without consent when the merchant turned arrivals off in the theme editor", async () => {
    store.reset({ consent: "denied", blockSettings: { arrivals_without_consent: false } });
    const shopper = await Shopper.create();
    const visit = await shopper.visit("/?lb_click=clk_1&tag=creator-20");
    expect(visit.status).toBe("denied");
    expectNoRequests(visit);
    expect(shopper.errors).toEqual([]);
  });

  it("stops, and forgets its memory, when consent is withdrawn", async () => {
    store.reset({ consent: "granted" });
    const shopper = await Shopper.create();
    await shopper.visit("/?lb_click=clk_1&tag=creator-20");
    expect(await shopper.storage()).not.toBeNull();

    store.settings.consent = "denied";
    const visit = await shopper.visit("/?tag=honey-20");
    expect(visit.status).toBe("denied");
    expectNoRequests(visit);
    expect(await shopper.storage()).toBeNull();
    expect((await shopper.attributes())[TAG]).toBe("creator-20");
  });

  it("loads the Customer Privacy API when the page has not, and respects its answer", async () => {
    store.reset({ consent: "lazy-denied" });
    const denied = await Shopper.create();
    const visit = await denied.visit("/?lb_click=clk_1&tag=creator-20", { touches: 1 });
    expect(visit.status).toBe("denied");
    expectOnlyArrival(visit, "clk_1", "creator-20");
    expect(
      await denied.page.evaluate(() => (window as unknown as { __loadedFeatures: unknown }).__loadedFeatures),
    ).toEqual([{ name: "consent-tracking-api", version: "0.1" }]);

    store.reset({ consent: "lazy-granted" });
    const granted = await Shopper.create();
    expect((await granted.visit("/?lb_click=clk_2")).status).toBe("saved");
    expect((await granted.attributes())[CLICK]).toBe("clk_2");
  });

  it("captures nothing when the consent API cannot be loaded", async () => {
    store.reset({ consent: "lazy-error" });
    const shopper = await Shopper.create();
    const visit = await shopper.visit("/?lb_click=clk_1&tag=creator-20");
    expect(visit.status).toBe("denied");
    expectNoRequests(visit);
    expect(shopper.errors).toEqual([]);
  });

  it("captures when the page has no Shopify consent machinery at all", async () => {
    store.reset({ consent: "absent" });
    const shopper = await Shopper.create();
    expect((await shopper.visit("/?lb_click=clk_1")).status).toBe("saved");
  });

  it("does not even look at consent on a page with nothing to do", async () => {
    store.reset({ consent: "lazy-denied" });
    const shopper = await Shopper.create();
    const visit = await shopper.visit("/");
    expect(visit.status).toBe("idle");
    expectNoRequests(visit);
    expect(
      await shopper.page.evaluate(() => (window as unknown as { __loadedFeatures?: unknown }).__loadedFeatures),
    ).toBeUndefined();
  });
});

describe("touches through the app proxy", () => {
  it("reports a first landing once the cart exists, with the cart token bare", async () => {
    const shopper = await Shopper.create();
    const visit = await shopper.visit("/?lb_click=clk_1&tag=creator-20", { touches: 1 });
    expect(visit.status).toBe("saved");

    const cart = await shopper.cart();
    // Shopify's cart cookie is TOKEN?key=..., URL-encoded; orders/create's cart_token is TOKEN.
    expect(await shopper.cartCookie()).toBe(encodeURIComponent(cart!.token));
    expect(cart!.token).toMatch(/^\w+\?key=\w+$/);
    expect(visit.touches).toEqual([{ clickId: "clk_1", tag: "creator-20", cartToken: bare(cart) }]);
    expect(store.proxyCalls).toEqual([
      {
        method: "POST",
        path: "/touch",
        query: "",
        body: JSON.stringify({ clickId: "clk_1", tag: "creator-20", cartToken: bare(cart) }),
        cart: encodeURIComponent(cart!.token),
        forwardedTo: null,
        status: 202,
      },
    ]);
    expect(shopper.errors).toEqual([]);
  });

  it("sends one touch per new click or new tag, and none on a quiet page", async () => {
    const shopper = await Shopper.create();
    await shopper.visit("/?lb_click=clk_1&tag=creator-20", { touches: 1 });
    const token = bare(await shopper.cart());

    expectNoRequests(await shopper.visit("/collections/all"));
    expectNoRequests(await shopper.visit("/?lb_click=clk_1&tag=creator-20"));

    // The hijack: a new tag on a later page, reported with the click the cart holds.
    const hijack = await shopper.visit("/products/beanie?tag=honey-20", { touches: 1 });
    expect(hijack.touches).toEqual([{ clickId: "clk_1", tag: "honey-20", cartToken: token }]);

    // A new click without a tag: the cart's tag is cleared, and so is the touch's.
    const click = await shopper.visit("/?lb_click=clk_2", { touches: 1 });
    expect(click.touches).toEqual([{ clickId: "clk_2", tag: null, cartToken: token }]);

    expectNoRequests(await shopper.visit("/products/beanie?lb_click=clk_2"));
    expect(store.proxyCalls).toHaveLength(3);
    expect(shopper.errors).toEqual([]);
  });

  it("sends no touch for a tag that came without any click", async () => {
    const shopper = await Shopper.create();
    const visit = await shopper.visit("/?tag=creator-20");
    expect(visit.status).toBe("saved");
    expect(visit.scriptRequests).toEqual([store.url("/cart/update.js")]);
    expect(visit.touches).toEqual([]);
  });

  it("reports the click again for the new cart a checkout leaves behind", async () => {
    const shopper = await Shopper.create();
    await shopper.visit("/?lb_click=clk_1&tag=creator-20", { touches: 1 });
    const token = store.newCartToken();
    await shopper.context.addCookies([{ name: "cart", value: encodeURIComponent(token), url: store.origin }]);

    const visit = await shopper.visit("/", { touches: 1 });
    expect(visit.status).toBe("saved");
    expect(visit.touches).toEqual([{ clickId: "clk_1", tag: "creator-20", cartToken: token.split("?")[0] }]);
  });

  it("reports a click whose cart write landed but whose answer was lost, on the next page", async () => {
    const shopper = await Shopper.create();
    await shopper.visit("/?lb_click=clk_1&tag=creator-20", { touches: 1 });
    const token = bare(await shopper.cart());
    // The write reaches the cart; its answer never reaches the page (the shopper moved on).
    const update = /\/cart\/update\.js$/;
    await shopper.context.route(update, async (route) => {
      await route.fetch();
      await route.abort("connectionreset");
    });
    const lost = await shopper.visit("/?lb_click=clk_2&tag=other-10");
    expect(lost.status).toBe("failed");
    expect((await shopper.attributes())[CLICK]).toBe("clk_2");
    expect(store.proxyCalls).toHaveLength(1);
    await shopper.context.unroute(update);

    const next = await shopper.visit("/collections/all", { touches: 1 });
    expect(next.status).toBe("unchanged");
    expect(next.touches).toEqual([{ clickId: "clk_2", tag: "other-10", cartToken: token }]);
    expectNoRequests(await shopper.visit("/"));
    expect(shopper.errors).toEqual([]);
  });

  it("keeps a landing whose cart could not be read, and captures it on a later page", async () => {
    const shopper = await Shopper.create();
    // A cart from before (no memory of it here), and its read fails on the landing.
    const token = store.newCartToken();
    await shopper.context.addCookies([{ name: "cart", value: encodeURIComponent(token), url: store.origin }]);
    const read = /\/cart\.js$/;
    await shopper.context.route(read, (route) => route.abort("connectionreset"));
    const landing = await shopper.visit("/?lb_click=clk_1&tag=creator-20");
    expect(landing.status).toBe("failed");
    await shopper.context.unroute(read);

    const later = await shopper.visit("/products/beanie", { touches: 1 });
    expect(later.status).toBe("saved");
    expect(later.touches).toEqual([{ clickId: "clk_1", tag: "creator-20", cartToken: token.split("?")[0] }]);
    expect(await shopper.attributes()).toMatchObject({ [CLICK]: "clk_1", [TAG]: "creator-20" });
    expect(shopper.errors).toEqual([]);
  });

  it("never waits for the proxy: a proxy that never answers delays neither the page nor the next one", async () => {
    store.proxyAnswer = "hang";
    const shopper = await Shopper.create(`
      window.__fetches = [];
      const original = window.fetch;
      window.fetch = function (input, init) {
        window.__fetches.push({ url: String(input), keepalive: Boolean(init && init.keepalive) });
        return original.apply(this, arguments);
      };
    `);
    const landing = await shopper.visit("/?lb_click=clk_1&tag=creator-20", { touches: 1 });
    // Done, though the touch is still unanswered.
    expect(landing.status).toBe("saved");
    expect(store.proxyCalls.map((call) => call.status)).toEqual([undefined]);
    // keepalive: the touch may outlive the page that sent it; the cart calls need no such thing.
    expect(await shopper.page.evaluate(() => (window as unknown as { __fetches: unknown[] }).__fetches)).toEqual([
      { url: store.url("/cart/update.js"), keepalive: false },
      { url: store.url(TOUCH), keepalive: true },
    ]);

    const next = await shopper.visit("/products/beanie?tag=honey-20", { touches: 1 });
    expect(next.status).toBe("saved");
    expect(next.touches).toEqual([{ clickId: "clk_1", tag: "honey-20", cartToken: bare(await shopper.cart()) }]);
    expect(store.proxyCalls.map((call) => call.status)).toEqual([undefined, undefined]);
    expect(shopper.errors).toEqual([]);
  });

  it("without consent sends the landing's click alone, never the cart the shopper already has", async () => {
    store.reset({ consent: "denied" });
    const shopper = await Shopper.create();
    const token = store.newCartToken();
    await shopper.context.addCookies([{ name: "cart", value: encodeURIComponent(token), url: store.origin }]);
    const visit = await shopper.visit("/?lb_click=clk_1&tag=creator-20", { touches: 1 });
    expect(visit.status).toBe("denied");
    expectOnlyArrival(visit, "clk_1", "creator-20");
    expect(store.proxyCalls.map((call) => call.body)).not.toContainEqual(expect.stringContaining(token));
  });

  describe("forwarded to the app as Shopify's app proxy does", () => {
    const SECRET = process.env.SHOPIFY_API_SECRET!;
    const received: { shop: string | null; pathPrefix: string | null; body: unknown }[] = [];
    let app: Awaited<ReturnType<typeof serveRoutes>>;

    beforeAll(async () => {
      // The app's side: the library's own app proxy authentication, as the app's route uses it.
      app = await serveRoutes({
        "/proxy/touch": {
          action: async ({ request }) => {
            await authenticate.public.appProxy(request);
            const url = new URL(request.url);
            received.push({
              shop: url.searchParams.get("shop"),
              pathPrefix: url.searchParams.get("path_prefix"),
              body: await request.json(),
            });
            return new Response(null, { status: 202 });
          },
        },
      });
    });

    afterAll(async () => {
      await app.close();
    });

    beforeEach(() => {
      received.length = 0;
    });

    it("signs the forwarded query so the app's authenticate.public.appProxy accepts it", async () => {
      store.appProxy = { appUrl: app.url, apiSecret: SECRET };
      const shopper = await Shopper.create();
      const visit = await shopper.visit("/?lb_click=clk_1&tag=creator-20", { touches: 1 });
      const [call] = await store.waitForProxyCalls(1, { answered: true });
      expect(call!.status).toBe(202);
      expect(call!.forwardedTo).toMatch(new RegExp(`^${app.url}/proxy/touch\\?`));
      expect(received).toEqual([{ shop: store.shop, pathPrefix: "/apps/tag-guard", body: visit.touches[0] }]);
      expect(visit.touches[0]!.cartToken).toBe(bare(await shopper.cart()));
    });

    it("passes the app's refusal back to the browser, and the page does not mind", async () => {
      store.appProxy = { appUrl: app.url, apiSecret: "not-the-app-secret" };
      const shopper = await Shopper.create();
      const visit = await shopper.visit("/?lb_click=clk_1&tag=creator-20", { touches: 1 });
      const [call] = await store.waitForProxyCalls(1, { answered: true });
      expect(call!.status).toBe(400);
      expect(received).toEqual([]);
      expect(visit.status).toBe("saved");
      expect(shopper.errors).toEqual([]);
    });
  });
});

describe("another script replacing the cart attributes (Shopify.actions.updateCart)", () => {
  type ActionsWindow = {
    Shopify: {
      actions: {
        updateCart(payload: { attributes: { key: string; value: string }[] }): Promise<{ userErrors: unknown[] }>;
      };
    };
  };
  const updateCart = (shopper: Shopper, attributes: { key: string; value: string }[]) =>
    shopper.page.evaluate(
      (list) => (window as unknown as ActionsWindow).Shopify.actions.updateCart({ attributes: list }),
      attributes,
    );

  it("writes ours back after an update that dropped them, once that update has landed", async () => {
    const shopper = await Shopper.create();
    await shopper.visit("/?lb_click=clk_1&tag=creator-20", { touches: 1 });
    const ours = await shopper.attributes();
    const before = store.requests.length;

    const result = await updateCart(shopper, [{ key: "Gift wrap", value: "yes" }]);
    expect(result.userErrors).toEqual([]);
    expect(await shopper.waitForStatus("restored")).toBe("restored");

    expect(await shopper.attributes()).toEqual({ ...ours, "Gift wrap": "yes" });
    const writes = store.requests.slice(before).filter((request) => request.path === "/cart/update.js");
    expect(writes.map((request) => JSON.parse(request.body))).toEqual([{ attributes: ours }]);
    // Putting attributes back is no new click or tag: no touch.
    expect(store.proxyCalls).toHaveLength(1);
    expect(shopper.errors).toEqual([]);
  });

  it("puts back a stale value of ours too, and works with storage blocked", async () => {
    const shopper = await Shopper.create(`
      Object.defineProperty(window, "localStorage", {
        configurable: true,
        get() { throw new DOMException("The operation is insecure.", "SecurityError"); },
      });
    `);
    await shopper.visit("/?lb_click=clk_1&tag=honey-20");
    const ours = await shopper.attributes();
    await updateCart(shopper, [
      { key: CLICK, value: "clk_1" },
      { key: TAG, value: "creator-20" },
    ]);
    expect(await shopper.waitForStatus("restored")).toBe("restored");
    expect(await shopper.attributes()).toEqual(ours);
  });

  it("leaves an update that kept ours alone", async () => {
    const shopper = await Shopper.create();
    await shopper.visit("/?lb_click=clk_1&tag=creator-20", { touches: 1 });
    const ours = await shopper.attributes();
    const before = store.requests.length;

    await updateCart(shopper, [
      ...Object.entries(ours).map(([key, value]) => ({ key, value })),
      { key: "Gift wrap", value: "yes" },
    ]);
    expect(await shopper.waitForStatus("unchanged")).toBe("unchanged");
    expect(store.requests.slice(before).map((request) => request.path)).toEqual(["/api/2026-07/graphql.json"]);
    expect(await shopper.attributes()).toEqual({ ...ours, "Gift wrap": "yes" });
  });

  it("writes nothing when the cart declined the update (ours were never removed)", async () => {
    const shopper = await Shopper.create();
    await shopper.visit("/?lb_click=clk_1&tag=creator-20", { touches: 1 });
    const ours = await shopper.attributes();
    store.declineAttributeUpdates = true;
    const before = store.requests.length;

    const result = await updateCart(shopper, []);
    expect(result.userErrors).toHaveLength(1);
    expect(await shopper.waitForStatus("unchanged")).toBe("unchanged");
    expect(store.requests.slice(before).map((request) => request.path)).toEqual(["/api/2026-07/graphql.json"]);
    expect(await shopper.attributes()).toEqual(ours);
  });

  it("retries a failed write-back on the next page", async () => {
    const shopper = await Shopper.create();
    await shopper.visit("/?lb_click=clk_1&tag=creator-20", { touches: 1 });
    const ours = await shopper.attributes();
    store.failure = "500";
    await updateCart(shopper, []);
    expect(await shopper.waitForStatus("failed")).toBe("failed");
    expect(await shopper.attributes()).toEqual({});

    store.failure = "none";
    const next = await shopper.visit("/collections/all");
    expect(next.status).toBe("saved");
    expect(await shopper.attributes()).toEqual(ours);
  });
});
