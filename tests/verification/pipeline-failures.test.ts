import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { MAX_ATTEMPTS } from "../../app/queue/job-states";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { retryVerificationNow } from "../../app/verification/manual-retry.server";
import {
  clearClickFaults,
  clickFault,
  LOOKUP,
  orderTags,
  placeOrder,
  reportRequestCount,
  runOrderToEnd,
  useHarness,
  tagsAddCalls,
  verificationOf,
  VERIFY,
  type Harness,
} from "../support/pipeline-harness";

const prisma = databaseClient();

// Ways an order's verification goes wrong that the main pipeline suite does not walk: a shop
// the app holds no offline access for, Shopify refusing the tag on every attempt, and a click
// service that answers outside its contract (a body it never promised, a status it never defines).

const suite = useHarness("failures");
const { nextShop, newShop, startWorker } = suite;
let h: Harness;
beforeAll(() => {
  h = suite.h;
});
afterEach(async () => {
  await clearClickFaults(h);
  h.shopify.faults({ serverError: 0 });
});

describe("tagging a hijacked order in Shopify", () => {
  it("without an offline session: the hijack and the creator's credit stand, and the order says why it is untagged", async () => {
    const shop = nextShop();
    // Configured, but no access token was ever stored (or it was deleted).
    const saved = await saveSettings(shop, { clickServiceUrl: h.clicks.url, apiKey: h.apiKey });
    expect(saved.ok).toBe(true);
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    await w.runOnce();

    const v = await verificationOf(shop, payload.id);
    const why = "the app has no offline access to the shop (no stored session: not installed, or uninstalled)";
    expect(v).toMatchObject({
      outcome: "hijacked",
      reason: `hijack detected; ${why}`,
      lastError: `tag-order: ${why}`,
      taggedAt: null,
    });
    // Waiting cannot bring a session back: one attempt, no retry.
    expect(v.job).toMatchObject({ state: "done", attempts: 1 });
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", redirected: true });
    expect(h.shopify.requests().filter((request) => request.shop === shop)).toEqual([]);
  });

  it("Shopify failing every tag attempt: credited untagged once the attempts are used up, and Retry now tags it later", async () => {
    const shop = await newShop();
    h.shopify.faults({ serverError: 1_000 });
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    const v = await runOrderToEnd(h, w, shop, payload.id);

    expect(v).toMatchObject({
      outcome: "hijacked",
      reason: expect.stringMatching(/^hijack detected; tagging the order failed: server: HTTP 500\b/),
      taggedAt: null,
    });
    expect(v.job).toMatchObject({ state: "done", attempts: MAX_ATTEMPTS });
    const tagAttempts = v.attemptLog.filter((attempt) => attempt.step === "tag-order");
    expect(tagAttempts.map((attempt) => [attempt.number, attempt.result])).toEqual([
      ...Array.from({ length: MAX_ATTEMPTS - 1 }, (_, i) => [i + 1, "retryable"]),
      [MAX_ATTEMPTS, "error"],
    ]);
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", redirected: true });
    expect(orderTags(h, payload.id)).not.toContain("affiliate-hijacked");
    expect(tagsAddCalls(h, payload.admin_graphql_api_id)).toBe(0);
    // The verdict was reached once: the retries were Shopify's, never the service's.
    expect(v.attemptLog.filter((attempt) => attempt.step !== "tag-order")).toHaveLength(1);

    // Shopify answers again: the merchant's Retry now writes the tag, and the credit stays one.
    h.shopify.faults({ serverError: 0 });
    h.clock.now = null;
    expect(await retryVerificationNow(shop, String(payload.id))).toEqual({ ok: true });
    await w.runOnce();
    const retried = await verificationOf(shop, payload.id);
    expect(retried).toMatchObject({ outcome: "hijacked", taggedAt: expect.any(Date) });
    expect(orderTags(h, payload.id)).toContain("affiliate-hijacked");
    expect(retried.commission).toMatchObject({ id: v.commission!.id, amount: v.commission!.amount });
    expect(await prisma.commissionEntry.count({ where: { commissionId: v.commission!.id } })).toBe(1);
    // Tagged: nothing left to retry.
    expect(await retryVerificationNow(shop, String(payload.id))).toEqual({ ok: false, reason: "not-retryable" });
  });
});

describe("a click service off its contract", () => {
  it("a 200 whose body is not a verdict: never reported again, settled by lookup-click once that answers properly", async () => {
    const shop = await newShop();
    const w = startWorker();
    const before = reportRequestCount(h);
    // status 200 with {"error": ...}: a success status, and nothing the contract promises in it.
    await clickFault(h, { path: VERIFY, times: 1, status: 200, error: "maintenance" });
    await clickFault(h, { path: LOOKUP, times: 1, status: 200, error: "maintenance" });
    const { payload } = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    // Frozen until the test moves it: a wake-up must not claim the retry before it is read.
    h.clock.now = new Date();
    await w.runOnce();

    let v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBeNull();
    expect(v.job).toMatchObject({ state: "queued", attempts: 1 });
    expect(v.lastError).toMatch(/^invalid-response: /);
    h.clock.now = new Date(v.job.runAt.getTime() + 1);
    await w.runOnce();

    v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "hijacked", reportConfirmed: false, expectedTag: "alice-20" });
    expect(v.attemptLog.map((attempt) => [attempt.step, attempt.result])).toEqual([
      ["verify-click", "unknown"],
      ["lookup-click", "retryable"],
      ["lookup-click", "ok"],
      ["tag-order", "ok"],
    ]);
    expect(v.attemptLog[0]!.error).toMatch(/^clickId: /);
    expect(reportRequestCount(h) - before).toBe(1);
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", redirected: true });
  });

  it("a status the contract does not define, every time: failed once the attempts run out, the report sent once", async () => {
    const shop = await newShop();
    const w = startWorker();
    const before = reportRequestCount(h);
    await clickFault(h, { path: VERIFY, times: 1_000, status: 403, error: "Forbidden by a proxy" });
    await clickFault(h, { path: LOOKUP, times: 1_000, status: 403, error: "Forbidden by a proxy" });
    const { payload } = await placeOrder(h, { shop });
    const v = await runOrderToEnd(h, w, shop, payload.id);

    expect(v.outcome).toBe("failed");
    expect(v.reason).toBe(
      `gave up after ${MAX_ATTEMPTS} attempts (last error: unexpected-status: the service answered HTTP 403: a status the contract does not define)`,
    );
    expect(v.job).toMatchObject({ state: "done", attempts: MAX_ATTEMPTS });
    expect(v.attemptLog.map((attempt) => [attempt.step, attempt.result])).toEqual([
      ["verify-click", "unknown"],
      ...Array.from({ length: MAX_ATTEMPTS }, () => ["lookup-click", "retryable"]),
    ]);
    // The service's own words never reach the merchant.
    expect(JSON.stringify(v)).not.toContain("Forbidden by a proxy");
    expect(reportRequestCount(h) - before).toBe(1);
    expect(v.commission).toBeNull();
  });
});
