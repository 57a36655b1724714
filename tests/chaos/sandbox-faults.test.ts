import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeClickServicePools, createClickServiceClient } from "../../app/click-service";
import { VERIFY_CLICK_PATH } from "../../app/click-service/contract";
import { markOrderHijacked, readOrderTagGuardState } from "../../app/shopify-admin/orders.server";
import { startClickService, type RunningClickService } from "../../sandbox/click-service/server";
import { buildOrderCreatePayload } from "../../sandbox/shopify";
import { LOCAL_SANDBOX } from "../click-service/harness";
import { startHarness, type Harness } from "../shopify-admin/support";

// The stand-ins' probabilistic faults, which the chaos run is built on: seeded (a run can be
// replayed), counted by kind, and the click service's per-click call counts that the run's
// "at most one verify-click per order" is read from.

let service: RunningClickService;
let apiKey: string;

beforeAll(async () => {
  service = await startClickService();
  apiKey = service.createApiKey();
});
afterAll(async () => {
  await closeClickServicePools();
  await service.close();
});

const client = (headersTimeoutMs = 10_000) =>
  createClickServiceClient({
    baseUrl: service.url,
    apiKey,
    maxAttempts: 1,
    destination: LOCAL_SANDBOX,
    headersTimeoutMs,
  });

async function manage(method: string, path: string, body?: unknown) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: response.status === 204 ? null : await response.json() };
}

/** What each of `n` lookups of a live click ended as, under the running plan. */
async function lookups(n: number): Promise<string[]> {
  const click = service.addClick({ expectedTag: "t", creatorId: "cr" });
  const seen: string[] = [];
  for (let i = 0; i < n; i++) {
    const result = await client(300).lookupClick(click.clickId);
    seen.push(result.ok ? "ok" : result.error.kind === "retryable" ? result.error.reason : result.error.kind);
  }
  return seen;
}

describe("the click service's chaos mode", () => {
  it("fails about the planned share of calls, the same ones again for the same seed", async () => {
    const weights = { "http-503": 1, dropped: 1 };
    expect((await manage("POST", "/sandbox/chaos", { seed: 42, rate: 0.3, weights })).status).toBe(201);
    const first = await lookups(60);
    const injected = (await manage("GET", "/sandbox/chaos")).json.injected;
    await manage("POST", "/sandbox/chaos", { seed: 42, rate: 0.3, weights });
    const again = await lookups(60);
    await manage("POST", "/sandbox/chaos", { seed: 7, rate: 0.3, weights });
    const other = await lookups(60);
    await manage("DELETE", "/sandbox/chaos");

    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
    const failed = first.filter((r) => r !== "ok").length;
    expect(failed).toBeGreaterThan(6);
    expect(failed).toBeLessThan(30);
    expect(injected).toEqual({
      "http-503": first.filter((r) => r === "server-error").length,
      dropped: first.filter((r) => r === "connection").length,
      "slow-reply": 0,
      "answer-lost": 0,
    });
    expect(await lookups(10)).toEqual(Array(10).fill("ok"));
  });

  it("answer-lost and slow-reply: the verification is recorded, the client never hears of it", async () => {
    for (const kind of ["answer-lost", "slow-reply"] as const) {
      service.chaos({ seed: 1, rate: 1, weights: { [kind]: 1 }, slowMs: 2_000 });
      const click = service.addClick({ expectedTag: "alice-20", creatorId: "cr" });
      const result = await client(300).verifyClick({ clickId: click.clickId, arrivedTag: "alice-20" });
      service.chaos(null);
      expect(result, kind).toMatchObject({ ok: false, error: { kind: "retryable", sent: true } });
      await expect.poll(() => service.verifications(click.clickId).length).toBe(1);
    }
  });

  it("counts every verify-click per click, those cut off before the service read them included", async () => {
    const click = service.addClick({ expectedTag: "alice-20", creatorId: "cr" });
    const other = service.addClick({ expectedTag: "bob-10", creatorId: "cr" });
    // A call held and then cut: the client has long given up by then.
    expect(
      (await manage("POST", "/sandbox/faults", { path: VERIFY_CLICK_PATH, delay_ms: 60_000, drop: true })).status,
    ).toBe(201);
    const cut = await client(300).verifyClick({ clickId: click.clickId, arrivedTag: "alice-20" });
    expect(cut).toMatchObject({ ok: false, error: { kind: "retryable", reason: "timeout" } });
    await manage("DELETE", "/sandbox/faults");
    service.chaos({ seed: 3, rate: 1, weights: { "http-503": 1 } });
    await client().verifyClick({ clickId: click.clickId, arrivedTag: "alice-20" });
    service.chaos(null);
    await client().verifyClick({ clickId: other.clickId, arrivedTag: "bob-10" });

    const counts = (await manage("GET", `/sandbox/call-counts?path=${encodeURIComponent(VERIFY_CLICK_PATH)}`)).json;
    expect(counts.counts[click.clickId]).toBe(2);
    expect(counts.counts[other.clickId]).toBe(1);
    expect(service.callCounts(VERIFY_CLICK_PATH)).toEqual(counts.counts);
    expect(service.verifications(click.clickId)).toEqual([]);
  });

  it.each([
    [{ rate: 0.3 }, "seed"],
    [{ seed: 1, rate: 1.5 }, "rate"],
    [{ seed: 1, rate: 0.3, weights: { meteor: 1 } }, "meteor"],
    [{ seed: 1, rate: 0.3, slow_ms: 0 }, "slow_ms"],
  ])("refuses the plan %j naming what is wrong", async (plan, word) => {
    const response = await manage("POST", "/sandbox/chaos", plan);
    expect(response.status).toBe(400);
    expect(response.json.error).toContain(word);
  });
});

