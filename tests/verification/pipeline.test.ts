import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import prisma from "../../app/db.server";
import { EVIDENCE_METAFIELD } from "../../app/shopify-orders/documents";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { requeueRejected, type VerificationWorker } from "../../app/verification/worker.server";
import {
  installShop,
  orderTags,
  placeOrder,
  startHarness,
  tagsAddCalls,
  verificationOf,
  worker,
  type Harness,
} from "../support/pipeline-harness";

let h: Harness;
const running: VerificationWorker[] = [];
let shopNumber = 0;

beforeAll(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((w) => w.stop()));
  h.clock.now = null;
});
afterAll(() => h.close());

async function newShop(settings = {}) {
  shopNumber += 1;
  const shop = `pipeline-${shopNumber}.myshopify.com`;
  await installShop(h, shop, settings);
  return shop;
}

function startWorker(...args: Parameters<typeof worker> extends [Harness, ...infer Rest] ? Rest : never) {
  const w = worker(h, ...args);
  running.push(w);
  return w;
}

describe("one order through the pipeline", () => {
  it("matched: credits the creator, sends the order details, adds no tag", async () => {
    const shop = await newShop();
    const w = startWorker();
    const { payload, clickId } = await placeOrder(h, {
      shop,
      expectedTag: "alice-20",
      arrivedTag: "alice-20",
      subtotal: "120.00",
    });
    await w.runOnce();

    const v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBe("matched");
    expect(v.captureSource).toBe("note_attributes");
    expect(orderTags(h, payload.id)).not.toContain("affiliate-hijacked");
    expect(v.commission).toMatchObject({
      creatorId: "cr_alice",
      expectedTag: "alice-20",
      arrivedTag: "alice-20",
      amount: "12.00",
      currency: "USD",
      redirected: false,
      status: "pending",
    });
    const sent = h.clicks.verifications(clickId);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ clickId, arrivedTag: "alice-20", conversion: true, orderId: String(payload.id) });
  });

  it("hijacked: tags the order once, stores the evidence, credits the EXPECTED creator", async () => {
    const shop = await newShop({ commissionRate: "7.5" });
    const w = startWorker();
    const { payload } = await placeOrder(h, {
      shop,
      expectedTag: "alice-20",
      creatorId: "cr_alice",
      arrivedTag: "honey-77",
      subtotal: "99.99",
    });
    await w.runOnce();

    const v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBe("hijacked");
    expect(orderTags(h, payload.id)).toEqual(expect.arrayContaining(["affiliate-hijacked"]));
    expect(tagsAddCalls(h, payload.admin_graphql_api_id)).toBe(1);
    const found = h.shopify.store.findOrder(payload.id)!;
    const evidence = h.shopify.store.metafield(
      found.shop,
      found.order.gid,
      EVIDENCE_METAFIELD.namespace,
      EVIDENCE_METAFIELD.key,
    );
    expect(JSON.parse(String(evidence?.value))).toMatchObject({
      expectedTag: "alice-20",
      arrivedTag: "honey-77",
      creatorId: "cr_alice",
    });
    // 99.99 * 7.5% = 7.49925 -> 7.50, exactly.
    expect(v.commission).toMatchObject({
      creatorId: "cr_alice",
      expectedTag: "alice-20",
      arrivedTag: "honey-77",
      amount: "7.50",
      redirected: true,
    });
    expect(h.shopify.validationFailures()).toEqual([]);
  });

  it("stripped tag: a click without a tag is sent as an empty tag and is a hijack", async () => {
    const shop = await newShop();
    const w = startWorker();
    const { payload, clickId } = await placeOrder(h, { shop, arrivedTag: null });
    await w.runOnce();
    expect((await verificationOf(shop, payload.id)).outcome).toBe("hijacked");
    expect(h.clicks.verifications(clickId)[0]?.arrivedTag).toBe("");
  });

  it("falls back to the landing page URL when the cart carried nothing", async () => {
    const shop = await newShop();
    const w = startWorker();
    const { payload } = await placeOrder(h, {
      shop,
      capture: "landing_site",
      expectedTag: "bob-1",
      creatorId: "cr_bob",
      arrivedTag: "bob-1",
    });
    await w.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "matched", captureSource: "landing_site", arrivedTag: "bob-1" });
    expect(v.commission?.creatorId).toBe("cr_bob");
  });

  it("unattributed: no click id, no service call, no commission", async () => {
    const shop = await newShop();
    const w = startWorker();
    const before = h.clicks.verifications().length;
    const { payload } = await placeOrder(h, { shop, capture: "none" });
    await w.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBe("unattributed");
    expect(v.commission).toBeNull();
    expect(h.clicks.verifications().length).toBe(before);
  });

  it("expired: a click past its hour and an id the service never issued", async () => {
    const shop = await newShop();
    const w = startWorker();
    const old = await placeOrder(h, { shop, clickAgeMinutes: 61 });
    const unknown = await placeOrder(h, { shop, clickId: "clk_never_issued" });
    await w.runOnce();
    for (const { payload } of [old, unknown]) {
      const v = await verificationOf(shop, payload.id);
      expect(v.outcome).toBe("expired");
      expect(v.commission).toBeNull();
    }
  });
});

