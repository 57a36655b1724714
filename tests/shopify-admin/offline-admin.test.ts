// offlineAdmin through the app's real shopifyApp (expiring offline tokens on, Prisma session
// storage on the test's SQLite file) and the Shopify stand-in over HTTP, on a clock the test moves.
import { Session } from "@shopify/shopify-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markOrderHijacked } from "../../app/shopify-admin/orders.server";
import { offlineAdmin, sessionStorage, unauthenticated } from "../../app/shopify.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { servePublicRoutes } from "../support/app-routes";
import { sendTouch } from "../support/touch";
import { routeShopifyTrafficTo, type StandinRouting } from "../../app/platform/shopify-standin-routing.server";
import { startShopifyStandin, type ShopifyStandin } from "../../sandbox/shopify";
import { orderPayload } from "../support/fixtures";

// The library judges a session's expiry on wall time, the stand-in judges tokens on its clock:
// both run on wall time here, and the stand-in's can be wound back to issue a token in the past.
let offsetMs = 0;
let standin: ShopifyStandin;
let routing: StandinRouting;
let shopNumber = 0;

beforeAll(async () => {
  standin = await startShopifyStandin({
    apiKey: "test-api-key",
    appSecret: "test-api-secret",
    clock: () => Date.now() + offsetMs,
  });
  routing = routeShopifyTrafficTo(standin.url);
});
afterAll(async () => {
  await routing.restore();
  await standin.close();
});

const evidence = {
  expectedTag: "alice-20",
  arrivedTag: "honey-77",
  creatorId: "cr_alice",
  verdict: "hijacked",
  decidedAt: "2026-11-22T10:00:00.000Z",
};

/** Stores the offline session the app would hold for a token issued `minutesAgo` on the stand-in. */
async function installWithTokenIssued(minutesAgo: number, { withRefreshToken = true } = {}) {
  shopNumber += 1;
  const shop = `offline-admin-${shopNumber}.myshopify.com`;
  offsetMs = -minutesAgo * 60_000;
  const issued = standin.issueToken(shop, { expiring: true });
  offsetMs = 0;
  await sessionStorage.storeSession(
    new Session({
      id: `offline_${shop}`,
      shop,
      state: "",
      isOnline: false,
      scope: issued.scope.join(","),
      accessToken: issued.token,
      expires: new Date(issued.expiresAt!),
      ...(withRefreshToken && {
        refreshToken: issued.refreshToken!,
        refreshTokenExpires: new Date(issued.refreshTokenExpiresAt!),
      }),
    }),
  );
  const order = orderPayload({ shop, tags: "" });
  standin.createOrder(shop, order);
  return { shop, issued, orderGid: order.admin_graphql_api_id };
}

const refreshCalls = (shop: string) =>
  standin.requests().filter((r) => r.kind === "token" && r.shop === shop && r.path === "/admin/oauth/access_token");