describe("the Shopify stand-in's chaos mode", () => {
  let h: Harness;
  const SHOP = "chaos-standin.myshopify.com";
  beforeAll(async () => {
    h = await startHarness();
    await h.installShop(SHOP);
  });
  afterAll(() => h?.close());

  const mark = async (gid: string) => {
    const { admin } = await h.app.unauthenticated.admin(SHOP);
    return markOrderHijacked(
      admin.graphql,
      {
        orderGid: gid,
        tag: "affiliate-hijacked",
        evidence: { expectedTag: "a", arrivedTag: "b", creatorId: "cr", verdict: "hijacked", decidedAt: "x" },
      },
      { maxAttempts: 1 },
    );
  };

  it("throttles the planned share of mutations, never applying them, and leaves queries alone", async () => {
    const orders = Array.from({ length: 40 }, () => {
      const payload = buildOrderCreatePayload({ shop: SHOP });
      h.standin.createOrder(SHOP, payload);
      return payload.admin_graphql_api_id;
    });
    h.standin.chaos({ seed: 11, throttleMutations: 0.5 });
    const results = [];
    for (const gid of orders) results.push(await mark(gid));
    const { admin } = await h.app.unauthenticated.admin(SHOP);
    const read = await readOrderTagGuardState(admin.graphql, orders[0]!, { maxAttempts: 1 });
    const injected = h.standin.faultsInjected();
    h.standin.chaos(null);

    const throttled = results.filter((r) => !r.ok);
    expect(throttled.every((r) => !r.ok && r.throttledForMs !== undefined)).toBe(true);
    expect(throttled.length).toBeGreaterThan(8);
    expect(throttled.length).toBeLessThan(32);
    expect(injected).toEqual({ throttle: throttled.length, "mutation-answer-lost": 0 });
    expect(read.ok).toBe(true);
    const applied = orders.map((gid) => h.standin.store.findOrder(gid)!.order);
    expect(applied.map((o) => o.tagsAddApplied)).toEqual(results.map((r) => (r.ok ? 1 : 0)));
    expect(applied.map((o) => o.tags.includes("affiliate-hijacked"))).toEqual(results.map((r) => r.ok));
  });

  it("loses the planned share of mutations' answers after applying them", async () => {
    const orders = Array.from({ length: 30 }, () => {
      const payload = buildOrderCreatePayload({ shop: SHOP });
      h.standin.createOrder(SHOP, payload);
      return payload.admin_graphql_api_id;
    });
    const before = h.standin.faultsInjected();
    h.standin.chaos({ seed: 12, throttleMutations: 0, loseMutationAnswers: 0.5 });
    const results = [];
    for (const gid of orders) results.push(await mark(gid));
    const injected = h.standin.faultsInjected();
    h.standin.chaos(null);

    const lost = results.filter((r) => !r.ok).length;
    expect(lost).toBeGreaterThan(5);
    expect(lost).toBeLessThan(25);
    expect(injected["mutation-answer-lost"] - before["mutation-answer-lost"]).toBe(lost);
    // Each was applied all the same: only its answer was lost.
    expect(orders.map((gid) => h.standin.store.findOrder(gid)!.order.tagsAddApplied)).toEqual(orders.map(() => 1));
  });

  it("counts each applied tagsAdd on its order, a repeated one too", async () => {
    const payload = buildOrderCreatePayload({ shop: SHOP });
    h.standin.createOrder(SHOP, payload);
    expect((await mark(payload.admin_graphql_api_id)).ok).toBe(true);
    expect((await mark(payload.admin_graphql_api_id)).ok).toBe(true);
    const order = h.standin.store.findOrder(payload.admin_graphql_api_id)!.order;
    expect(order.tagsAddApplied).toBe(2);
    expect(order.tags.filter((t) => t === "affiliate-hijacked")).toHaveLength(1);
  });
});