describe("failures and recovery", () => {
  it("rejected key: flags the shop, parks the order, and retries it once the key is fixed", async () => {
    const shop = await newShop();
    const revoked = h.clicks.createApiKey();
    await saveSettings(shop, { clickServiceUrl: h.clicks.url, apiKey: revoked });
    h.clicks.revokeApiKey(revoked);
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop });
    await w.runOnce();

    let v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "rejected", state: "parked" });
    expect((await prisma.shopSettings.findUniqueOrThrow({ where: { shop } })).credentialsRejectedAt).toBeInstanceOf(
      Date,
    );

    await saveSettings(shop, { clickServiceUrl: h.clicks.url, apiKey: h.apiKey });
    expect(await requeueRejected(shop)).toBe(1);
    await w.runOnce();
    v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBe("matched");
    expect(v.commission).not.toBeNull();
    expect((await prisma.shopSettings.findUniqueOrThrow({ where: { shop } })).credentialsRejectedAt).toBeNull();
  });

  it("service down then up: retried later with backoff, then verified", async () => {
    const shop = await newShop();
    const w = startWorker();
    await fetch(`${h.clicks.url}/sandbox/faults`, {
      method: "POST",
      body: JSON.stringify({ path: "/api/v1/merchant/verify-click", times: 2, status: 503 }),
      headers: { "content-type": "application/json" },
    });
    const { payload } = await placeOrder(h, { shop });
    await w.runOnce();

    let v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ state: "queued", outcome: null, attempts: 1 });
    expect(v.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
    expect(v.attemptLog[0]).toMatchObject({ step: "verify-click", result: "retryable" });

    h.clock.now = new Date(v.nextAttemptAt.getTime() + 1);
    await w.runOnce();
    v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBe("matched");
    expect(v.attemptLog.map((attempt) => attempt.result)).toEqual(["retryable", "ok"]);
  });

  it("service down past the click's lifetime: failed, with every attempt recorded", async () => {
    const shop = await newShop();
    const w = startWorker();
    await fetch(`${h.clicks.url}/sandbox/faults`, {
      method: "POST",
      body: JSON.stringify({ path: "/api/v1/merchant/verify-click", times: 1000, status: 503 }),
      headers: { "content-type": "application/json" },
    });
    const { payload } = await placeOrder(h, { shop, clickAgeMinutes: 50 });
    try {
      for (let round = 0; round < 20; round += 1) {
        await w.runOnce();
        const v = await verificationOf(shop, payload.id);
        if (v.state === "done") break;
        h.clock.now = new Date(v.nextAttemptAt.getTime() + 1);
      }
    } finally {
      await fetch(`${h.clicks.url}/sandbox/faults`, { method: "DELETE" });
    }
    const v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBe("failed");
    expect(v.reason).toMatch(/lifetime|attempts/);
    expect(v.attemptLog.length).toBe(v.attempts);
    expect(v.attemptLog.every((attempt) => attempt.result === "retryable")).toBe(true);
    expect(v.commission).toBeNull();
  });

  it("an internal fault that keeps happening ends as failed, with its message, instead of looping", async () => {
    const shop = await newShop();
    const w = startWorker({
      clickService: () => {
        throw new Error("simulated fault while building the client");
      },
    });
    const { payload } = await placeOrder(h, { shop });
    for (let round = 0; round < 20; round += 1) {
      await w.runOnce();
      const v = await verificationOf(shop, payload.id);
      if (v.state === "done") break;
      h.clock.now = new Date(v.nextAttemptAt.getTime() + 1);
    }
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ state: "done", outcome: "failed", attempts: 8 });
    expect(v.reason).toMatch(/simulated fault/);
  });

  it("a retry after a fault that struck past the verdict keeps the verdict and finishes the order", async () => {
    const shop = await newShop();
    const broken = startWorker({
      adminGraphql: () => {
        throw new Error("simulated fault while reaching Shopify");
      },
    });
    const { payload, clickId } = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    for (let round = 0; round < 20; round += 1) {
      await broken.runOnce();
      const v = await verificationOf(shop, payload.id);
      if (v.state === "done") break;
      h.clock.now = new Date(v.nextAttemptAt.getTime() + 1);
    }
    expect(await verificationOf(shop, payload.id)).toMatchObject({ outcome: "failed", hijacked: true });
    await broken.stop();
    h.clock.now = null;

    const { retryVerificationNow } = await import("../../app/verification/manual-retry.server");
    expect(await retryVerificationNow(shop, String(payload.id))).toEqual({ ok: true });
    await startWorker().runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ state: "done", outcome: "hijacked" });
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", redirected: true });
    expect(tagsAddCalls(h, payload.admin_graphql_api_id)).toBe(1);
    expect(h.clicks.verifications(clickId)).toHaveLength(1);
  });

  it("GraphQL throttled then accepted: the tag lands once", async () => {
    const shop = await newShop();
    const w = startWorker();
    h.shopify.faults({ throttle: 1 });
    const { payload } = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    await w.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBe("hijacked");
    expect(v.taggedAt).toBeInstanceOf(Date);
    expect(orderTags(h, payload.id).filter((tag) => tag === "affiliate-hijacked")).toHaveLength(1);
    expect(h.shopify.requests().some((request) => request.fault === "throttle")).toBe(true);
  });
});

