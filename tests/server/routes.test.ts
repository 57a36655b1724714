import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { seedShopWithData, type SeededShop } from "../../sandbox/admin-pages/seed-shop";
import { startClickService, type RunningClickService } from "../../sandbox/click-service/server";
import type { AppProcess } from "../../sandbox/demo/app-process";
import { signSessionToken, startShopifyStandin, webhookHeaders, type ShopifyStandin } from "../../sandbox/shopify";
import { signedProxyQuery } from "../../sandbox/storefront/app-proxy";
import { BROWSER_USER_AGENT } from "../../sandbox/storefront/chromium";
import { startBuiltApp } from "../support/built-app";
import { API_VERSION } from "../support/deliver";
import { landingReport } from "../support/pixel";
import { coversRoute, routeReached } from "../support/route-coverage";

const prisma = databaseClient();

// Every loader and action under app/routes, called once through the production server (the
// build, served by server.mjs, started once for this file) as its caller calls it: the embedded
// admin's data requests with a session token, as App Bridge and Remix's client send them;
// Shopify's signed webhooks and app proxy calls; a browser on the login and auth pages. Each
// answer is the route's success answer (tests/support/route-coverage.ts), and
// tests/structure/route-coverage.test.ts fails for any loader or action no test calls so.

const ROOT = path.resolve(import.meta.dirname, "../..");
const SHOP = "routes-admin.myshopify.com";
const LIFECYCLE_SHOP = "routes-lifecycle.myshopify.com";
const API_KEY = "routes-api-key";
const API_SECRET = "routes-api-secret";

let app: AppProcess;
let standin: ShopifyStandin;
let clicks: RunningClickService;
let seeded: SeededShop;

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, "build/server/index.js")))
    throw new Error("no app build: run `npx remix vite:build` (global setup does)");
  standin = await startShopifyStandin({ apiKey: API_KEY, appSecret: API_SECRET });
  clicks = await startClickService();
  app = await startBuiltApp(
    { apiKey: API_KEY, apiSecret: API_SECRET, standinUrl: standin.url },
    { CLICK_SERVICE_ALLOW_ORIGINS: clicks.url },
  );
  seeded = await seedShopWithData(SHOP, { clickServiceUrl: clicks.url, apiKey: clicks.createApiKey() });
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await standin?.close();
  await clicks?.close();
});

/** Headers of the embedded admin's own requests: App Bridge's session token, a browser. */
function adminHeaders(shop = SHOP, more: Record<string, string> = {}): Record<string, string> {
  const token = signSessionToken({ shop, apiKey: API_KEY, secret: API_SECRET, ttlSeconds: 600 });
  return { authorization: `Bearer ${token}`, "user-agent": BROWSER_USER_AGENT, ...more };
}

/** A form as Remix's client posts it, with the session token. */
function adminForm(fields: Record<string, string | string[]>, shop = SHOP) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields))
    for (const each of Array.isArray(value) ? value : [value]) body.append(name, each);
  return { headers: adminHeaders(shop, { "content-type": "application/x-www-form-urlencoded" }), body };
}

/** Remix's data request for a route, as its client sends one (single fetch is off). */
const data = (pathname: string, route: string, query = "") =>
  `${pathname}?${query ? `${query}&` : ""}_data=${encodeURIComponent(route)}`;

const host = (shop: string) =>
  Buffer.from(`admin.shopify.com/store/${shop.replace(".myshopify.com", "")}`).toString("base64url");

describe("coversRoute", () => {
  it("names the route a request reaches as Remix's server picks it, and refuses a call of another", async () => {
    const reached = (target: string, method = "GET") => routeReached(new URL(target, app.url), method).id;
    expect(reached("/auth/login")).toBe("routes/auth.login");
    expect(reached("/auth/session-token")).toBe("routes/auth.$");
    expect(reached("/app")).toBe("routes/app._index");
    expect(reached("/app?_data=routes%2Fapp")).toBe("routes/app");
    expect(reached("/app", "POST")).toBe("routes/app");
    expect(reached("/app?index", "POST")).toBe("routes/app._index");
    expect(reached("/app/codes/export")).toBe("routes/app.codes.export");
    expect(reached("/app/orders/42")).toBe("routes/app.orders.$id");
    await expect(coversRoute(app, "routes/auth.$", "loader", { path: "/auth/login" }, { status: 200 })).rejects.toThrow(
      "GET /auth/login reaches routes/auth.login, not routes/auth.$",
    );
    await expect(
      coversRoute(app, "routes/healthz", "action", { path: "/healthz", method: "POST" }, { status: 405, because: "x" }),
    ).rejects.toThrow("routes/healthz has no action in the build");
    await expect(coversRoute(app, "routes/healthz", "loader", { path: "/healthz" }, { status: 404 })).rejects.toThrow(
      "a 404 is a success answer only with a reason",
    );
  });
});

