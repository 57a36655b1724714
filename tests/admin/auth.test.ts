import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as appLayout from "../../app/routes/app";
import * as authSplat from "../../app/routes/auth.$";
import * as dashboard from "../../app/routes/app._index";
import * as commissions from "../../app/routes/app.commissions";
import * as exportRoute from "../../app/routes/app.commissions.export";
import * as order from "../../app/routes/app.orders.$id";
import * as settings from "../../app/routes/app.settings";
import { serveRoutes, type RouteServer } from "../support/route-server";
import { adminRequest, APP_URL, call, sessionToken, storeOfflineSession } from "./helpers";

// Every admin loader and action runs authenticate.admin first: a valid session token gets the
// page, a token signed with any other secret (or none) gets no admin data.

const SHOP = "auth-test.myshopify.com";

const loaders = [
  ["/app", appLayout.loader],
  ["/app?days=7", dashboard.loader],
  ["/app/settings", settings.loader],
  ["/app/commissions", commissions.loader],
  ["/app/commissions/export", exportRoute.loader],
] as const;

beforeAll(async () => {
  await storeOfflineSession(SHOP);
});

describe("admin routes require a valid session token", () => {
  it.each(loaders)("%s answers 200 with a valid token", async (path, loader) => {
    const response = await call(loader as never, adminRequest(path, SHOP));
    expect(response.status).toBe(200);
  });

  it.each(loaders)("%s answers 401 to a token signed with another secret", async (path, loader) => {
    const forged = sessionToken(SHOP, { secret: "not-the-app-secret" });
    const response = await call(loader as never, adminRequest(path, SHOP, { token: forged }));
    expect(response.status).toBe(401);
    expect(await response.text()).toBe("");
  });

  it("answers 401 to an expired token", async () => {
    const expired = sessionToken(SHOP, { ttlSeconds: -120 });
    const response = await call(dashboard.loader as never, adminRequest("/app", SHOP, { token: expired }));
    expect(response.status).toBe(401);
  });

  it("answers 401 to a token for another app", async () => {
    const other = sessionToken(SHOP, { apiKey: "someone-elses-app" });
    const response = await call(settings.loader as never, adminRequest("/app/settings", SHOP, { token: other }));
    expect(response.status).toBe(401);
  });

  it("does not run actions for a forged token, and saves nothing", async () => {
    const forged = sessionToken(SHOP, { secret: "not-the-app-secret" });
    const response = await call(
      settings.action as never,
      adminRequest("/app/settings", SHOP, {
        token: forged,
        form: { intent: "save", clickServiceUrl: "https://x.test", apiKey: "forged-key-123456" },
      }),
    );
    expect(response.status).toBe(401);
    const prisma = (await import("../../app/database/db.server")).databaseClient();
    expect(await prisma.shopSettings.findUnique({ where: { shop: SHOP } })).toBeNull();
  });

  it("answers 401 on the order action with a forged token", async () => {
    const forged = sessionToken(SHOP, { secret: "nope" });
    const response = await call(
      order.action as never,
      adminRequest("/app/orders/abc", SHOP, { token: forged, form: {} }),
      { id: "abc" },
    );
    expect(response.status).toBe(401);
  });

  it("sends a document request with a forged id_token to the bounce page, not the admin page", async () => {
    const forged = sessionToken(SHOP, { secret: "not-the-app-secret" });
    const host = Buffer.from(`${SHOP}/admin`).toString("base64url");
    const url = `${APP_URL}/app/settings?embedded=1&shop=${SHOP}&host=${host}&id_token=${forged}`;
    const response = await call(settings.loader as never, new Request(url));
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toMatch(/\/auth\/session-token/);
  });

  it("sends a request with no token and no shop to the login page", async () => {
    const response = await call(dashboard.loader as never, new Request(`${APP_URL}/app`));
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toMatch(/\/auth\/login/);
  });
});

describe("the raw API key reaches no loader or action response", () => {
  it("is absent from every admin response after it was saved", async () => {
    const { saveSettings } = await import("../../app/settings/shop-settings.server");
    const { seedVerification } = await import("./helpers");
    const rawKey = "sk_live_never_leaves_0042";
    expect((await saveSettings(SHOP, { clickServiceUrl: "http://127.0.0.1:9", apiKey: rawKey })).ok).toBe(true);
    const row = await seedVerification({
      shop: SHOP,
      outcome: "failed",
      deadlineAt: new Date(Date.now() + 600_000),
      commission: { amountMinor: 100n, amount: "1.00", currency: "USD" },
    });
    const responses = [
      ...(await Promise.all(loaders.map(([path, loader]) => call(loader as never, adminRequest(path, SHOP))))),
      await call(order.loader as never, adminRequest(`/app/orders/${row.id}`, SHOP), { id: row.id }),
      await call(
        settings.action as never,
        adminRequest("/app/settings", SHOP, { form: { intent: "test", clickServiceUrl: "", apiKey: "" } }),
      ),
      await call(
        settings.action as never,
        adminRequest("/app/settings", SHOP, { form: { intent: "save", clickServiceUrl: "not a url", apiKey: "" } }),
      ),
      await call(order.action as never, adminRequest(`/app/orders/${row.id}`, SHOP, { form: {} }), { id: row.id }),
    ];
    // Each one is the page's real answer (the refused save's included), not an auth refusal.
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 400, 200]);
    for (const response of responses) {
      const text = await response.text();
      expect(text.length).toBeGreaterThan(0);
      expect(text).not.toContain(rawKey);
      expect(text).not.toContain("never_leaves");
    }
  });
});