describe("offlineAdmin", () => {
  it("refreshes a token issued 61 minutes ago, stores the new session, and the mutation succeeds", async () => {
    const { shop, issued, orderGid } = await installWithTokenIssued(61);
    const admin = await offlineAdmin(shop);
    expect(admin.ok).toBe(true);
    if (!admin.ok) return;

    const stored = await sessionStorage.loadSession(`offline_${shop}`);
    expect(stored?.accessToken).not.toBe(issued.token);
    expect(stored?.refreshToken).not.toBe(issued.refreshToken);
    expect(stored?.isExpired()).toBe(false);
    expect(refreshCalls(shop).map((r) => r.status)).toEqual([200]);

    expect(await markOrderHijacked(admin.graphql, { orderGid, tag: "affiliate-hijacked", evidence })).toMatchObject({
      ok: true,
    });
    expect(standin.store.findOrder(orderGid)!.order.tags).toEqual(["affiliate-hijacked"]);
  });

  it("refreshes a token that is still valid but within five minutes of expiry", async () => {
    const { shop, issued } = await installWithTokenIssued(57);
    expect((await offlineAdmin(shop)).ok).toBe(true);
    expect((await sessionStorage.loadSession(`offline_${shop}`))?.accessToken).not.toBe(issued.token);
  });

  it("uses a fresh token as it is, without a refresh", async () => {
    const { shop, issued, orderGid } = await installWithTokenIssued(10);
    const admin = await offlineAdmin(shop);
    expect(
      admin.ok && (await markOrderHijacked(admin.graphql, { orderGid, tag: "affiliate-hijacked", evidence })),
    ).toMatchObject({ ok: true });
    expect(refreshCalls(shop)).toEqual([]);
    expect((await sessionStorage.loadSession(`offline_${shop}`))?.accessToken).toBe(issued.token);
  });

  it("reports a refresh the stand-in refuses as retryable refresh-failed, naming no secret", async () => {
    const { shop, issued } = await installWithTokenIssued(61);
    // Refused twice: the storage's refresh ahead, then the library's own.
    standin.faults({ refreshFailures: 2 });
    const admin = await offlineAdmin(shop);
    expect(admin).toEqual({ ok: false, retryable: true, reason: "refresh-failed", message: expect.any(String) });
    if (admin.ok) return;
    expect(admin.message).toMatch(/refresh/);
    for (const secret of [issued.token, issued.refreshToken!, "test-api-secret"])
      expect(admin.message).not.toContain(secret);
    expect(refreshCalls(shop).map((r) => r.status)).toEqual([400, 400]);
    // Nothing was lost: the next attempt refreshes with the same stored refresh token.
    expect((await sessionStorage.loadSession(`offline_${shop}`))?.refreshToken).toBe(issued.refreshToken);
    expect((await offlineAdmin(shop)).ok).toBe(true);
  });

  it("reports an expired token without a refresh token as retryable refresh-failed", async () => {
    const { shop } = await installWithTokenIssued(61, { withRefreshToken: false });
    expect(await offlineAdmin(shop)).toMatchObject({ ok: false, retryable: true, reason: "refresh-failed" });
    expect(refreshCalls(shop)).toEqual([]);
  });

  it("reports a shop without a stored session as no-session, not retryable", async () => {
    expect(await offlineAdmin("never-installed.myshopify.com")).toEqual({
      ok: false,
      retryable: false,
      reason: "no-session",
      message: expect.stringMatching(/no offline access/),
    });
  });

  it("refreshes once for concurrent callers of one shop, so no caller is left with a revoked token", async () => {
    const { shop, orderGid } = await installWithTokenIssued(61);
    const [first, second] = await Promise.all([offlineAdmin(shop), offlineAdmin(shop)]);
    expect(refreshCalls(shop)).toHaveLength(1);
    for (const admin of [first, second]) {
      expect(
        admin.ok && (await markOrderHijacked(admin.graphql, { orderGid, tag: "affiliate-hijacked", evidence })),
      ).toMatchObject({ ok: true });
    }
  });
});

describe("one token refresh per shop, whoever asks", () => {
  it("the library's own path and the worker's, all at once: one refresh, every client works", async () => {
    const { shop, orderGid } = await installWithTokenIssued(57);
    const [library, worker] = await Promise.all([
      Promise.all(Array.from({ length: 10 }, () => unauthenticated.admin(shop))),
      Promise.all(Array.from({ length: 3 }, () => offlineAdmin(shop))),
    ]);
    expect(refreshCalls(shop)).toHaveLength(1);
    for (const { admin } of library) {
      const marked = await markOrderHijacked(admin.graphql, { orderGid, tag: "affiliate-hijacked", evidence });
      expect(marked).toMatchObject({ ok: true });
    }
    for (const admin of worker) expect(admin.ok).toBe(true);
  });

  it("refreshes ahead of the library's five minutes, so the library never has one to make", async () => {
    const { shop, issued } = await installWithTokenIssued(52);
    const { session } = await unauthenticated.admin(shop);
    expect(session.accessToken).not.toBe(issued.token);
    expect(refreshCalls(shop)).toHaveLength(1);
    await unauthenticated.admin(shop);
    expect(refreshCalls(shop)).toHaveLength(1);
  });

  it("storefront touches never load the session: 30 signed touches inside the last five minutes, no refresh", async () => {
    const { shop } = await installWithTokenIssued(57);
    const saved = await saveSettings(shop, { clickServiceUrl: "https://clicks.example.com", apiKey: "ck_live_abc123" });
    expect(saved.ok).toBe(true);
    const app = await servePublicRoutes();
    try {
      const statuses = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          sendTouch(app.url, shop, { clickId: `clk_${i}`, tag: "alice-20", cartToken: `c1-token-${i}` }).then(
            (response) => response.status,
          ),
        ),
      );
      expect(statuses.every((status) => status === 202)).toBe(true);
    } finally {
      await app.close();
    }
    expect(refreshCalls(shop)).toEqual([]);
  });
});
