import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closeClickServicePools, createClickServiceClient } from "../../app/click-service";
import { sql } from "../../app/database/sql.server";
import { registry } from "../../app/metrics/registry.server";
import type { Transition } from "../../app/queue/job-states";
import { enqueue } from "../../app/queue/queue.server";
import { startJobRunner, type JobHandler, type JobRunner } from "../../app/queue/runner.server";
import { LOCAL_SANDBOX, startHarness, uniqueClickId, type Harness } from "../click-service/harness";

// What the metrics count is counted where it happens, once: each job run by its end, by the queue
// once its transaction committed; each request to the Click Verification Service by its outcome,
// retries included, by the client. (Deliveries are counted by the lanes and the server:
// tests/server/instance.test.ts.)

/** A sample's value summed over the label sets that include `labels`; a histogram's by its `_count`. */
async function value(name: string, labels: Record<string, string>): Promise<number> {
  const metric = registry.getSingleMetric(name.replace(/_count$/, ""));
  if (!metric) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  return values
    .filter(
      (v) =>
        (v as { metricName?: string }).metricName === undefined || (v as { metricName?: string }).metricName === name,
    )
    .filter((v) => Object.entries(labels).every(([key, wanted]) => String(v.labels[key]) === wanted))
    .reduce((sum, v) => sum + v.value, 0);
}

describe("job runs", () => {
  const runners: JobRunner[] = [];
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((runner) => runner.stop()));
  });

  it("are counted by kind and by how each ended: done, retry, defer, park, fault", async () => {
    const shop = "metrics-jobs.myshopify.com";
    const ends: Record<string, Transition | "throw"> = {
      done: { to: "finish" },
      retry: { to: "retry", at: new Date(Date.now() + 3_600_000), error: "later" },
      defer: { to: "defer", at: new Date(Date.now() + 3_600_000), reason: "bucket" },
      park: { to: "park", error: "key refused" },
      fault: "throw",
    };
    const before = Object.fromEntries(
      await Promise.all(
        Object.keys(ends).map(async (result) => [
          result,
          await value("tagguard_jobs_total", { kind: "lookup-click", result }),
        ]),
      ),
    );
    const now = new Date();
    await enqueue(
      sql,
      Object.keys(ends).map((result) => ({
        shop,
        kind: "lookup-click" as const,
        subject: `${shop}-${result}`,
        runAt: now,
      })),
      now,
    );
    const handler: JobHandler = {
      run: async (ctx) => {
        const end = ends[ctx.job.subject.slice(shop.length + 1)]!;
        if (end === "throw") throw new Error("a bug");
        return end;
      },
      giveUp: async () => {},
    };
    runners.push(
      startJobRunner({
        handlers: {
          "verify-order": handler,
          "lookup-click": handler,
          "reconcile-shop": handler,
          "payout-run": handler,
          "payout-schedule": handler,
        },
        concurrency: 8,
        pollIntervalMs: 3_600_000,
        takeTurns: false,
      }),
    );
    for (const result of Object.keys(ends))
      await expect
        .poll(() => value("tagguard_jobs_total", { kind: "lookup-click", result }), { timeout: 10_000 })
        .toBe(before[result] + 1);
  });
});

describe("requests to the Click Verification Service", () => {
  let h: Harness;
  let apiKey: string;
  beforeAll(async () => {
    h = await startHarness({ inProcess: true });
    apiKey = await h.createApiKey();
  });
  afterAll(async () => {
    await closeClickServicePools();
    await h.close();
  });

  const client = (key = apiKey) =>
    createClickServiceClient({
      baseUrl: h.url,
      apiKey: key,
      destination: LOCAL_SANDBOX,
      maxAttempts: 3,
      sleep: async () => {},
      random: () => 0.5,
    });
  const requests = (operation: string, outcome: string) =>
    value("tagguard_click_service_requests_total", { operation, outcome });

  it("are counted each time one goes on the wire, by operation and outcome, with their time", async () => {
    const LOOKUP = "/api/v1/merchant/lookup-click";
    const before = {
      verifyOk: await requests("verify_click", "ok"),
      lookupOk: await requests("lookup_click", "ok"),
      lookup5xx: await requests("lookup_click", "5xx"),
      lookup404: await requests("lookup_click", "404"),
      verify401: await requests("verify_click", "401"),
      timed: await value("tagguard_click_service_request_duration_seconds_count", { operation: "lookup_click" }),
    };
    const clicked = await h.createClick({ clickId: uniqueClickId(), expectedTag: "alice-20", creatorId: "cr_alice" });
    expect((await client().verifyClick({ clickId: clicked.clickId, arrivedTag: "alice-20" })).ok).toBe(true);
    // A lookup that fails twice with 503 and then succeeds: three requests, one call.
    await h.addFault({ path: LOOKUP, times: 2, status: 503 });
    expect((await client().lookupClick(clicked.clickId)).ok).toBe(true);
    expect((await client().lookupClick(uniqueClickId())).ok).toBe(false);
    expect(
      (await client("not-a-key-of-the-service").verifyClick({ clickId: clicked.clickId, arrivedTag: "x" })).ok,
    ).toBe(false);
    await h.clearFaults();
    expect(await requests("verify_click", "ok")).toBe(before.verifyOk + 1);
    expect(await requests("lookup_click", "5xx")).toBe(before.lookup5xx + 2);
    expect(await requests("lookup_click", "ok")).toBe(before.lookupOk + 1);
    expect(await requests("lookup_click", "404")).toBe(before.lookup404 + 1);
    expect(await requests("verify_click", "401")).toBe(before.verify401 + 1);
    expect(await value("tagguard_click_service_request_duration_seconds_count", { operation: "lookup_click" })).toBe(
      before.timed + 4,
    );
  });
});
