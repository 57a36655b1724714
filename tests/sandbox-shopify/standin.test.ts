import "@shopify/shopify-api/adapters/node";
import { ApiVersion, RequestedTokenType, Session, shopifyApi } from "@shopify/shopify-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markOrderHijacked } from "../../app/shopify-orders/orders.server";
import { buildOrderCreatePayload } from "../../sandbox/shopify/order-payload";
import { signSessionToken } from "../../sandbox/shopify/session-token";
import { signWebhook, webhookHeaders } from "../../sandbox/shopify/webhooks";
import { startHarness, type Harness } from "../shopify-orders/support";

const SHOP = "standin-test.myshopify.com";
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const api = () =>
  shopifyApi({
    apiKey: "test-api-key",
    apiSecretKey: "test-api-secret",
    hostName: "tag-guard.test",
    scopes: ["read_orders", "write_orders"],
    apiVersion: ApiVersion.July26,
    isEmbeddedApp: true,
    logger: { level: 0 },
  });

async function tokenExchangeRaw(body: Record<string, string>) {
  const res = await fetch(`https://${SHOP}/admin/oauth/access_token`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const exchangeBody = (subject: string, overrides: Record<string, string> = {}) => ({
  client_id: "test-api-key",
  client_secret: "test-api-secret",
  grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
  subject_token: subject,
  subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
  requested_token_type: "urn:shopify:params:oauth:token-type:offline-access-token",
  ...overrides,
});

describe("token exchange", () => {
  it("accepts a session token signed with the app secret, through the real library", async () => {
    const shopify = api();
    const sessionToken = signSessionToken({ shop: SHOP, apiKey: "test-api-key", secret: "test-api-secret" });
    const { session } = await shopify.auth.tokenExchange({
      shop: SHOP,
      sessionToken,
      requestedTokenType: RequestedTokenType.OfflineAccessToken,
    });
    expect(session.accessToken).toMatch(/^shpat_standin_/);
    expect(session.scope).toBe("read_orders,write_orders");
    // The issued token works on the Admin API.
    const client = new shopify.clients.Graphql({ session });
    const response = await client.request(`query TagGuardProbe { currentAppInstallation { id } }`);
    expect((response.data as { currentAppInstallation: { id: string } }).currentAppInstallation.id).toMatch(
      /^gid:\/\/shopify\/AppInstallation\//,
    );
  });

  it("issues online tokens with the associated user", async () => {
    const shopify = api();
    const sessionToken = signSessionToken({
      shop: SHOP,
      apiKey: "test-api-key",
      secret: "test-api-secret",
      userId: 77,
    });
    const { session } = await shopify.auth.tokenExchange({
      shop: SHOP,
      sessionToken,
      requestedTokenType: RequestedTokenType.OnlineAccessToken,
    });
    expect(session.isOnline).toBe(true);
    expect(session.onlineAccessInfo?.associated_user.id).toBe(77);
    expect(session.expires).toBeInstanceOf(Date);
  });

  it("rejects a session token signed with another secret", async () => {
    const forged = signSessionToken({ shop: SHOP, apiKey: "test-api-key", secret: "not-the-app-secret" });
    const res = await tokenExchangeRaw(exchangeBody(forged));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "invalid_subject_token" });
  });

  it("rejects a wrong client secret, an expired token and a token for another shop", async () => {
    const good = signSessionToken({ shop: SHOP, apiKey: "test-api-key", secret: "test-api-secret" });
    expect((await tokenExchangeRaw(exchangeBody(good, { client_secret: "nope" }))).status).toBe(401);
    const expired = signSessionToken({
      shop: SHOP,
      apiKey: "test-api-key",
      secret: "test-api-secret",
      now: Date.now() - 3_600_000,
    });
    expect((await tokenExchangeRaw(exchangeBody(expired))).body).toMatchObject({ error: "invalid_subject_token" });
    const otherShop = signSessionToken({
      shop: "other.myshopify.com",
      apiKey: "test-api-key",
      secret: "test-api-secret",
    });
    expect((await tokenExchangeRaw(exchangeBody(otherShop))).body).toMatchObject({ error: "invalid_subject_token" });
  });
});