describe("duplicates, races and crashes", () => {
  it("the same delivery three times at once: one verification, one tagsAdd, one commission", async () => {
    const shop = await newShop();
    const w = startWorker();
    const { payload, clickId, statuses } = await placeOrder(h, { shop, arrivedTag: "honey-77", deliveries: 3 });
    expect(statuses).toEqual([200, 200, 200]);
    await w.runOnce();
    expect(await prisma.verification.count({ where: { shop } })).toBe(1);
    expect(await prisma.webhookDelivery.count({ where: { shop } })).toBe(1);
    expect(await prisma.commission.count({ where: { shop } })).toBe(1);
    expect(tagsAddCalls(h, payload.admin_graphql_api_id)).toBe(1);
    expect(h.clicks.verifications(clickId)).toHaveLength(1);
  });

  it("two workers racing over the same orders never process one twice", async () => {
    const shop = await newShop();
    const a = startWorker({}, "worker-a");
    const b = startWorker({}, "worker-b");
    const orders = [];
    for (let i = 0; i < 12; i += 1)
      orders.push(await placeOrder(h, { shop, arrivedTag: i % 2 ? "honey-77" : "alice-20" }));
    await Promise.all([a.runOnce(), b.runOnce(), a.runOnce(), b.runOnce()]);
    for (const { payload, clickId } of orders) {
      expect((await verificationOf(shop, payload.id)).state).toBe("done");
      expect(h.clicks.verifications(clickId)).toHaveLength(1);
    }
    expect(await prisma.commission.count({ where: { shop } })).toBe(12);
  });

  it("a worker that dies mid-order: another finishes it after the lease expires, without asking the service again", async () => {
    const shop = await newShop();
    let reachedShopify!: () => void;
    const stalled = new Promise<void>((resolve) => (reachedShopify = resolve));
    // Worker A gets the verdict, then hangs forever before tagging: as good as killed.
    const a = startWorker({ adminGraphql: () => (reachedShopify(), new Promise(() => {})) }, "doomed");
    const { payload, clickId } = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    void a.runOnce();
    await stalled;
    expect((await verificationOf(shop, payload.id)).leaseOwner).toBe("doomed");

    const b = startWorker({}, "survivor");
    await b.runOnce();
    expect((await verificationOf(shop, payload.id)).state).toBe("processing"); // lease still valid

    h.clock.now = new Date(Date.now() + 3 * 60_000);
    await b.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ state: "done", outcome: "hijacked" });
    expect(h.clicks.verifications(clickId)).toHaveLength(1);
    expect(tagsAddCalls(h, payload.admin_graphql_api_id)).toBe(1);
    expect(v.commission?.redirected).toBe(true);
    running.splice(running.indexOf(a), 1); // its hung call never settles; nothing to wait for
  });
});

