import { GraphqlQueryError } from "@shopify/shopify-api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EVIDENCE_METAFIELD, ORDER_TAG_GUARD_STATE } from "../../app/shopify-admin/documents";
import { callAdmin, type AdminGraphql } from "../../app/shopify-admin/admin-client.server";
import {
  ensureEvidenceDefinition,
  markOrderHijacked,
  readOrderTagGuardState,
  writeStorefrontConfig,
  type HijackEvidence,
} from "../../app/shopify-admin/orders.server";
import { buildOrderCreatePayload } from "../../sandbox/shopify/order-payload";
import { startHarness, type Harness } from "./support";

const SHOP = "hijack-test.myshopify.com";
let h: Harness;
let graphql: AdminGraphql;
const sleeps: number[] = [];
const retry = { sleep: async (ms: number) => void sleeps.push(ms) };

const evidence: HijackEvidence = {
  expectedTag: "creator-anna",
  arrivedTag: "couponbot-77",
  creatorId: "cr_123",
  verdict: "hijacked",
  decidedAt: "2026-11-21T05:00:00.000Z",
  clickId: "clk_abc",
};

function newOrder(tags = "vip") {
  const payload = buildOrderCreatePayload({
    tags,
    discount: "5.00",
    discountCode: "LEAKED5",
    noteAttributes: { _lb_click: "clk_abc", _lb_tag: "couponbot-77" },
    shop: SHOP,
  });
  h.standin.createOrder(SHOP, payload);
  return payload.admin_graphql_api_id;
}

beforeAll(async () => {
  h = await startHarness();
  await h.installShop(SHOP);
  const { admin } = await h.app.unauthenticated.admin(SHOP);
  graphql = admin.graphql; // the library's own admin.graphql must fit the structural type
});
afterAll(async () => h?.close());
afterEach(() => {
  sleeps.length = 0;
  // The app must never send a document the schema rejects; only the deliberate test below does.
  expect(h.standin.validationFailures().filter((f) => !f.query.includes("hijackTagOnPurpose"))).toEqual([]);
});