describe("what anyone may open", () => {
  it("/healthz says the process and its database answer", async () => {
    await coversRoute(
      app,
      "routes/healthz",
      "loader",
      { path: "/healthz" },
      { status: 200, check: (answer) => expect(answer.json()).toEqual({ ok: true }) },
    );
  });

  it("/readyz says the instance takes traffic: its database answers, its migrations are current, it is not stopping", async () => {
    await expect.poll(async () => (await fetch(`${app.url}/readyz`)).status, { timeout: 10_000 }).toBe(200);
    await coversRoute(
      app,
      "routes/readyz",
      "loader",
      { path: "/readyz" },
      {
        status: 200,
        check: (answer) => {
          expect(answer.json()).toEqual({ ready: true, database: "up", migrations: "current", stopping: false });
          expect(answer.headers.get("cache-control")).toBe("no-store");
        },
      },
    );
  });

  it("the root URL sends Shopify's launch on into the embedded app", async () => {
    const query = `shop=${SHOP}&host=${host(SHOP)}`;
    await coversRoute(
      app,
      "routes/_index",
      "loader",
      { path: `/?${query}`, headers: { "user-agent": BROWSER_USER_AGENT } },
      { status: 302, check: (answer) => expect(answer.headers.get("location")).toBe(`/app?${query}`) },
    );
  });

  it("the login page asks for the shop, and sends a shop on to Shopify's install", async () => {
    await coversRoute(
      app,
      "routes/auth.login",
      "loader",
      { path: "/auth/login", headers: { "user-agent": BROWSER_USER_AGENT } },
      {
        status: 200,
        check: (answer) => {
          expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
          expect(answer.text).toContain("Shop domain");
        },
      },
    );
    await coversRoute(
      app,
      "routes/auth.login",
      "action",
      {
        path: "/auth/login",
        headers: { "user-agent": BROWSER_USER_AGENT, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ shop: "routes-login" }),
      },
      {
        status: 302,
        check: (answer) =>
          expect(answer.headers.get("location")).toBe(
            `https://admin.shopify.com/store/routes-login/oauth/install?client_id=${API_KEY}`,
          ),
      },
    );
  });

  it("Shopify's auth paths answer with App Bridge: the session-token bounce and the frame's exit", async () => {
    const shop = `shop=${SHOP}&host=${host(SHOP)}`;
    await coversRoute(
      app,
      "routes/auth.$",
      "loader",
      { path: `/auth/session-token?${shop}&shopify-reload=/app`, headers: { "user-agent": BROWSER_USER_AGENT } },
      {
        status: 200,
        check: (answer) => {
          expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
          expect(answer.text).toContain(`data-api-key="${API_KEY}"`);
        },
      },
    );
    const destination = `https://admin.shopify.com/store/routes-admin/apps/${API_KEY}`;
    await coversRoute(
      app,
      "routes/auth.$",
      "loader",
      {
        path: `/auth/exit-iframe?${shop}&exitIframe=${encodeURIComponent(destination)}`,
        headers: { "user-agent": BROWSER_USER_AGENT },
      },
      { status: 200, check: (answer) => expect(answer.text).toContain(`window.open(${JSON.stringify(destination)}`) },
    );
  });
});