// Over real HTTP: requests that change nothing get a 4xx, never the library's 500, and
// /auth/exit-iframe sends the browser nowhere but this app or the shop's Shopify admin.
describe("over HTTP, what the library would answer with a 500 or send anywhere", () => {
  let server: RouteServer;
  beforeAll(async () => {
    server = await serveRoutes({
      "/app": appLayout,
      "/app/settings": settings,
      "/app/commissions": commissions,
      "/auth/exit-iframe": authSplat,
    });
  });
  afterAll(() => server.close());

  // The library answers a client that says it is a bot (Node's fetch says "node") with a 410.
  const asBrowser = { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36" };
  const host = Buffer.from("admin.shopify.com/store/auth-test").toString("base64");
  const documentLoad = (token: string) =>
    fetch(`${server.url}/app?${new URLSearchParams({ embedded: "1", shop: SHOP, host, id_token: token }).toString()}`, {
      headers: asBrowser,
      redirect: "manual",
    });

  /** An HS256 token with exactly these claims, signed with the app's own secret (only Shopify holds it). */
  function signedClaims(claims: Record<string, unknown>): string {
    const now = Math.floor(Date.now() / 1000);
    const head = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");
    const body = Buffer.from(
      JSON.stringify({ aud: process.env.SHOPIFY_API_KEY, sub: "42", exp: now + 60, nbf: now - 5, iat: now, ...claims }),
    ).toString("base64url");
    const sig = createHmac("sha256", process.env.SHOPIFY_API_SECRET!).update(`${head}.${body}`).digest("base64url");
    return `${head}.${body}.${sig}`;
  }

  it("answers 401 to a correctly signed session token whose dest is not a shop's domain", async () => {
    const tokens = [
      sessionToken("evil.example"),
      sessionToken("shop.example.com"),
      signedClaims({ iss: `https://${SHOP}/admin`, dest: "not a url" }),
      signedClaims({ iss: `https://${SHOP}/admin`, dest: `https://${SHOP}:8443` }),
      signedClaims({ iss: `https://${SHOP}/admin` }),
    ];
    for (const token of tokens) {
      for (const path of ["/app", "/app/settings", "/app/commissions"]) {
        const response = await fetch(`${server.url}${path}`, {
          headers: { ...asBrowser, authorization: `Bearer ${token}` },
        });
        expect(response.status, `${path} ${token.slice(0, 40)}`).toBe(401);
      }
      // A document load with the token in its query: the same.
      expect((await documentLoad(token)).status).toBe(401);
    }
  });

  it("answers 401 to a session token for another shop than the request names", async () => {
    const other = sessionToken("another-shop.myshopify.com");
    const response = await fetch(`${server.url}/app/settings?shop=${SHOP}`, {
      headers: { ...asBrowser, authorization: `Bearer ${other}` },
    });
    expect(response.status).toBe(401);
    expect((await documentLoad(other)).status).toBe(401);
    // The shop's own token still opens its pages.
    const own = await fetch(`${server.url}/app/settings?shop=${SHOP}`, {
      headers: { ...asBrowser, authorization: `Bearer ${sessionToken(SHOP)}` },
    });
    expect(own.status).toBe(200);
  });

  const exitIframe = (destination: string | null, shop = SHOP) => {
    const query = new URLSearchParams({ shop, host });
    if (destination !== null) query.set("exitIframe", destination);
    return fetch(`${server.url}/auth/exit-iframe?${query.toString()}`, { headers: asBrowser, redirect: "manual" });
  };

  it("exit-iframe: refuses (400) every destination off this app and the shop's Shopify admin", async () => {
    for (const destination of [
      "https://evil.example/",
      "//evil.example/",
      "/\\evil.example",
      "javascript:alert(document.domain)",
      "data:text/html,<script>alert(1)</script>",
      "https://admin.shopify.com.evil.example/",
      "https://admin.shopify.com@evil.example/",
      "https://user:pass@admin.shopify.com/",
      "https://admin.shopify.com:8443/",
      "http://admin.shopify.com/",
      "https://another-shop.myshopify.com/admin",
      `https://${SHOP}/`,
      `https://${SHOP}/pages/offer`,
      `https://${SHOP}/administrator`,
      "https://cdn.shopify.com/x.html",
      "http://tag-guard.test/app",
      "/app//x",
      "/app x",
      "",
      null,
    ]) {
      const response = await exitIframe(destination);
      expect(response.status, String(destination)).toBe(400);
      const body = await response.text();
      expect(body, String(destination)).toMatch(/only to this app or the shop's Shopify admin/);
      expect(body).not.toContain("window.open");
    }
    // A shop's admin is trusted only for the shop the request names.
    expect((await exitIframe(`https://${SHOP}/admin`, "another-shop.myshopify.com")).status).toBe(400);
  });

  it("exit-iframe: renders the top-frame redirect to this app and to the shop's Shopify admin", async () => {
    for (const [destination, opened] of [
      ["/app?shop=x", "https://tag-guard.test/app?shop=x"],
      ["https://tag-guard.test/app/settings", "https://tag-guard.test/app/settings"],
      ["https://admin.shopify.com/store/auth-test/apps", "https://admin.shopify.com/store/auth-test/apps"],
      [`https://${SHOP}/admin/apps/tag-guard`, `https://${SHOP}/admin/apps/tag-guard`],
      [`https://${SHOP}/admin`, `https://${SHOP}/admin`],
    ] as const) {
      const response = await exitIframe(destination);
      expect(response.status, destination).toBe(200);
      expect(await response.text()).toContain(`window.open(${JSON.stringify(opened)}, "_top")`);
    }
  });
});