describe("Admin GraphQL endpoint", () => {
  it("answers 401 like Shopify without a token it issued, and for another shop's token", async () => {
    const call = (token?: string) =>
      fetch(`https://${SHOP}/admin/api/2026-07/graphql.json`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...(token ? { "X-Shopify-Access-Token": token } : {}) },
        body: JSON.stringify({ query: "query TagGuardProbe { currentAppInstallation { id } }" }),
      });
    for (const res of [
      await call(),
      await call("shpat_made_up"),
      await call(h.standin.issueToken("elsewhere.myshopify.com").token),
    ]) {
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        errors: "[API] Invalid API key or access token (unrecognized login or wrong password)",
      });
    }
  });

  it("reports cost and throttles by itself when the bucket is empty", async () => {
    let now = 1_000_000;
    const { startShopifyStandin } = await import("../../sandbox/shopify");
    const standin = await startShopifyStandin({ clock: () => now });
    try {
      const token = standin.issueToken("bucket.myshopify.com").token;
      const ask = async () => {
        const res = await fetch(`${standin.url}/admin/api/2026-07/graphql.json`, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            "X-Shopify-Access-Token": token,
            "X-Shopify-Standin-Shop": "bucket.myshopify.com",
          },
          body: JSON.stringify({
            query: "query TagGuardProbe { currentAppInstallation { id metafields(first: 250) { nodes { id } } } }",
          }),
        });
        return (await res.json()) as {
          errors?: Array<{ extensions: { code: string } }>;
          extensions: {
            cost: {
              requestedQueryCost: number;
              throttleStatus: { currentlyAvailable: number; maximumAvailable: number; restoreRate: number };
            };
          };
        };
      };
      const first = await ask();
      expect(first.errors).toBeUndefined();
      expect(first.extensions.cost.requestedQueryCost).toBe(253);
      expect(first.extensions.cost.throttleStatus).toEqual({
        maximumAvailable: 2000,
        currentlyAvailable: 2000 - 253,
        restoreRate: 100,
      });
      let last = first;
      for (let i = 0; i < 8 && !last.errors; i++) last = await ask();
      expect(last.errors?.[0]?.extensions.code).toBe("THROTTLED");
      now += 10_000; // 10 s restore 1000 points
      expect((await ask()).errors).toBeUndefined();
    } finally {
      await standin.close();
    }
  });
});

