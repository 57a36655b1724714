import "@shopify/shopify-api/adapters/node";
import { RequestedTokenType, Session, shopifyApi } from "@shopify/shopify-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiVersion } from "../../app/shopify-admin/api-version";
import { markOrderHijacked } from "../../app/shopify-admin/orders.server";
import { routeShopifyTrafficTo, type StandinRouting } from "../../app/platform/shopify-standin-routing.server";
import { startShopifyStandin, type ShopifyStandin } from "../../sandbox/shopify";
import { buildOrderCreatePayload } from "../../sandbox/shopify/order-payload";
import { signSessionToken } from "../../sandbox/shopify/session-token";
import { signWebhook, webhookHeaders } from "../../sandbox/shopify/webhooks";
import { startHarness, type Harness } from "../shopify-admin/support";

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
    apiVersion,
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
      fetch(`https://${SHOP}/admin/api/${apiVersion}/graphql.json`, {
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
        const res = await fetch(`${standin.url}/admin/api/${apiVersion}/graphql.json`, {
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
      apiVersion,
      body,
      secret: "test-api-secret",
      webhookId: "wh-1",
      eventId: "ev-1",
      triggeredAt: "2026-11-21T05:00:00.000Z",
    });
    expect(headers["X-Shopify-Hmac-Sha256"]).toBe(signWebhook(body, "test-api-secret"));
    const request = new Request("https://tag-guard.test/webhooks/orders/create", { method: "POST", headers, body });
    const context = await h.app.authenticate.webhook(request);
    expect(context).toMatchObject({ topic: "ORDERS_CREATE", shop: SHOP, apiVersion, webhookId: "wh-1" });
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
        tag: "affiliate-hijacked",
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
        tag: "affiliate-hijacked",
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

describe("expiring offline tokens and the refresh grant, on the stand-in's clock", () => {
  const shop = "refresh-test.myshopify.com";
  const clock = { now: Date.parse("2026-11-22T10:00:00.000Z") };
  let standin: ShopifyStandin;
  let routing: StandinRouting;

  beforeAll(async () => {
    standin = await startShopifyStandin({
      apiKey: "test-api-key",
      appSecret: "test-api-secret",
      clock: () => clock.now,
    });
    routing = routeShopifyTrafficTo(standin.url);
  });
  afterAll(async () => {
    await routing.restore();
    await standin.close();
  });

  const minutes = (n: number) => n * 60_000;
  const days = (n: number) => n * 86_400_000;

  async function refreshRaw(refreshToken: string, overrides: Record<string, string> = {}) {
    const res = await fetch(`https://${shop}/admin/oauth/access_token`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({
        client_id: "test-api-key",
        client_secret: "test-api-secret",
        grant_type: "refresh_token",
        refresh_token: refreshToken,
        ...overrides,
      }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  async function probe(accessToken: string) {
    const session = new Session({ id: `offline_${shop}`, shop, state: "", isOnline: false, accessToken });
    const client = new (api().clients.Graphql)({ session });
    return client.request(`query TagGuardProbe { currentAppInstallation { id } }`).then(
      () => "ok",
      (error: Error) => error.constructor.name,
    );
  }

  it("refuses the access token after an hour and refreshes it through the real library", async () => {
    const issued = standin.issueToken(shop, { expiring: true });
    expect(issued.expiresAt! - issued.issuedAt).toBe(minutes(60));
    expect(issued.refreshTokenExpiresAt! - issued.issuedAt).toBe(days(90));
    expect(await probe(issued.token)).toBe("ok");
    clock.now += minutes(61);
    expect(await probe(issued.token)).toBe("HttpResponseError");

    const { session } = await api().auth.refreshToken({ shop, refreshToken: issued.refreshToken! });
    expect(session.accessToken).not.toBe(issued.token);
    expect(session.refreshToken).toMatch(/^shprt_standin_/);
    expect(session.refreshToken).not.toBe(issued.refreshToken);
    expect(session.expires).toBeInstanceOf(Date);
    expect(session.refreshTokenExpires).toBeInstanceOf(Date);
    expect(await probe(session.accessToken!)).toBe("ok");
  });

  it("answers Shopify's lifetimes: expires_in 3600 and refresh_token_expires_in 90 days", async () => {
    const issued = standin.issueToken(shop, { expiring: true });
    const res = await refreshRaw(issued.refreshToken!);
    expect(res).toMatchObject({
      status: 200,
      body: { scope: "read_orders,write_orders", expires_in: 3_600, refresh_token_expires_in: 7_776_000 },
    });
    expect(Object.keys(res.body).sort()).toEqual(
      ["access_token", "expires_in", "refresh_token", "refresh_token_expires_in", "scope"].sort(),
    );
  });

  it("rotates: a used refresh token can be retried until its replacement is used, then it is retired", async () => {
    const first = standin.issueToken(shop, { expiring: true });
    const lost = await refreshRaw(first.refreshToken!); // the app never saw this answer
    const retried = await refreshRaw(first.refreshToken!);
    expect(lost.status).toBe(200);
    expect(retried.status).toBe(200);
    expect(retried.body.refresh_token).not.toBe(lost.body.refresh_token);
    // Only one expiring token is active per shop: the lost answer's access token is gone.
    expect(await probe(String(lost.body.access_token))).toBe("HttpResponseError");
    expect(await probe(String(retried.body.access_token))).toBe("ok");

    expect((await refreshRaw(String(retried.body.refresh_token))).status).toBe(200);
    expect(await refreshRaw(first.refreshToken!)).toEqual({
      status: 400,
      body: { error: "invalid_grant", error_description: "The refresh token is invalid or has been revoked" },
    });
  });

  it("refuses a used refresh token retried more than 30 days after its first use", async () => {
    const first = standin.issueToken(shop, { expiring: true });
    expect((await refreshRaw(first.refreshToken!)).status).toBe(200);
    clock.now += days(31);
    expect(await refreshRaw(first.refreshToken!)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });

  it("refuses an expired, an unknown and another shop's refresh token, and wrong client credentials", async () => {
    const issued = standin.issueToken(shop, { expiring: true });
    const other = standin.issueToken("someone-else.myshopify.com", { expiring: true });
    expect(await refreshRaw(other.refreshToken!)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(await refreshRaw("shprt_made_up")).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(await refreshRaw(issued.refreshToken!, { client_secret: "nope" })).toMatchObject({
      status: 401,
      body: { error: "invalid_client" },
    });
    expect(await refreshRaw("", {})).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    clock.now += days(90) + 1;
    expect(await refreshRaw(issued.refreshToken!)).toEqual({
      status: 400,
      body: { error: "invalid_grant", error_description: "The refresh token has expired" },
    });
  });

  it("a new token exchange revokes the shop's earlier expiring token and its refresh token", async () => {
    const before = standin.issueToken(shop, { expiring: true });
    // Raw HTTP: the library checks session tokens on wall time, the stand-in on its own clock.
    const res = await fetch(`https://${shop}/admin/oauth/access_token`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({
        ...exchangeBody(signSessionToken({ shop, apiKey: "test-api-key", secret: "test-api-secret", now: clock.now })),
        expiring: "1",
      }),
    });
    const exchanged = (await res.json()) as { access_token: string; refresh_token: string; expires_in: number };
    expect(exchanged).toMatchObject({ refresh_token: expect.stringMatching(/^shprt_standin_/), expires_in: 3_600 });
    expect(await probe(before.token)).toBe("HttpResponseError");
    expect((await refreshRaw(before.refreshToken!)).status).toBe(400);
    expect(await probe(exchanged.access_token)).toBe("ok");
  });

  it("makes refreshes fail on demand, in-process or through the management API", async () => {
    const issued = standin.issueToken(shop, { expiring: true });
    standin.faults({ refreshFailures: 1 });
    expect(await refreshRaw(issued.refreshToken!)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    const armed = await fetch(`${standin.url}/standin/faults`, {
      method: "POST",
      body: JSON.stringify({ refreshFailures: 1, refreshStatus: 503 }),
    });
    expect(((await armed.json()) as { pending: { refreshFailures: number } }).pending.refreshFailures).toBe(1);
    await expect(api().auth.refreshToken({ shop, refreshToken: issued.refreshToken! })).rejects.toMatchObject({
      response: { code: 503 },
    });
    // The injected refusals consumed nothing: the same refresh token still works.
    expect((await refreshRaw(issued.refreshToken!)).status).toBe(200);
  });

  it("issues expiring tokens through the management API too", async () => {
    const res = await fetch(`${standin.url}/standin/tokens`, {
      method: "POST",
      body: JSON.stringify({ shop, expiring: true }),
    });
    expect(await res.json()).toMatchObject({
      shop,
      access_token: expect.stringMatching(/^shpat_standin_/),
      refresh_token: expect.stringMatching(/^shprt_standin_/),
      expires_in: 3_600,
      refresh_token_expires_in: 7_776_000,
    });
  });
});

describe("invalid documents and order tags, as Shopify answers them", () => {
  const gql = (query: string, token: string, standin = h.standin) =>
    fetch(`${standin.url}/admin/api/${apiVersion}/graphql.json`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Shopify-Access-Token": token, "X-Shopify-Standin-Shop": SHOP },
      body: JSON.stringify({ query }),
    });

  it("answers a document that fails validation with 200 and an errors array, and records it", async () => {
    const token = h.standin.issueToken(SHOP).token;
    const res = await gql(`query invalidOnPurpose { order(id: "gid://shopify/Order/1") { id hijackTag } }`, token);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { errors: Array<{ message: string }>; data?: unknown };
    expect(body.errors[0]!.message).toMatch(/hijackTag/);
    expect(body).not.toHaveProperty("data");
    expect(h.standin.validationFailures().filter((f) => f.query.includes("invalidOnPurpose"))).toHaveLength(1);
    h.standin.clearRequests();
  });

  it("answers 400 instead only when started with invalidQueryStatus: 400", async () => {
    const { startShopifyStandin: start } = await import("../../sandbox/shopify");
    const strict = await start({ invalidQueryStatus: 400 });
    try {
      const res = await gql(`query Q { shop { nope } }`, strict.issueToken(SHOP).token, strict);
      expect(res.status).toBe(400);
      expect(strict.validationFailures()).toHaveLength(1);
    } finally {
      await strict.close();
    }
  });

  it("takes an order tag of 40 characters and refuses one of 41 with a userError", async () => {
    await h.installShop(SHOP);
    const order = buildOrderCreatePayload({ shop: SHOP, tags: "" });
    h.standin.createOrder(SHOP, order);
    const { admin } = await h.app.unauthenticated.admin(SHOP);
    const tagsAdd = async (tag: string) =>
      (await (
        await admin.graphql(
          `mutation TagOnce($id: ID!, $tags: [String!]!) { tagsAdd(id: $id, tags: $tags) { node { id } userErrors { field message } } }`,
          { variables: { id: order.admin_graphql_api_id, tags: [tag] } },
        )
      ).json()) as { data: { tagsAdd: { node: { id: string } | null; userErrors: Array<{ field: string[] }> } } };
    expect((await tagsAdd("x".repeat(40))).data.tagsAdd).toEqual({
      node: { id: order.admin_graphql_api_id },
      userErrors: [],
    });
    const refused = (await tagsAdd("y".repeat(41))).data.tagsAdd;
    expect(refused.node).toBeNull();
    expect(refused.userErrors).toMatchObject([{ field: ["tags"], message: expect.stringMatching(/too long.*40/) }]);
    expect(h.standin.store.findOrder(order.id)!.order.tags).toEqual(["x".repeat(40)]);
  });
});
