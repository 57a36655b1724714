import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { sql } from "../../app/database/sql.server";
import { EVIDENCE_METAFIELD } from "../../app/shopify-admin/documents";
import { sessionStorage } from "../../app/shopify.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import type { JobRunner } from "../../app/queue/runner.server";
import { unpark } from "../../app/queue/queue.server";
import { GAVE_UP_ON_LIFETIME } from "../../app/verification/retry-policy";
import {
  alwaysThrowing,
  clearClickFaults,
  clickFault,
  LOOKUP,
  reportRequestCount,
  runOrderToEnd,
  VERIFY,
  installShopWithExpiringToken,
  testDeps,
  orderTags,
  placeOrder,
  useHarness,
  tagsAddCalls,
  verificationOf,
  type Harness,
} from "../support/pipeline-harness";

const prisma = databaseClient();

const suite = useHarness("pipeline");
const { running, nextShop, newShop, startWorker } = suite;
let h: Harness;
beforeAll(() => {
  h = suite.h;
});

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
    expect(v.captureSource).toBe("cart_attributes");
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
    // What each witness said is kept with the order even so: the order page shows why nothing was found.
    expect(JSON.parse(v.witnesses ?? "null")).toEqual(expect.any(Object));
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

/** verify-click requests that reached the service so far (faulted ones included). */
const reportRequests = () => reportRequestCount(h);
const fault = (body: Record<string, unknown>) => clickFault(h, body);
const runToEnd = (w: JobRunner, shop: string, orderId: number) => runOrderToEnd(h, w, shop, orderId);

