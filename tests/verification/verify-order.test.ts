// Branches of the verify-order handler the pipeline suites reach only by accident: a stored key
// that cannot be opened, a verification that is gone, an order decided before its job ran again.
// Real parts as in pipeline.test.ts: the app's webhook route, the sandbox click service, the
// Shopify stand-in, SQLite.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { sql } from "../../app/database/sql.server";
import { reopen, unpark } from "../../app/queue/queue.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { createClickServiceClient } from "../../app/click-service";
import { MAX_ATTEMPTS } from "../../app/queue/job-states";
import {
  alwaysThrowing,
  clearClickFaults,
  clickFault,
  orderTags,
  runOrderToEnd,
  VERIFY,
  placeOrder,
  tagsAddCalls,
  useHarness,
  verificationOf,
  type Harness,
} from "../support/pipeline-harness";

const prisma = databaseClient();

const suite = useHarness("verify-order");
const { newShop, startWorker } = suite;
let h: Harness;
beforeAll(() => {
  h = suite.h;
});
afterEach(() => clearClickFaults(h));

describe("the shop's settings", () => {
  it("a stored key no configured sealing key opens: the order waits, saying why, and runs once the key is saved again", async () => {
    const shop = await newShop();
    // As after SETTINGS_ENCRYPTION_KEY was replaced without keeping the old one as PREVIOUS.
    const { apiKeySealed } = await prisma.shopSettings.findUniqueOrThrow({ where: { shop } });
    const [version, , ...rest] = apiKeySealed.split(".");
    await prisma.shopSettings.update({
      where: { shop },
      data: { apiKeySealed: [version, "00000000", ...rest].join(".") },
    });
    const w = startWorker();
    const { payload, clickId } = await placeOrder(h, { shop });
    await w.runOnce();

    let v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({
      outcome: "rejected",
      reason: "the stored API key cannot be used: sealed under a key that is no longer configured",
    });
    expect(v.job.state).toBe("parked");
    expect(h.clicks.verifications(clickId)).toEqual([]);

    await saveSettings(shop, { clickServiceUrl: h.clicks.url, apiKey: h.apiKey });
    expect(await sql.transaction((tx) => unpark(tx, shop, "verify-order", new Date()))).toBe(1);
    await w.runOnce();
    v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBe("matched");
    expect(h.clicks.verifications(clickId)).toHaveLength(1);
  });

  it("skips an order of a shop that never configured the app, or switched verification off, saying which", async () => {
    const unconfigured = suite.nextShop();
    const off = await newShop({ autoVerify: false });
    const w = startWorker();
    for (const [shop, reason] of [
      [unconfigured, "the shop has not configured the app"],
      [off, "automatic verification is switched off"],
    ] as const) {
      const { payload, clickId } = await placeOrder(h, { shop });
      await w.runOnce();
      const v = await verificationOf(shop, payload.id);
      expect(v).toMatchObject({ outcome: "skipped", reason, commission: null });
      expect(v.job.state).toBe("done");
      expect(h.clicks.verifications(clickId)).toEqual([]);
    }
  });

  it("credits at the shop's rate on the order-value basis it chose", async () => {
    const shop = await newShop({ commissionRate: "12.5", orderValueBasis: "total_price", holdDays: 7 });
    const w = startWorker();
    const { payload } = await placeOrder(h, {
      shop,
      subtotal: "80.00",
      amounts: { lineItems: [{ title: "Widget", price: "80.00" }], shipping: "20.00" },
    });
    await w.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBe("matched");
    expect(v.commission).toMatchObject({ orderValue: "100.00", rate: "12.5", amount: "12.50", currency: "USD" });
  });
});

describe("the credit", () => {
  it("of a click that arrived without a tag records the arrived tag as empty, not as text", async () => {
    const shop = await newShop();
    const { payload } = await placeOrder(h, { shop, arrivedTag: null });
    await startWorker().runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "hijacked", arrivedTag: null });
    expect(v.commission).toMatchObject({ arrivedTag: "", expectedTag: "alice-20", redirected: true });
  });
});

describe("a job whose order is gone or already decided", () => {
  it("finishes without a call when its verification no longer exists", async () => {
    const shop = await newShop();
    const { payload, clickId } = await placeOrder(h, { shop });
    const { id } = await verificationOf(shop, payload.id);
    await prisma.verification.delete({ where: { id } });
    await startWorker().runOnce();
    const job = await prisma.job.findUniqueOrThrow({ where: { kind_subject: { kind: "verify-order", subject: id } } });
    expect(job).toMatchObject({ state: "done", lastError: null });
    expect(h.clicks.verifications(clickId)).toEqual([]);
  });

  it("a decided order run again, with nothing to settle, neither reports, tags nor credits a second time", async () => {
    const shop = await newShop();
    const w = startWorker();
    const { payload, clickId } = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    await w.runOnce();
    const decided = await verificationOf(shop, payload.id);
    expect(decided.outcome).toBe("hijacked");

    // What a refund's intake does to the job; here without a refund to apply.
    await sql.transaction((tx) => reopen(tx, "verify-order", decided.id, h.clock.date()));
    expect((await verificationOf(shop, payload.id)).job.state).toBe("queued");
    await w.runOnce();
    const again = await verificationOf(shop, payload.id);
    expect(again.job).toMatchObject({ state: "done", lastError: null });
    expect(again).toMatchObject({ outcome: "hijacked", reason: decided.reason, completedAt: decided.completedAt });
    expect(h.clicks.verifications(clickId)).toHaveLength(1);
    expect(tagsAddCalls(h, payload.admin_graphql_api_id)).toBe(1);
    expect(orderTags(h, payload.id)).toContain("affiliate-hijacked");
    expect(await prisma.commission.findMany({ where: { shop }, select: { amount: true } })).toEqual([
      { amount: decided.commission!.amount },
    ]);
  });
});

describe("giving up", () => {
  it("a fault that keeps happening after the service failed ends failed with both: the fault and the last service error", async () => {
    const shop = await newShop();
    let built = 0;
    const w = startWorker({
      deps: {
        clickService: (settings) => {
          built += 1;
          if (built > 1) throw new Error("simulated fault after a service failure");
          return createClickServiceClient({
            baseUrl: settings.clickServiceUrl,
            apiKey: settings.apiKey,
            sleep: async () => {},
            maxAttempts: 1,
          });
        },
      },
    });
    await clickFault(h, { path: VERIFY, times: 1, status: 503 });
    const { payload } = await placeOrder(h, { shop });
    await w.runOnce();
    const { lastError } = await verificationOf(shop, payload.id);
    expect(lastError).toMatch(/HTTP 503/);

    const v = await runOrderToEnd(h, w, shop, payload.id);
    expect(v.job).toMatchObject({ state: "done", attempts: MAX_ATTEMPTS });
    expect(v).toMatchObject({
      outcome: "failed",
      reason: `internal error: simulated fault after a service failure (last error: ${lastError})`,
    });
  });

  it("a fault from the start ends failed with the fault's message alone", async () => {
    const shop = await newShop();
    const w = startWorker({
      deps: {
        clickService: alwaysThrowing("simulated fault while building the client"),
      },
    });
    const { payload } = await placeOrder(h, { shop });
    const v = await runOrderToEnd(h, w, shop, payload.id);
    expect(v).toMatchObject({
      outcome: "failed",
      lastError: null,
      reason: "internal error: simulated fault while building the client",
    });
  });
});