describe("hostile input", () => {
  it("10 KB attribute values, Unicode and script-like tags get a clear outcome", async () => {
    const shop = await newShop();
    const w = startWorker();
    const scriptTag = `<script>alert("x")</script>`;
    const unicode = "créatrice-✓-名前";
    const a = await placeOrder(h, { shop, expectedTag: unicode, arrivedTag: unicode });
    const b = await placeOrder(h, { shop, expectedTag: "alice-20", arrivedTag: scriptTag });
    const c = await placeOrder(h, {
      shop,
      arrivedTag: "x".repeat(10_240),
      attributes: { _lb_tags: "y".repeat(10_240) },
    });
    const d = await placeOrder(h, { shop, clickId: "c".repeat(10_240) });
    await w.runOnce();
    expect((await verificationOf(shop, a.payload.id)).outcome).toBe("matched");
    const hijack = await verificationOf(shop, b.payload.id);
    expect(hijack.outcome).toBe("hijacked");
    expect(hijack.commission?.arrivedTag).toBe(scriptTag);
    expect((await verificationOf(shop, c.payload.id)).outcome).toBe("hijacked");
    const long = await verificationOf(shop, d.payload.id);
    expect(long.outcome).toBe("unattributed");
    expect(long.reason).toMatch(/not a click id/);
  });

  it("malformed but signed payloads are recorded as invalid, with the reason", async () => {
    const shop = await newShop();
    const { deliver } = await import("../support/deliver");
    for (const [eventId, body] of [
      ["bad-1", { id: "not-a-number", created_at: "2026-01-01T00:00:00Z", currency: "USD" }],
      ["bad-2", { id: 1, created_at: "yesterday", currency: "USD" }],
      ["bad-3", [1, 2, 3]],
      ["bad-4", { id: 2, created_at: "2026-01-01T00:00:00Z", currency: "USD", note_attributes: "oops" }],
    ] as const) {
      const response = await deliver(h.app.url, "/webhooks/orders/create", {
        topic: "orders/create",
        shop,
        body,
        eventId,
      });
      expect(response.status).toBe(200);
      const delivery = await prisma.webhookDelivery.findUniqueOrThrow({
        where: { shop_topic_eventId: { shop, topic: "orders/create", eventId } },
      });
      expect(delivery.status).toBe("invalid");
      expect(delivery.reason).toBeTruthy();
    }
    expect(await prisma.verification.count({ where: { shop } })).toBe(0);
  });
});