describe("failures and recovery", () => {
  afterEach(() => clearClickFaults(h));

  it("rejected key: flags the shop, parks the order, and retries it once the key is fixed", async () => {
    const shop = await newShop();
    const revoked = h.clicks.createApiKey();
    await saveSettings(shop, { clickServiceUrl: h.clicks.url, apiKey: revoked });
    h.clicks.revokeApiKey(revoked);
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop });
    await w.runOnce();

    let v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBe("rejected");
    expect(v.job.state).toBe("parked");
    expect(v.reportStartedAt).toBeNull();
    expect((await prisma.shopSettings.findUniqueOrThrow({ where: { shop } })).credentialsRejectedAt).toBeInstanceOf(
      Date,
    );

    await saveSettings(shop, { clickServiceUrl: h.clicks.url, apiKey: h.apiKey });
    expect(await sql.transaction((tx) => unpark(tx, shop, "verify-order", new Date()))).toBe(1);
    await w.runOnce();
    v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBe("matched");
    expect(v.reportConfirmed).toBe(true);
    expect(v.commission).not.toBeNull();
    expect((await prisma.shopSettings.findUniqueOrThrow({ where: { shop } })).credentialsRejectedAt).toBeNull();
  });

  it("a report whose answer is lost is never sent again: lookup-click settles the verdict", async () => {
    const shop = await newShop();
    const w = startWorker();
    const before = reportRequests();
    await fault({ path: VERIFY, times: 1, status: 503 });
    const { payload, clickId } = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    await w.runOnce();

    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "hijacked", reportConfirmed: false, expectedTag: "alice-20", hijacked: true });
    expect(v.attemptLog.map((a) => [a.step, a.result])).toEqual([
      ["verify-click", "unknown"],
      ["lookup-click", "ok"],
      ["tag-order", "ok"],
    ]);
    expect(reportRequests() - before).toBe(1);
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", redirected: true });
    expect(orderTags(h, payload.id)).toContain("affiliate-hijacked");
    expect(clickId).toBeTruthy();
  });

  it("a 404 not in the service's words (a proxy, a mistyped base path) is no expiry: lookup-click settles the verdict", async () => {
    const shop = await newShop();
    const w = startWorker();
    await fault({ path: VERIFY, times: 1, status: 404, error: "Not Found" });
    const { payload } = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    await w.runOnce();

    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "hijacked", reportConfirmed: false, expectedTag: "alice-20" });
    expect(v.attemptLog.map((a) => [a.step, a.result])).toEqual([
      ["verify-click", "unknown"],
      ["lookup-click", "ok"],
      ["tag-order", "ok"],
    ]);
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", redirected: true });
  });

  it("a lookup answered 404 not in the service's words is tried again later, not taken as the click's end", async () => {
    const shop = await newShop();
    const w = startWorker();
    await fault({ path: VERIFY, times: 1, status: 503 });
    await fault({ path: LOOKUP, times: 1, status: 404, error: "Not Found" });
    const { payload } = await placeOrder(h, { shop });
    // Frozen until the test moves it: a wake-up must not claim the retry before it is read.
    h.clock.now = new Date();
    await w.runOnce();

    let v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBeNull();
    expect(v.job).toMatchObject({ state: "queued", attempts: 1 });
    expect(v.lastError).toContain("not in the Click Verification Service's words");

    h.clock.now = new Date(v.job.runAt.getTime() + 1);
    await w.runOnce();
    v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "matched", verdictSource: "service" });
  });

  it("service down then up: the lookup is retried later with backoff, the report is not", async () => {
    const shop = await newShop();
    const w = startWorker();
    const before = reportRequests();
    await fault({ path: VERIFY, times: 1, status: 503 });
    await fault({ path: LOOKUP, times: 2, status: 503 });
    const { payload } = await placeOrder(h, { shop });
    // The worker's clock stands still from here until the test moves it: on a busy machine wall
    // time could reach the retry before the job is read, and a wake-up would claim it.
    h.clock.now = new Date();
    await w.runOnce();

    let v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBeNull();
    expect(v.job).toMatchObject({ state: "queued", attempts: 1 });
    expect(v.job.runAt.getTime()).toBeGreaterThan(h.clock.ms());
    expect(v.attemptLog.map((a) => a.result)).toEqual(["unknown", "retryable"]);

    h.clock.now = new Date(v.job.runAt.getTime() + 1);
    await w.runOnce();
    v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBe("matched");
    expect(v.attemptLog.map((a) => [a.step, a.result])).toEqual([
      ["verify-click", "unknown"],
      ["lookup-click", "retryable"],
      ["lookup-click", "ok"],
    ]);
    expect(reportRequests() - before).toBe(1);
  });

  it("a service that cannot be reached at all gets the report once it can, within the click's life", async () => {
    const shop = await newShop();
    // Nothing listens there: the connection is refused, so nothing reached the service.
    await saveSettings(shop, { clickServiceUrl: "http://127.0.0.1:9", apiKey: h.apiKey });
    const w = startWorker();
    const { payload, clickId } = await placeOrder(h, { shop });
    await w.runOnce();
    let v = await verificationOf(shop, payload.id);
    expect(v.job.state).toBe("queued");
    expect(v.reportStartedAt).toBeNull();
    expect(v.attemptLog.map((a) => a.result)).toEqual(["not-sent"]);

    await saveSettings(shop, { clickServiceUrl: h.clicks.url, apiKey: h.apiKey });
    h.clock.now = new Date(v.job.runAt.getTime() + 1);
    await w.runOnce();
    v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "matched", reportConfirmed: true });
    expect(h.clicks.verifications(clickId)).toHaveLength(1);
  });

  it("service down past the click's lifetime: failed at the one-hour cut-off, every attempt recorded", async () => {
    const shop = await newShop();
    const w = startWorker();
    await fault({ path: VERIFY, times: 1000, status: 503 });
    await fault({ path: LOOKUP, times: 1000, status: 503 });
    // 58 minutes old: two minutes left, far fewer than the attempts' backoff would take.
    const { payload } = await placeOrder(h, { shop, clickAgeMinutes: 58 });
    const v = await runToEnd(w, shop, payload.id);
    expect(v.outcome).toBe("failed");
    expect(v.reason).toContain(GAVE_UP_ON_LIFETIME);
    expect(v.job.attempts).toBeLessThan(8);
    expect(v.attemptLog.map((a) => a.result)).toEqual([
      "unknown",
      ...Array.from({ length: v.attemptLog.length - 1 }, () => "retryable"),
    ]);
    expect(v.commission).toBeNull();
  });

  it("an internal fault that keeps happening ends as failed, with its message, instead of looping", async () => {
    const shop = await newShop();
    const w = startWorker({
      deps: {
        clickService: alwaysThrowing("simulated fault while building the client"),
      },
    });
    const { payload } = await placeOrder(h, { shop });
    const v = await runToEnd(w, shop, payload.id);
    expect(v.outcome).toBe("failed");
    expect(v.job).toMatchObject({ state: "done", attempts: 8 });
    expect(v.reason).toMatch(/^internal error: simulated fault while building the client/);
  });

  it("a retry after a fault that struck past the verdict keeps the verdict and finishes the order", async () => {
    const shop = await newShop();
    const broken = startWorker({
      deps: {
        shopifyAdmin: alwaysThrowing("simulated fault while reaching Shopify"),
      },
    });
    const { payload, clickId } = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    const failed = await runToEnd(broken, shop, payload.id);
    expect(failed).toMatchObject({ outcome: "failed", hijacked: true });
    expect(failed.commission).toBeNull();
    await broken.stop();
    h.clock.now = null;

    const { retryVerificationNow } = await import("../../app/verification/manual-retry.server");
    expect(await retryVerificationNow(shop, String(payload.id))).toMatchObject({ ok: true });
    expect((await verificationOf(shop, payload.id)).job).toMatchObject({ state: "queued", attempts: 0 });
    await startWorker().runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBe("hijacked");
    expect(v.job.state).toBe("done");
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", redirected: true });
    expect(tagsAddCalls(h, payload.admin_graphql_api_id)).toBe(1);
    expect(h.clicks.verifications(clickId)).toHaveLength(1);
  });

  it("GraphQL throttled: the write is deferred to when the bucket refills, without spending an attempt", async () => {
    const shop = await newShop();
    const w = startWorker();
    h.shopify.faults({ throttle: 1 });
    const { payload } = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    // Frozen, as above: the bucket refills in under a second of wall time, which a loaded
    // machine spends between the worker's turn and the read.
    h.clock.now = new Date();
    await w.runOnce();
    let v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBeNull();
    expect(v.hijacked).toBe(true);
    expect(v.job).toMatchObject({ state: "queued", attempts: 0 });
    expect(v.job.runAt.getTime()).toBeGreaterThan(h.clock.ms());

    h.clock.now = new Date(v.job.runAt.getTime() + 1);
    await w.runOnce();
    v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBe("hijacked");
    expect(v.taggedAt).toBeInstanceOf(Date);
    expect(orderTags(h, payload.id).filter((tag) => tag === "affiliate-hijacked")).toHaveLength(1);
    expect(tagsAddCalls(h, payload.admin_graphql_api_id)).toBe(1);
    expect(h.shopify.requests().some((request) => request.fault === "throttle")).toBe(true);
  });

  it("a wave of hijacked orders in one shop: each tag goes at the time reserved for it, none is throttled", async () => {
    const shop = await newShop();
    // More hijacks than the shop's bucket has room for at once (2,000 points, a tag write costs 24).
    const orders = [];
    for (let i = 0; i < 10; i += 1) {
      const placed = await Promise.all(
        Array.from({ length: 10 }, () => placeOrder(h, { shop, arrivedTag: "honey-77" })),
      );
      orders.push(...placed.map(({ payload }) => payload));
    }
    h.clock.now = new Date();
    const w = startWorker();
    await w.runOnce();
    const deferred = await prisma.job.count({ where: { shop, state: "queued" } });
    // Some writes wait; every verdict is in already.
    expect(deferred).toBeGreaterThan(0);
    expect(await prisma.verification.count({ where: { shop, hijacked: true } })).toBe(orders.length);

    // Move the clock to each reserved time in turn: a job that comes back at its time writes.
    let rounds = 0;
    for (; rounds <= orders.length; rounds += 1) {
      const next = await prisma.job.findFirst({ where: { shop, state: "queued" }, orderBy: { runAt: "asc" } });
      if (!next) break;
      h.clock.now = next.runAt;
      await w.runOnce();
    }
    expect(rounds).toBeLessThanOrEqual(deferred);
    for (const payload of orders) {
      expect((await verificationOf(shop, payload.id)).outcome).toBe("hijacked");
      expect(tagsAddCalls(h, payload.admin_graphql_api_id)).toBe(1);
    }
    expect(h.shopify.requests().filter((request) => request.shop === shop && request.fault === "throttle")).toEqual([]);
  });
});

