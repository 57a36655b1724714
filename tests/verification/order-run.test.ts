import { beforeAll, describe, expect, it } from "vitest";
import { createClickServiceClient } from "../../app/click-service";
import { databaseClient } from "../../app/database/db.server";
import { sql } from "../../app/database/sql.server";
import { reopen } from "../../app/queue/queue.server";
import type { JobContext } from "../../app/queue/runner.server";
import { OrderRun } from "../../app/verification/order-run.server";
import { placeOrder, refundOrder, useHarness, verificationOf, type Harness } from "../support/pipeline-harness";

// How an order's run writes what the steps decided (order-run.server.ts): the real worker, the
// app's webhook routes, the sandbox click service and the Shopify stand-in, on a real database.

const prisma = databaseClient();

const suite = useHarness("order-run");
const { newShop, startWorker } = suite;
let h: Harness;
beforeAll(() => {
  h = suite.h;
});
const MINUTE = 60_000;

describe("a decided order's row", () => {
  it("is left as it was when the order runs again for a refund: only the commission moves", async () => {
    const shop = await newShop();
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop, subtotal: "100.00" });
    await w.runOnce();
    const decided = await verificationOf(shop, payload.id);
    expect(decided).toMatchObject({ outcome: "matched", commission: { amount: "10.00" } });

    h.clock.now = new Date(Date.now() + 10 * MINUTE);
    await refundOrder(h, shop, payload, { subtotal: "40.00" });
    await w.runOnce();
    const again = await verificationOf(shop, payload.id);
    expect(again.job).toMatchObject({ state: "done", lastError: null });
    expect(again.commission).toMatchObject({ amount: "6.00" });
    expect(again).toMatchObject({ outcome: "matched", updatedAt: decided.updatedAt, completedAt: decided.completedAt });

    // Run again with nothing pending (a duplicate run): nothing is written to it either.
    h.clock.now = new Date(Date.now() + 20 * MINUTE);
    await sql.transaction((tx) => reopen(tx, "verify-order", decided.id, h.clock.date()));
    await w.runOnce();
    const third = await verificationOf(shop, payload.id);
    expect(third.job).toMatchObject({ state: "done", lastError: null });
    expect(third).toMatchObject({ updatedAt: decided.updatedAt, commission: { amount: "6.00" } });
  });
});

describe("what is written before a call goes out", () => {
  it("the report's mark and its attempt, started, are in the database while the report is out", async () => {
    const shop = await newShop();
    let seen: unknown;
    const w = startWorker({
      deps: {
        clickService: (settings) => {
          const client = createClickServiceClient({ baseUrl: settings.clickServiceUrl, apiKey: settings.apiKey });
          return {
            ...client,
            async verifyClick(request, options) {
              seen = await verificationOf(shop, request.orderId!);
              return client.verifyClick(request, options);
            },
          };
        },
      },
    });
    const { payload } = await placeOrder(h, { shop });
    await w.runOnce();
    expect(seen).toMatchObject({
      outcome: null,
      reportStartedAt: expect.any(Date),
      attemptLog: [{ step: "verify-click", result: "started", number: 1, finishedAt: null }],
    });
    const v = await verificationOf(shop, payload.id);
    expect(v.attemptLog).toMatchObject([{ step: "verify-click", result: "ok", finishedAt: expect.any(Date) }]);
  });
});

describe("an order redacted while its job ran", () => {
  it("writes nothing for it: the run fails saying the order is gone, and the next run finds nothing to do", async () => {
    const shop = await newShop();
    let gone: string | undefined;
    const w = startWorker({
      deps: {
        clickService: (settings) => {
          const client = createClickServiceClient({ baseUrl: settings.clickServiceUrl, apiKey: settings.apiKey });
          return {
            ...client,
            // customers/redact deletes the order's verification while its report is out.
            async verifyClick(request, options) {
              const v = await prisma.verification.delete({
                where: { shop_orderId: { shop, orderId: request.orderId! } },
              });
              gone = v.id;
              return client.verifyClick(request, options);
            },
          };
        },
      },
    });
    const { clickId } = await placeOrder(h, { shop });
    await w.runOnce();
    const job = () =>
      prisma.job.findUniqueOrThrow({ where: { kind_subject: { kind: "verify-order", subject: gone! } } });
    expect(await job()).toMatchObject({ state: "queued", lastError: "the order's verification is gone" });
    expect(await prisma.commission.count({ where: { shop } })).toBe(0);
    expect(h.clicks.verifications(clickId)).toHaveLength(1);

    h.clock.now = new Date((await job()).runAt.getTime() + 1);
    await w.runOnce();
    expect(await job()).toMatchObject({ state: "done", lastError: null });
    expect(await prisma.commission.count({ where: { shop } })).toBe(0);
    expect(h.clicks.verifications(clickId)).toHaveLength(1);
  });
});

describe("what a run holds for its next write", () => {
  it("nothing until a step's decision is held, and nothing once it is written: verify-order writes before an outside call only then", async () => {
    const writes: unknown[] = [];
    const ctx: JobContext = {
      job: {
        id: "job-1",
        shop: "order-run-held.myshopify.com",
        kind: "verify-order",
        subject: "v-none",
        attempts: 1,
        runAt: new Date(),
        owner: "test",
      },
      now: () => h.clock.date(),
      random: () => 0.5,
      signal: new AbortController().signal,
      write: (fn, transition) => {
        writes.push(transition);
        return sql.transaction(fn);
      },
    };
    const run = new OrderRun(ctx, "1001");
    expect(run.holding).toBe(false);
    run.hold(undefined);
    expect(run.holding).toBe(false);
    run.hold({ attempts: [{ end: { id: "attempt-none", result: "ok", error: null } }] });
    expect(run.holding).toBe(true);
    await run.record({});
    expect(run.holding).toBe(false);
    expect(writes).toEqual([undefined]);
  });
});