describe("markOrderHijacked through the real admin client and the stand-in", () => {
  it("tags the order and stores the evidence, visible when read back", async () => {
    const gid = newOrder();
    await expect(
      markOrderHijacked(graphql, { orderGid: gid, tag: "affiliate-hijacked", evidence }, retry),
    ).resolves.toMatchObject({ ok: true });
    const state = await readOrderTagGuardState(graphql, gid, retry);
    expect(state.ok).toBe(true);
    if (!state.ok) return;
    expect(state.order?.tags).toEqual(["vip", "affiliate-hijacked"]);
    // The reading of the order gives the codes its orders/create carried.
    expect(state.order?.discountCodes).toEqual(["LEAKED5"]);
    expect(state.order?.evidence?.type).toBe("json");
    expect(state.order?.evidence?.namespace).toMatch(/^app--\d+--tag_guard$/);
    expect(JSON.parse(state.order!.evidence!.value)).toEqual(evidence);
    // And through the stand-in's management view.
    const res = await fetch(`${h.standin.url}/standin/orders/${encodeURIComponent(gid)}`);
    const body = (await res.json()) as { order: { tags: string[]; metafields: Array<{ key: string; value: string }> } };
    expect(body.order.tags).toEqual(["vip", "affiliate-hijacked"]);
    expect(body.order.metafields.map((m) => m.key)).toEqual([EVIDENCE_METAFIELD.key]);
  });

  it("is idempotent: called twice, still one tag and the evidence intact", async () => {
    const gid = newOrder("");
    for (let i = 0; i < 2; i++) {
      await expect(
        markOrderHijacked(graphql, { orderGid: gid, tag: "affiliate-hijacked", evidence }, retry),
      ).resolves.toMatchObject({ ok: true });
    }
    // A differently cased tag is the same tag to Shopify.
    await expect(
      markOrderHijacked(graphql, { orderGid: gid, tag: "Affiliate-Hijacked", evidence }, retry),
    ).resolves.toMatchObject({ ok: true });
    const snapshot = h.standin.store.findOrder(gid)!;
    expect(snapshot.order.tags).toEqual(["affiliate-hijacked"]);
    const metafields = h.standin.store.metafieldsOf(snapshot.shop, gid);
    expect(metafields).toHaveLength(1);
    expect(JSON.parse(metafields[0]!.value)).toEqual(evidence);
  });

  it("refuses a blank tag without writing anything: the default is the settings' to give", async () => {
    const gid = newOrder("");
    h.standin.clearRequests();
    await expect(markOrderHijacked(graphql, { orderGid: gid, tag: "  ", evidence }, retry)).resolves.toEqual({
      ok: false,
      retryable: false,
      message: "user errors: the hijack tag is blank",
    });
    expect(h.standin.store.findOrder(gid)!.order.tags).toEqual([]);
    expect(h.standin.requests()).toEqual([]);
  });

  it("backs off on THROTTLED using the cost extension, then succeeds", async () => {
    const gid = newOrder("");
    h.standin.faults({ throttle: 2 });
    await expect(
      markOrderHijacked(graphql, { orderGid: gid, tag: "affiliate-hijacked", evidence }, retry),
    ).resolves.toMatchObject({ ok: true });
    expect(sleeps).toHaveLength(2);
    // requestedQueryCost 24 (2 mutation fields x 10 + 4 payload objects), currentlyAvailable 0,
    // restoreRate 100: wait (24 - 0) / 100 s.
    expect(sleeps).toEqual([240, 240]);
    expect(h.standin.store.findOrder(gid)!.order.tags).toEqual(["affiliate-hijacked"]);
  });

  it("gives up after bounded attempts when throttling persists, as retryable", async () => {
    const gid = newOrder("");
    h.standin.faults({ throttle: 10 });
    const result = await markOrderHijacked(
      graphql,
      { orderGid: gid, tag: "affiliate-hijacked", evidence },
      { ...retry, maxAttempts: 3 },
    );
    h.standin.faults({ throttle: 0 });
    expect(result).toMatchObject({ ok: false, retryable: true });
    expect(sleeps).toHaveLength(2);
  });

  it("reports a 5xx as retryable", async () => {
    const gid = newOrder("");
    h.standin.faults({ serverError: 1, status: 502 });
    const result = await markOrderHijacked(graphql, { orderGid: gid, tag: "affiliate-hijacked", evidence }, retry);
    expect(result).toMatchObject({ ok: false, retryable: true });
    if (!result.ok) expect(result.message).toMatch(/502/);
  });

  it("reports a network failure as retryable", async () => {
    const gid = newOrder("");
    const down = await startHarness();
    await down.installShop(SHOP);
    const { admin } = await down.app.unauthenticated.admin(SHOP);
    await down.standin.close(); // the routed origin now refuses connections
    try {
      const result = await markOrderHijacked(
        admin.graphql,
        { orderGid: gid, tag: "affiliate-hijacked", evidence },
        retry,
      );
      expect(result).toMatchObject({ ok: false, retryable: true });
      if (!result.ok) expect(result.message).toMatch(/^network:/);
    } finally {
      await down.routing.restore();
    }
    // down.routing.restore() put the main harness's dispatcher back as the global one.
  });

  it("reports userErrors as not retryable, saying which", async () => {
    const gid = newOrder("");
    const result = await markOrderHijacked(graphql, { orderGid: gid, tag: "x".repeat(300), evidence }, retry);
    expect(result).toMatchObject({ ok: false, retryable: false });
    if (!result.ok) expect(result.message).toMatch(/^user errors: tagsAdd: .*too long/);
  });

  it("reports an unknown order as not found, not retryable", async () => {
    const result = await markOrderHijacked(
      graphql,
      { orderGid: "gid://shopify/Order/999999999", tag: "affiliate-hijacked", evidence },
      retry,
    );
    expect(result).toMatchObject({ ok: false, retryable: false });
    if (!result.ok) expect(result.message).toMatch(/^order not found/);
  });

  it("reports missing scopes as access denied, not retryable", async () => {
    const shop = "read-only.myshopify.com";
    await h.installShop(shop, "read_products");
    const { admin } = await h.app.unauthenticated.admin(shop);
    const result = await markOrderHijacked(
      admin.graphql,
      { orderGid: "gid://shopify/Order/1", tag: "affiliate-hijacked", evidence },
      retry,
    );
    expect(result).toMatchObject({ ok: false, retryable: false });
    if (!result.ok) expect(result.message).toMatch(/^access denied/);
  });

  it("reports a revoked token (401) as access denied, retryable: a later attempt loads the stored token again", async () => {
    const shop = "revoked.myshopify.com";
    await h.installShop(shop);
    const session = h.sessions.sessions.get(`offline_${shop}`)!;
    session.accessToken = "shpat_revoked";
    const { admin } = await h.app.unauthenticated.admin(shop);
    const result = await markOrderHijacked(
      admin.graphql,
      { orderGid: "gid://shopify/Order/1", tag: "affiliate-hijacked", evidence },
      retry,
    );
    expect(result).toMatchObject({ ok: false, retryable: true });
    if (!result.ok) expect(result.message).toMatch(/^access denied: HTTP 401/);
  });

  it("an invalid document gets Shopify's 200 with errors: the library throws GraphqlQueryError, callAdmin refuses it", async () => {
    const invalid = `query hijackTagOnPurpose { order(id: "gid://shopify/Order/1") { id hijackTag } }`;
    await expect(graphql(invalid)).rejects.toBeInstanceOf(GraphqlQueryError);
    const result = await callAdmin(graphql, invalid, undefined, retry);
    expect(result).toEqual({
      ok: false,
      retryable: false,
      message: expect.stringMatching(/^graphql errors: .*hijackTag/),
    });
    expect(sleeps).toEqual([]);
    expect(h.standin.validationFailures().filter((f) => f.query.includes("hijackTagOnPurpose"))).toHaveLength(2);
    h.standin.clearRequests();
  });

  it("the read-back document is the one validated in documents.test.ts", () => {
    expect(ORDER_TAG_GUARD_STATE).toContain(`namespace: "${EVIDENCE_METAFIELD.namespace}"`);
  });
});