describe("webhook helpers", () => {
  it("produce an orders/create delivery that shopify-app-remix's authenticate.webhook accepts", async () => {
    await h.installShop(SHOP);
    const payload = buildOrderCreatePayload({
      shop: SHOP,
      lineItems: [{ title: "Sneakers", price: "80.00", quantity: 2 }],
      discount: 16,
      discountCode: "SAVE10",
      tax: 12.8,
      shipping: 5,
      noteAttributes: { _lb_click: "clk_1", _lb_tag: "creator-anna" },
      landingSite: "/products/sneakers?tag=creator-anna&lb_click=clk_1",
      tags: ["wholesale"],
    });
    const body = JSON.stringify(payload);
    const headers = webhookHeaders({
      topic: "orders/create",
      shop: SHOP,
      apiVersion: "2026-07",
      body,
      secret: "test-api-secret",
      webhookId: "wh-1",
      eventId: "ev-1",
      triggeredAt: "2026-11-21T05:00:00.000Z",
    });
    expect(headers["X-Shopify-Hmac-Sha256"]).toBe(signWebhook(body, "test-api-secret"));
    const request = new Request("https://tag-guard.test/webhooks/orders/create", { method: "POST", headers, body });
    const context = await h.app.authenticate.webhook(request);
    expect(context).toMatchObject({ topic: "ORDERS_CREATE", shop: SHOP, apiVersion: "2026-07", webhookId: "wh-1" });
    expect(context.payload).toEqual(payload);
    expect(payload).toMatchObject({
      admin_graphql_api_id: `gid://shopify/Order/${payload.id}`,
      subtotal_price: "144.00",
      current_subtotal_price: "144.00",
      total_discounts: "16.00",
      total_tax: "12.80",
      total_price: "161.80",
      total_shipping_price_set: { shop_money: { amount: "5.00", currency_code: "USD" } },
      note_attributes: [
        { name: "_lb_click", value: "clk_1" },
        { name: "_lb_tag", value: "creator-anna" },
      ],
      tags: "wholesale",
      discount_codes: [{ code: "SAVE10", amount: "16.00", type: "fixed_amount" }],
    });

    // A tampered body is refused.
    const tampered = new Request("https://tag-guard.test/webhooks/orders/create", {
      method: "POST",
      headers,
      body: body.replace("Sneakers", "Boots"),
    });
    await expect(h.app.authenticate.webhook(tampered)).rejects.toMatchObject({ status: 401 });

    // The webhook context's admin client rethrows HTTP errors as Response objects
    // (handleClientError); markOrderHijacked still classifies them.
    h.standin.createOrder(SHOP, payload);
    h.standin.faults({ serverError: 1, status: 503 });
    const result = await markOrderHijacked(
      context.admin!.graphql,
      {
        orderGid: payload.admin_graphql_api_id,
        evidence: {
          expectedTag: "creator-anna",
          arrivedTag: "bot",
          creatorId: "cr_1",
          verdict: "hijacked",
          decidedAt: "2026-11-21T05:00:00Z",
        },
      },
      { sleep: async () => {} },
    );
    expect(result).toMatchObject({ ok: false, retryable: true, message: expect.stringMatching(/^server: HTTP 503/) });
    expect(
      await markOrderHijacked(context.admin!.graphql, {
        orderGid: payload.admin_graphql_api_id,
        evidence: {
          expectedTag: "creator-anna",
          arrivedTag: "bot",
          creatorId: "cr_1",
          verdict: "hijacked",
          decidedAt: "2026-11-21T05:00:00Z",
        },
      }),
    ).toMatchObject({ ok: true });
  });
});

describe("management endpoints", () => {
  it("create an order, read it back, list requests, set faults, issue tokens", async () => {
    const base = h.standin.url;
    const order = buildOrderCreatePayload({ shop: "mgmt.myshopify.com", tags: "a, b" });
    const created = await fetch(`${base}/standin/orders?shop=mgmt.myshopify.com`, {
      method: "POST",
      body: JSON.stringify(order),
    });
    expect(created.status).toBe(201);
    const read = (await (await fetch(`${base}/standin/orders/${order.id}`)).json()) as {
      order: { tags: string[]; admin_graphql_api_id: string };
    };
    expect(read.order).toMatchObject({ tags: ["a", "b"], admin_graphql_api_id: order.admin_graphql_api_id });
    expect((await fetch(`${base}/standin/orders/1`)).status).toBe(404);

    const token = (await (
      await fetch(`${base}/standin/tokens`, { method: "POST", body: JSON.stringify({ shop: "mgmt.myshopify.com" }) })
    ).json()) as { access_token: string };
    expect(token.access_token).toMatch(/^shpat_standin_/);
    const faults = (await (
      await fetch(`${base}/standin/faults`, { method: "POST", body: JSON.stringify({ throttle: 1 }) })
    ).json()) as { pending: { throttle: number } };
    expect(faults.pending.throttle).toBe(1);
    const session = new Session({
      id: "offline_mgmt.myshopify.com",
      shop: "mgmt.myshopify.com",
      state: "",
      isOnline: false,
      accessToken: token.access_token,
    });
    const client = new (api().clients.Graphql)({ session });
    await expect(client.request(`query TagGuardProbe { currentAppInstallation { id } }`)).rejects.toThrow(/Throttled/);
    const log = (await (await fetch(`${base}/standin/requests`)).json()) as {
      requests: Array<{ kind: string; fault?: string; shop: string }>;
      validationFailures: unknown[];
    };
    expect(
      log.requests.some((r) => r.kind === "graphql" && r.fault === "throttle" && r.shop === "mgmt.myshopify.com"),
    ).toBe(true);
    expect(log.validationFailures).toEqual([]);
  });
});