describe("the embedded admin", () => {
  it("the frame gives App Bridge the app's client id", async () => {
    await coversRoute(
      app,
      "routes/app",
      "loader",
      { path: data("/app", "routes/app"), headers: adminHeaders() },
      { status: 200, check: (answer) => expect(answer.json()).toEqual({ apiKey: API_KEY }) },
    );
  });

  it("the dashboard reads the shop's orders", async () => {
    await coversRoute(
      app,
      "routes/app._index",
      "loader",
      { path: data("/app", "routes/app._index", "index"), headers: adminHeaders() },
      {
        status: 200,
        check: (answer) => {
          const dashboard = answer.json();
          expect(dashboard.configured).toBe(true);
          expect(dashboard.recent.map((row: { orderName: string }) => row.orderName)).toContain("#1002");
        },
      },
    );
  });

  it("Check now brings the shop's reconciliation forward", async () => {
    await coversRoute(
      app,
      "routes/app.reconcile",
      "action",
      { path: data("/app/reconcile", "routes/app.reconcile"), ...adminForm({}) },
      { status: 200, check: (answer) => expect(answer.json()).toEqual({ ok: true }) },
    );
    const job = await prisma.job.findUniqueOrThrow({
      where: { kind_subject: { kind: "reconcile-shop", subject: SHOP } },
    });
    expect(job.runAt.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it("an order's page, and Retry now on the order whose verification failed", async () => {
    await coversRoute(
      app,
      "routes/app.orders.$id",
      "loader",
      { path: data(`/app/orders/${seeded.hijackedOrder}`, "routes/app.orders.$id"), headers: adminHeaders() },
      { status: 200, check: (answer) => expect(answer.json().order).toMatchObject({ orderName: "#1002" }) },
    );
    await coversRoute(
      app,
      "routes/app.orders.$id",
      "action",
      { path: data(`/app/orders/${seeded.failedOrder}`, "routes/app.orders.$id"), ...adminForm({}) },
      { status: 200, check: (answer) => expect(answer.json()).toEqual({ ok: true }) },
    );
    // The same action decides a contested order: credited to the claim chosen.
    const contested = await prisma.verification.findUniqueOrThrow({ where: { id: seeded.contestedOrder } });
    await coversRoute(
      app,
      "routes/app.orders.$id",
      "action",
      {
        path: data(`/app/orders/${seeded.contestedOrder}`, "routes/app.orders.$id"),
        ...adminForm({ intent: "decide-contest", clickId: `clk-${contested.orderId}-bob` }),
      },
      {
        status: 200,
        check: (answer) =>
          expect(answer.json()).toEqual({
            intent: "decide-contest",
            ok: true,
            status: "pending",
            amountText: "$12.50",
          }),
      },
    );
    expect(await prisma.commission.findUniqueOrThrow({ where: { verificationId: contested.id } })).toMatchObject({
      creatorId: "cr_bob",
      status: "pending",
    });
  });

  it("the ledger and its CSV", async () => {
    await coversRoute(
      app,
      "routes/app.commissions",
      "loader",
      { path: data("/app/commissions", "routes/app.commissions"), headers: adminHeaders() },
      {
        status: 200,
        check: (answer) =>
          expect(answer.json().rows.map((row: { creatorId: string }) => row.creatorId)).toContain("cr_alice"),
      },
    );
    await coversRoute(
      app,
      "routes/app.commissions.export",
      "loader",
      { path: "/app/commissions/export", headers: adminHeaders() },
      {
        status: 200,
        check: (answer) => {
          expect(answer.headers.get("content-type")).toMatch(/^text\/csv/);
          expect(answer.headers.get("content-disposition")).toMatch(/^attachment; filename="commissions-[\d-]+\.csv"$/);
          expect(answer.text).toContain("cr_alice");
        },
      },
    );
  });

  it("the creators' totals, and a creator's name saved", async () => {
    await coversRoute(
      app,
      "routes/app.creators",
      "loader",
      { path: data("/app/creators", "routes/app.creators"), headers: adminHeaders() },
      {
        status: 200,
        check: (answer) =>
          expect(answer.json().rows.map((row: { creatorId: string }) => row.creatorId)).toEqual(
            expect.arrayContaining(["cr_alice", "cr_bob", "cr_carol"]),
          ),
      },
    );
    await coversRoute(
      app,
      "routes/app.creators",
      "action",
      {
        path: data("/app/creators", "routes/app.creators"),
        ...adminForm({ creatorId: "cr_alice", name: "Alice Example", email: "alice@example.com", note: "" }),
      },
      { status: 200, check: (answer) => expect(answer.json()).toMatchObject({ ok: true }) },
    );
  });

  it("a payout recorded from the approved balances, and its CSV", async () => {
    const page = await coversRoute(
      app,
      "routes/app.payouts",
      "loader",
      { path: data("/app/payouts", "routes/app.payouts"), headers: adminHeaders() },
      { status: 200, check: (answer) => expect(answer.json().balances.length).toBeGreaterThan(0) },
    );
    const { balances, formToken, today } = page.json() as {
      balances: { key: string; balanceMinor: string }[];
      formToken: string;
      today: string;
    };
    const recorded = await coversRoute(
      app,
      "routes/app.payouts",
      "action",
      {
        path: data("/app/payouts", "routes/app.payouts"),
        ...adminForm({
          intent: "record",
          formToken,
          reference: "Wire 2047",
          paidOn: today,
          balance: balances.map((b) => b.key),
          ...Object.fromEntries(balances.map((b) => [`shown:${b.key}`, b.balanceMinor])),
        }),
      },
      { status: 200, check: (answer) => expect(answer.json()).toMatchObject({ intent: "record", ok: true }) },
    );
    const { payoutId } = recorded.json() as { payoutId: string };
    await coversRoute(
      app,
      "routes/app.payouts.$id.export",
      "loader",
      { path: `/app/payouts/${payoutId}/export`, headers: adminHeaders() },
      {
        status: 200,
        check: (answer) => {
          expect(answer.headers.get("content-type")).toMatch(/^text\/csv/);
          expect(answer.text).toContain("cr_alice");
        },
      },
    );
  });

  it("the codes on hijacked orders, one switched off in Shopify, and their CSV", async () => {
    standin.store.ensureDiscount(SHOP, "LEAKED20");
    standin.store.grantScopes(SHOP, ["read_discounts", "write_discounts"]);
    await coversRoute(
      app,
      "routes/app.codes",
      "loader",
      { path: data("/app/codes", "routes/app.codes"), headers: adminHeaders() },
      {
        status: 200,
        check: (answer) => expect(answer.json().rows.map((row: { code: string }) => row.code)).toContain("LEAKED20"),
      },
    );
    await coversRoute(
      app,
      "routes/app.codes",
      "action",
      { path: data("/app/codes", "routes/app.codes"), ...adminForm({ intent: "switch-off", code: "LEAKED20" }) },
      { status: 200, check: (answer) => expect(answer.json()).toMatchObject({ ok: true, code: "LEAKED20" }) },
    );
    expect(standin.store.discountByCode(standin.store.shop(SHOP), "LEAKED20")!.status).toBe("EXPIRED");
    await coversRoute(
      app,
      "routes/app.codes.export",
      "loader",
      { path: "/app/codes/export", headers: adminHeaders() },
      {
        status: 200,
        check: (answer) => {
          expect(answer.headers.get("content-disposition")).toMatch(/^attachment; filename="codes-[\d-]+\.csv"$/);
          expect(answer.text).toContain("LEAKED20");
        },
      },
    );
  });

  it("the settings, read and saved", async () => {
    await coversRoute(
      app,
      "routes/app.settings",
      "loader",
      { path: data("/app/settings", "routes/app.settings"), headers: adminHeaders() },
      {
        status: 200,
        check: (answer) => expect(answer.json().settings).toMatchObject({ clickServiceUrl: clicks.url }),
      },
    );
    await coversRoute(
      app,
      "routes/app.settings",
      "action",
      {
        path: data("/app/settings", "routes/app.settings"),
        ...adminForm({
          intent: "save",
          clickServiceUrl: clicks.url,
          apiKey: clicks.createApiKey(),
          tagParams: "tag",
          hijackTag: "affiliate-hijacked",
          commissionRate: "12",
          orderValueBasis: "subtotal_after_discounts",
          autoVerify: "true",
        }),
      },
      { status: 200, check: (answer) => expect(answer.json()).toMatchObject({ intent: "save", ok: true }) },
    );
  });
});

describe("the storefront, through Shopify's app proxy", () => {
  const proxied = (route: "touch" | "pixel") =>
    `/proxy/${route}?${signedProxyQuery("", { shop: SHOP, apiSecret: API_SECRET }).toString()}`;

  it("a touch is taken, and a page view is refused: only POST", async () => {
    await coversRoute(
      app,
      "routes/proxy.touch",
      "action",
      {
        path: proxied("touch"),
        headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.7" },
        body: JSON.stringify({ clickId: "clk_routes", tag: "alice-20", cartToken: "cart-routes" }),
      },
      { status: 202, check: (answer) => expect(answer.json()).toEqual({ ok: true }) },
    );
    await coversRoute(
      app,
      "routes/proxy.touch",
      "loader",
      { path: proxied("touch") },
      {
        status: 405,
        because: "the loader's only answer: the storefront only posts touches",
        check: (answer) => expect(answer.headers.get("allow")).toBe("POST"),
      },
    );
  });

  it("a pixel report is taken, and a page view is refused: only POST", async () => {
    await coversRoute(
      app,
      "routes/proxy.pixel",
      "action",
      {
        path: proxied("pixel"),
        headers: { "content-type": "text/plain", "x-forwarded-for": "203.0.113.8" },
        body: JSON.stringify(landingReport("client-routes", "clk_routes_pixel", "alice-20")),
      },
      { status: 202, check: (answer) => expect(answer.json()).toEqual({ ok: true }) },
    );
    await coversRoute(
      app,
      "routes/proxy.pixel",
      "loader",
      { path: proxied("pixel") },
      {
        status: 405,
        because: "the loader's only answer: the pixel only posts reports",
        check: (answer) => expect(answer.headers.get("allow")).toBe("POST"),
      },
    );
  });
});

describe("Shopify's webhooks that Remix answers", () => {
  /** A delivery as Shopify sends it: the exact body, signed, with Shopify's headers. */
  function delivery(topic: string, shop: string, body: unknown, eventId?: string) {
    const text = JSON.stringify(body);
    return {
      path: `/webhooks/${topic}`,
      headers: webhookHeaders({ topic, shop, apiVersion: API_VERSION, body: text, secret: API_SECRET, eventId }),
      body: text,
    };
  }

  /** The merchant opens the app: its session token is exchanged for an offline token (an install). */
  async function install(shop: string) {
    const opened = await fetch(`${app.url}${data("/app", "routes/app")}`, { headers: adminHeaders(shop) });
    expect(opened.status).toBe(200);
    await opened.arrayBuffer();
  }

  it("the privacy topics: a customer's data gathered, a customer's and a shop's redaction", async () => {
    await coversRoute(
      app,
      "routes/webhooks.customers.data_request",
      "action",
      delivery("customers/data_request", SHOP, {
        shop_id: 1,
        shop_domain: SHOP,
        orders_requested: [1002],
        customer: { id: 4711, email: "shopper@example.com" },
        data_request: { id: 47 },
      }),
      { status: 200 },
    );
    expect(await prisma.dataRequest.findFirst({ where: { shop: SHOP, customerId: "4711" } })).not.toBeNull();
    await coversRoute(
      app,
      "routes/webhooks.customers.redact",
      "action",
      delivery("customers/redact", SHOP, {
        shop_id: 1,
        shop_domain: SHOP,
        customer: { id: 4711 },
        orders_to_redact: [1002],
      }),
      { status: 200 },
    );
    await coversRoute(
      app,
      "routes/webhooks.shop.redact",
      "action",
      delivery("shop/redact", "routes-gone.myshopify.com", { shop_id: 2, shop_domain: "routes-gone.myshopify.com" }),
      { status: 200 },
    );
  });

  it("the lifecycle: scopes changed, the app uninstalled, and that uninstall delivered again after a reinstall", async () => {
    await install(LIFECYCLE_SHOP);
    await coversRoute(
      app,
      "routes/webhooks.app.scopes_update",
      "action",
      delivery("app/scopes_update", LIFECYCLE_SHOP, {
        id: 1,
        shop_id: "gid://shopify/Shop/3",
        previous: ["read_orders"],
        current: ["read_orders", "write_orders"],
        updated_at: new Date().toISOString(),
      }),
      { status: 200 },
    );
    const shopPayload = { id: 3, name: LIFECYCLE_SHOP, domain: LIFECYCLE_SHOP, myshopify_domain: LIFECYCLE_SHOP };
    await coversRoute(
      app,
      "routes/webhooks.app.uninstalled",
      "action",
      delivery("app/uninstalled", LIFECYCLE_SHOP, shopPayload),
      { status: 200 },
    );
    expect(await prisma.session.count({ where: { shop: LIFECYCLE_SHOP } })).toBe(0);

    // The merchant installs again; the same body then comes under another event id. Only
    // Shopify can tell a replay from a new uninstall: the app asks it (the stand-in), which still
    // honours the new token, so nothing changes and the delivery is answered.
    await install(LIFECYCLE_SHOP);
    await coversRoute(
      app,
      "routes/webhooks.app.uninstalled",
      "action",
      delivery("app/uninstalled", LIFECYCLE_SHOP, shopPayload, "routes-uninstall-again"),
      { status: 200 },
    );
    expect(await prisma.session.count({ where: { shop: LIFECYCLE_SHOP } })).toBe(1);
  });
});