describe("expiring offline tokens", () => {
  it("tags an order 61 minutes after install: the worker refreshes the token first", async () => {
    const shop = nextShop();
    await installShopWithExpiringToken(h, shop, 61);
    const before = (await sessionStorage.loadSession(`offline_${shop}`))!.accessToken;
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    await w.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBe("hijacked");
    expect(orderTags(h, payload.id)).toContain("affiliate-hijacked");
    const after = (await sessionStorage.loadSession(`offline_${shop}`))!;
    expect(after.accessToken).not.toBe(before);
    expect(after.isExpired()).toBe(false);
  });

  it("a refresh Shopify refuses: the order waits and is retried, saying why, and is tagged once it works", async () => {
    const shop = nextShop();
    await installShopWithExpiringToken(h, shop, 61);
    // Refused twice: the session storage's refresh ahead, then the library's own.
    h.shopify.faults({ refreshFailures: 2 });
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    // Frozen until the test moves it: a wake-up must not claim the retry before it is read.
    h.clock.now = new Date();
    await w.runOnce();
    let v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBeNull();
    expect(v.hijacked).toBe(true);
    expect(v.job).toMatchObject({ state: "queued", attempts: 1 });
    expect(v.lastError).toMatch(/^tag-order: .*refresh/);
    expect(orderTags(h, payload.id)).not.toContain("affiliate-hijacked");

    h.clock.now = new Date(v.job.runAt.getTime() + 1);
    await w.runOnce();
    v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBe("hijacked");
    expect(orderTags(h, payload.id)).toContain("affiliate-hijacked");
    expect(v.commission?.redirected).toBe(true);
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
    expect(await prisma.job.count({ where: { shop } })).toBe(1);
    expect(await prisma.webhookDelivery.count({ where: { shop } })).toBe(1);
    expect(await prisma.commission.count({ where: { shop } })).toBe(1);
    expect(tagsAddCalls(h, payload.admin_graphql_api_id)).toBe(1);
    expect(h.clicks.verifications(clickId)).toHaveLength(1);
  });

  it("two workers racing over the same orders both work, and never process one twice", async () => {
    const shop = await newShop();
    const orders = [];
    for (let i = 0; i < 12; i += 1)
      orders.push(await placeOrder(h, { shop, arrivedTag: i % 2 ? "honey-77" : "alice-20" }));
    // Started together once the work is there, each taking one order at a time.
    const a = startWorker({ owner: "worker-a", concurrency: 1 });
    const b = startWorker({ owner: "worker-b", concurrency: 1 });
    const [byA, byB] = await Promise.all([a.runOnce(), b.runOnce()]);
    expect(byA).toBeGreaterThan(0);
    expect(byB).toBeGreaterThan(0);
    expect(byA + byB).toBe(12);
    for (const { payload, clickId } of orders) {
      expect((await verificationOf(shop, payload.id)).job.state).toBe("done");
      expect(h.clicks.verifications(clickId)).toHaveLength(1);
    }
    expect(await prisma.commission.count({ where: { shop } })).toBe(12);
  });

  it("a worker that dies mid-order: another finishes it after the lease expires, without asking the service again", async () => {
    const shop = await newShop();
    let reachedShopify!: () => void;
    const stalled = new Promise<void>((resolve) => (reachedShopify = resolve));
    // Worker A gets the verdict, then hangs forever before tagging: as good as killed.
    const a = startWorker({
      owner: "doomed",
      deps: { shopifyAdmin: () => (reachedShopify(), new Promise(() => {})) },
    });
    const { payload, clickId } = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    void a.runOnce();
    await stalled;
    expect((await verificationOf(shop, payload.id)).job).toMatchObject({ leaseOwner: "doomed", attempts: 1 });

    const b = startWorker({ owner: "survivor" });
    await b.runOnce();
    expect((await verificationOf(shop, payload.id)).job.state).toBe("running"); // lease still valid

    h.clock.now = new Date(Date.now() + 3 * 60_000);
    await b.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBe("hijacked");
    // The crash counted as an attempt: the survivor's claim was the second.
    expect(v.job).toMatchObject({ state: "done", attempts: 2 });
    expect(h.clicks.verifications(clickId)).toHaveLength(1);
    expect(tagsAddCalls(h, payload.admin_graphql_api_id)).toBe(1);
    expect(v.commission?.redirected).toBe(true);
    running.splice(running.indexOf(a), 1); // its hung call never settles; nothing to wait for
  });

  it("a worker that dies after sending the report: the survivor settles it with a lookup, never a second report", async () => {
    const shop = await newShop();
    let sent!: () => void;
    const reported = new Promise<void>((resolve) => (sent = resolve));
    const a = startWorker({
      owner: "doomed",
      deps: {
        // The report reaches the service and is recorded; the worker dies before the answer.
        clickService: (settings) => {
          const real = testDeps().clickService(settings);
          return {
            lookupClick: real.lookupClick,
            verifyClick: async (input, options) => {
              await real.verifyClick(input, options);
              sent();
              return new Promise(() => {});
            },
          };
        },
      },
    });
    const before = reportRequests();
    const { payload, clickId } = await placeOrder(h, { shop, arrivedTag: "alice-20" });
    void a.runOnce();
    await reported;

    h.clock.now = new Date(Date.now() + 3 * 60_000);
    await startWorker({ owner: "survivor" }).runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "matched", reportConfirmed: false });
    expect(h.clicks.verifications(clickId)).toHaveLength(1);
    expect(reportRequests() - before).toBe(1);
    running.splice(running.indexOf(a), 1);
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
    // Each reason names the field at fault and what is wrong with it, for the merchant to read.
    for (const [eventId, body, reason] of [
      ["bad-1", { id: "not-a-number", created_at: "2026-01-01T00:00:00Z", currency: "USD" }, "id must be a numeric id"],
      [
        "bad-2",
        { id: 1, created_at: "yesterday", currency: "USD" },
        "created_at must be an ISO 8601 time between 1970 and 9999",
      ],
      ["bad-3", [1, 2, 3], "payload Invalid input: expected object, received array"],
      [
        "bad-4",
        { id: 2, created_at: "2026-01-01T00:00:00Z", currency: "USD", note_attributes: "oops" },
        "note_attributes Invalid input: expected array, received string",
      ],
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
      expect(delivery, eventId).toMatchObject({ status: "invalid", reason, payload: JSON.stringify(body) });
    }
    expect(await prisma.verification.count({ where: { shop } })).toBe(0);
  });
});
