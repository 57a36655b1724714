import { beforeAll, describe, expect, it } from "vitest";
import * as appLayout from "../../app/routes/app";
import * as dashboard from "../../app/routes/app._index";
import * as commissions from "../../app/routes/app.commissions";
import * as exportRoute from "../../app/routes/app.commissions.export";
import * as order from "../../app/routes/app.orders.$id";
import * as settings from "../../app/routes/app.settings";
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
    const prisma = (await import("../../app/database/db.server")).default;
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
