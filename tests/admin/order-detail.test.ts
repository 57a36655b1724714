import { beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import * as orderRoute from "../../app/routes/app.orders.$id";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { onWake } from "../../app/queue/wake.server";
import { adminRequest, call, seedVerification, storeOfflineSession } from "./helpers";

const prisma = databaseClient();

const SHOP = "order-test.myshopify.com";
const OTHER = "order-other.myshopify.com";
const alive = () => new Date(Date.now() + 30 * 60_000);

async function load(shop: string, id: string) {
  return call(orderRoute.loader as never, adminRequest(`/app/orders/${id}`, shop), { id });
}

async function retry(shop: string, id: string) {
  return call(orderRoute.action as never, adminRequest(`/app/orders/${id}`, shop, { form: {} }), { id });
}

beforeAll(async () => {
  await storeOfflineSession(SHOP);
  await storeOfflineSession(OTHER);
  await saveSettings(SHOP, {
    clickServiceUrl: "https://clicks.example.com",
    apiKey: "sk_order_key_5678",
    hijackTag: "hijack-caught",
  });
});

describe("order detail", () => {
  it("shows what arrived, each attempt, the verdict, the tag and the commission", async () => {
    const row = await seedVerification({
      shop: SHOP,
      outcome: "hijacked",
      arrivedTag: "coupon-x",
      expectedTag: "creator-a",
      creatorId: "cr_42",
      orderFacts: {
        id: "1",
        createdAt: "2026-11-20T10:06:00.000Z",
        discountCodes: [{ code: "LEAKED10", amount: "3.00", type: "fixed_amount" }],
        cartAttributes: [
          {
            name: "_lb_tags",
            value: JSON.stringify([
              ["creator-a", "2026-11-20T10:00:00Z"],
              ["coupon-x", "2026-11-20T10:05:00Z"],
            ]),
          },
        ],
      },
      commission: { amountMinor: 1250n, amount: "12.50", currency: "EUR", redirected: true },
    });
    await prisma.verification.update({
      where: { id: row.id },
      data: {
        verdict: "hijacked",
        recorded: true,
        taggedAt: new Date("2026-11-20T10:10:00Z"),
        capturedAt: new Date("2026-11-20T10:00:00Z"),
      },
    });
    await prisma.verificationAttempt.createMany({
      data: [
        {
          verificationId: row.id,
          number: 1,
          step: "verify-click",
          result: "retryable",
          error: "HTTP 503",
          startedAt: new Date("2026-11-20T10:06:00Z"),
        },
        {
          verificationId: row.id,
          number: 2,
          step: "verify-click",
          result: "ok",
          startedAt: new Date("2026-11-20T10:07:00Z"),
        },
      ],
    });
    for (const id of [row.id, row.orderId]) {
      const response = await load(SHOP, id);
      expect(response.status).toBe(200);
      const { order } = await response.json();
      expect(order.arrived).toMatchObject({
        captureSource: "cart_attributes",
        clickId: "click-1",
        arrivedTag: "coupon-x",
      });
      expect(order.arrived.tagHistory).toEqual([
        { tag: "creator-a", at: "2026-11-20T10:00:00Z" },
        { tag: "coupon-x", at: "2026-11-20T10:05:00Z" },
      ]);
      expect(order.attempts.map((a: { result: string; error: string | null }) => [a.result, a.error])).toEqual([
        ["retryable", "HTTP 503"],
        ["ok", null],
      ]);
      expect(order.verdict).toEqual({
        expectedTag: "creator-a",
        creatorId: "cr_42",
        verdict: "hijacked",
        recorded: true,
        reportConfirmed: null,
        source: null,
      });
      // Beside the verdict: the codes the order carried, and what each took off.
      expect(order.discountCodes).toEqual([{ code: "LEAKED10", amount: "€3.00", type: "fixed_amount" }]);
      expect(order.tagging).toMatchObject({ taggedAt: "2026-11-20T10:10:00.000Z", hijackTag: "hijack-caught" });
      expect(order.commission).toMatchObject({ amount: "12.50", currency: "EUR", redirected: true });
      expect(order.adminOrderUrl).toBe(`shopify://admin/orders/${row.orderId}`);
      expect(order.canRetry).toBe(false);
    }
  });

  it("answers 404 for another shop's order and for unknown ids", async () => {
    const theirs = await seedVerification({ shop: OTHER, outcome: "matched" });
    expect((await load(SHOP, theirs.id)).status).toBe(404);
    expect((await load(SHOP, theirs.orderId)).status).toBe(404);
    expect((await load(SHOP, "nope")).status).toBe(404);
    expect((await retry(SHOP, theirs.id)).status).toBe(404);
  });
});

describe("retry now", () => {
  it("requeues a failed order whose click is alive and wakes the worker", async () => {
    const row = await seedVerification({ shop: SHOP, outcome: "failed", deadlineAt: alive() });
    expect((await (await load(SHOP, row.id)).json()).order.canRetry).toBe(true);
    let stop = () => {};
    // The signal crosses threads (a channel), so it arrives after the answer, not within it.
    const woken = new Promise<void>((resolve) => (stop = onWake(resolve)));
    const response = await retry(SHOP, row.id);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true });
    await woken;
    stop();
    const after = await prisma.verification.findUniqueOrThrow({ where: { id: row.id } });
    expect(after.outcome).toBeNull();
    const job = await prisma.job.findUniqueOrThrow({
      where: { kind_subject: { kind: "verify-order", subject: row.id } },
    });
    expect(job).toMatchObject({ state: "queued", attempts: 0 });
    expect(job.runAt.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it("requeues a rejected (parked) order by its Shopify order id", async () => {
    const row = await seedVerification({ shop: SHOP, outcome: "rejected", deadlineAt: alive() });
    const response = await retry(SHOP, row.orderId);
    expect(response.status).toBe(200);
    expect(
      (await prisma.job.findUniqueOrThrow({ where: { kind_subject: { kind: "verify-order", subject: row.id } } }))
        .state,
    ).toBe("queued");
  });

  it("refuses once the click has expired, for other outcomes, and twice in a row", async () => {
    const expired = await seedVerification({ shop: SHOP, outcome: "failed", deadlineAt: new Date(Date.now() - 1000) });
    const response = await retry(SHOP, expired.id);
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({ ok: false, reason: "click-expired" });
    expect((await (await load(SHOP, expired.id)).json()).order.canRetry).toBe(false);

    // The verdict is stored (a later step failed): the rest does not need the click.
    const verdictKnown = await seedVerification({
      shop: SHOP,
      outcome: "failed",
      hijacked: true,
      deadlineAt: new Date(Date.now() - 1000),
    });
    expect((await (await load(SHOP, verdictKnown.id)).json()).order.canRetry).toBe(true);
    expect((await retry(SHOP, verdictKnown.id)).status).toBe(200);

    const matched = await seedVerification({ shop: SHOP, outcome: "matched", deadlineAt: alive() });
    expect(await (await retry(SHOP, matched.id)).json()).toEqual({ ok: false, reason: "not-retryable" });

    const failed = await seedVerification({ shop: SHOP, outcome: "failed", deadlineAt: alive() });
    expect((await retry(SHOP, failed.id)).status).toBe(200);
    expect(await (await retry(SHOP, failed.id)).json()).toEqual({ ok: false, reason: "not-retryable" });
  });
});