describe("storefront config and evidence definition", () => {
  it("writes {tagParams} to the app installation metafield tag_guard.storefront_config", async () => {
    await expect(writeStorefrontConfig(graphql, { tagParams: ["tag", "ref"] }, retry)).resolves.toMatchObject({
      ok: true,
    });
    await expect(writeStorefrontConfig(graphql, { tagParams: ["aff"] }, retry)).resolves.toMatchObject({ ok: true });
    const shop = h.standin.store.shop(SHOP);
    const metafields = h.standin.store.metafieldsOf(shop, shop.appInstallationGid);
    expect(metafields.map((m) => [m.namespace, m.key, m.type])).toEqual([["tag_guard", "storefront_config", "json"]]);
    expect(JSON.parse(metafields[0]!.value)).toEqual({ tagParams: ["aff"] });
  });

  it("creates the pinned, merchant-readable evidence definition once; again is still ok", async () => {
    await expect(ensureEvidenceDefinition(graphql, retry)).resolves.toMatchObject({ ok: true });
    await expect(ensureEvidenceDefinition(graphql, retry)).resolves.toMatchObject({ ok: true });
    const definitions = h.standin.store.shop(SHOP).definitions;
    expect(definitions).toHaveLength(1);
    expect(definitions[0]).toMatchObject({
      ownerType: "ORDER",
      key: "hijack_evidence",
      type: "json",
      access: { admin: "MERCHANT_READ" },
    });
    expect(definitions[0]!.pinnedPosition).toBe(1);
    expect(definitions[0]!.namespace).toMatch(/^app--\d+--tag_guard$/);
  });
});
