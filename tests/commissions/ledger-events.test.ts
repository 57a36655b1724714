import { beforeAll, describe, expect, it } from "vitest";
import { approveDueCommissions, startApprovalSweep } from "../../app/commissions/approval.server";
import { payableBalances } from "../../app/commissions/payable-balances.server";
import { recordPayout } from "../../app/commissions/payouts.server";
import { databaseClient, dialect } from "../../app/database/db.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import {
  alwaysThrowing,
  cancelOrder,
  placeOrder,
  refundOrder,
  runOrderToEnd,
  useHarness,
  verificationOf,
  type Harness,
} from "../support/pipeline-harness";
import { asShown, eventsOf, ledgerOf } from "../support/ledger";

const prisma = databaseClient();

// The ledger follows each order from its credit through refunds, cancellation, approval and
// payout: real webhooks over HTTP through the app's routes (HMAC, dedupe, group commit), the
// real worker and its queue, the sandbox click service and the Shopify stand-in, on a real
// database (SQLite here; PostgreSQL in the "postgresql" project).

const suite = useHarness("ledger");
const { newShop, startWorker } = suite;
let h: Harness;
beforeAll(() => {
  h = suite.h;
});
const DAY = 24 * 60 * 60 * 1000;

/** A statement of this database waits for a row lock (the payout, behind the holder's). */
async function payoutIsWaiting(): Promise<boolean> {
  const [row] = await prisma.$queryRaw<{ waiting: bigint }[]>`
    SELECT COUNT(*) AS waiting FROM pg_stat_activity
    WHERE "datname" = current_database() AND "wait_event_type" = 'Lock'`;
  return Number(row?.waiting ?? 0) > 0;
}

describe("refunds and cancellations", () => {
  it("applies a refund that arrives before the verification has finished, once the commission exists", async () => {
    const shop = await newShop();
    const w = startWorker();
    await w.stop(); // nothing runs until the refund is in
    const { payload } = await placeOrder(h, { shop, subtotal: "120.00" });
    const { statuses } = await refundOrder(h, shop, payload, { subtotal: "30.00" });
    expect(statuses).toEqual([200]);
    expect(await eventsOf(shop, payload.id)).toMatchObject([{ kind: "refund", appliedAt: null }]);

    await startWorker().runOnce();
    const { record, entries } = await ledgerOf(shop, payload.id);
    // 12.00 credited, then 30.00 of the 120.00 basis refunded: a quarter of it back.
    expect(entries).toEqual([
      ["credit", "12.00"],
      ["refund", "-3.00"],
    ]);
    expect(record).toMatchObject({ amount: "9.00", amountMinor: 900n, status: "pending", refunded: "30" });
    expect((await eventsOf(shop, payload.id))[0]).toMatchObject({ result: "refund -3.00 USD" });
  });

  it("waits with a refund for an order it has not seen, and applies it when the order arrives", async () => {
    const shop = await newShop();
    const w = startWorker();
    await w.stop();
    const { buildOrderCreatePayload } = await import("../../sandbox/shopify");
    const early = buildOrderCreatePayload({ id: 6_300_000_000_001, currency: "USD" });
    await refundOrder(h, shop, early, { subtotal: "10.00" });
    expect(await prisma.verification.count({ where: { shop } })).toBe(0);
    // The order itself comes later (the refund's order id names it).
    const { payload } = await placeOrder(h, { shop, subtotal: "40.00" });
    await refundOrder(h, shop, payload, { subtotal: "10.00" });
    await startWorker().runOnce();
    expect((await ledgerOf(shop, payload.id)).entries).toEqual([
      ["credit", "4.00"],
      ["refund", "-1.00"],
    ]);
    // The refund of the order never seen still waits for its orders/create.
    expect(await eventsOf(shop, early.id)).toMatchObject([{ appliedAt: null }]);
  });

  it("applies a refund delivered three times (and re-sent under a new event id) exactly once", async () => {
    const shop = await newShop();
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop, subtotal: "80.00" });
    await w.runOnce();
    const { refund, statuses } = await refundOrder(h, shop, payload, { subtotal: "20.00", deliveries: 3 });
    expect(statuses).toEqual([200, 200, 200]);
    const { deliver } = await import("../support/deliver");
    const again = await deliver(h.app.url, "/webhooks/refunds/create", {
      topic: "refunds/create",
      shop,
      body: refund,
      eventId: "a-new-event-id-for-the-same-refund",
    });
    expect(again.status).toBe(200);
    await w.runOnce();
    const { entries, record } = await ledgerOf(shop, payload.id);
    expect(entries).toEqual([
      ["credit", "8.00"],
      ["refund", "-2.00"],
    ]);
    expect(record?.amount).toBe("6.00");
    expect(await eventsOf(shop, payload.id)).toHaveLength(1);
    const deliveries = await prisma.webhookDelivery.findMany({ where: { shop, topic: "refunds/create" } });
    expect(deliveries.map((d) => d.status).sort()).toEqual(["duplicate-event", "recorded"]);
  });

  it("pro-rates a partial refund half-up, then the rest takes back exactly the whole commission", async () => {
    const shop = await newShop();
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop, subtotal: "100.00" });
    await w.runOnce();
    await refundOrder(h, shop, payload, { subtotal: "33.35" });
    await w.runOnce();
    // 10.00 x 66.65 / 100 = 6.665, half-up 6.67: 3.33 back.
    let ledger = await ledgerOf(shop, payload.id);
    expect(ledger.entries).toEqual([
      ["credit", "10.00"],
      ["refund", "-3.33"],
    ]);
    expect(ledger.record).toMatchObject({ amount: "6.67", status: "pending" });
    await refundOrder(h, shop, payload, { subtotal: "66.65", shipping: "5.00" });
    await w.runOnce();
    ledger = await ledgerOf(shop, payload.id);
    expect(ledger.entries).toEqual([
      ["credit", "10.00"],
      ["refund", "-3.33"],
      ["refund", "-6.67"],
    ]);
    expect(ledger.record).toMatchObject({ amount: "0.00", amountMinor: 0n, status: "reversed" });
    expect(ledger.record?.reversedAt).toBeInstanceOf(Date);
  });

  it("refuses a negative refund with a recorded outcome, and the next genuine refund is applied in full", async () => {
    const shop = await newShop();
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop, subtotal: "150.00" });
    await w.runOnce();
    await refundOrder(h, shop, payload, { subtotal: "50.00" });
    await w.runOnce();
    // Signed as Shopify signs, but a refund that gives back less than nothing is not a refund.
    const { refund: negative, statuses } = await refundOrder(h, shop, payload, { subtotal: "-50.00" });
    expect(statuses).toEqual([200]);
    await w.runOnce();
    await refundOrder(h, shop, payload, { subtotal: "50.00" });
    await w.runOnce();
    const { record, entries } = await ledgerOf(shop, payload.id);
    // 15.00 credited on 150.00; 50.00 and then 50.00 more refunded: a third back each time.
    expect(entries).toEqual([
      ["credit", "15.00"],
      ["refund", "-5.00"],
      ["refund", "-5.00"],
    ]);
    expect(record).toMatchObject({ amount: "5.00", amountMinor: 500n, refunded: "100", status: "pending" });
    const refused = await prisma.webhookDelivery.findFirstOrThrow({
      where: { shop, topic: "refunds/create", eventId: `evt-refund-${String(negative.id)}` },
    });
    expect(refused).toMatchObject({ status: "invalid", reason: expect.stringMatching(/at least 0/) });
    expect(await prisma.orderEvent.count({ where: { shop, sourceId: String(negative.id) } })).toBe(0);
  });

  it("never applies a refund stored with a negative or absurd amount (before amounts were bounded)", async () => {
    const shop = await newShop();
    const w = startWorker();
    await w.stop();
    const { payload } = await placeOrder(h, { shop, subtotal: "150.00" });
    const stored = (sourceId: string, amount: string) => ({
      id: `stored-${sourceId}`,
      shop,
      orderId: String(payload.id),
      kind: "refund",
      sourceId,
      receivedAt: new Date(),
      facts: JSON.stringify({
        kind: "refund",
        orderId: String(payload.id),
        refundId: sourceId,
        currency: "USD",
        refunded: { subtotal_after_discounts: amount, subtotal_before_discounts: amount, total_price: amount },
      }),
    });
    await prisma.orderEvent.createMany({ data: [stored("1", "-50"), stored("2", "1e20"), stored("3", "NaN")] });
    await startWorker().runOnce();
    const { record, entries } = await ledgerOf(shop, payload.id);
    expect(entries).toEqual([["credit", "15.00"]]);
    expect(record).toMatchObject({ amount: "15.00", refunded: "0" });
    expect((await eventsOf(shop, payload.id)).map((e) => e.result)).toEqual([
      "not applied: its stored facts cannot be read",
      "not applied: its stored facts cannot be read",
      "not applied: its stored facts cannot be read",
    ]);
  });

  it("does not move a subtotal basis for refunded shipping", async () => {
    const shop = await newShop();
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop, subtotal: "50.00" });
    await w.runOnce();
    await refundOrder(h, shop, payload, { subtotal: "0", shipping: "7.50" });
    await w.runOnce();
    const ledger = await ledgerOf(shop, payload.id);
    expect(ledger.entries).toEqual([["credit", "5.00"]]);
    expect((await eventsOf(shop, payload.id))[0]?.result).toBe("nothing to adjust");
  });

  for (const order of ["cancellation first", "refund first"] as const) {
    it(`reverses once for a cancellation together with its refund (${order})`, async () => {
      const shop = await newShop();
      const w = startWorker();
      const { payload } = await placeOrder(h, { shop, subtotal: "64.00" });
      await w.runOnce();
      if (order === "cancellation first") {
        await cancelOrder(h, shop, payload, 2);
        await refundOrder(h, shop, payload, { subtotal: "64.00", deliveries: 2 });
      } else {
        await Promise.all([
          refundOrder(h, shop, payload, { subtotal: "64.00", deliveries: 2 }),
          cancelOrder(h, shop, payload, 2),
        ]);
      }
      await w.runOnce();
      const ledger = await ledgerOf(shop, payload.id);
      expect(ledger.record).toMatchObject({ amount: "0.00", amountMinor: 0n, status: "reversed" });
      expect(ledger.rows.reduce((sum, e) => sum + e.amountMinor, 0n)).toBe(0n);
      expect(ledger.rows.filter((e) => e.kind !== "credit")).toHaveLength(1);
      const events = await eventsOf(shop, payload.id);
      expect(events).toHaveLength(2);
      expect(events.every((e) => e.appliedAt !== null)).toBe(true);
      expect(events.map((e) => e.result)).toContain("nothing to adjust: the commission is already reversed");
    });
  }

  it("reverses a record that owed nothing when its order is cancelled, with no entry of zero", async () => {
    const shop = await newShop({ commissionRate: "0" });
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop, subtotal: "64.00" });
    await w.runOnce();
    expect((await ledgerOf(shop, payload.id)).record).toMatchObject({ amountMinor: 0n, status: "pending" });
    await cancelOrder(h, shop, payload, 1);
    await w.runOnce();
    const ledger = await ledgerOf(shop, payload.id);
    expect(ledger.record).toMatchObject({ amountMinor: 0n, status: "reversed", reversedAt: expect.any(Date) });
    expect(ledger.entries).toEqual([["credit", "0.00"]]);
    expect((await eventsOf(shop, payload.id))[0]?.result).toBe("reversed: nothing was owed");
  });

  it("marks the events of an order without a commission as applied, saying why", async () => {
    const shop = await newShop();
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop, capture: "none" });
    await refundOrder(h, shop, payload, { subtotal: "5.00" });
    await w.runOnce();
    expect((await verificationOf(shop, payload.id)).outcome).toBe("unattributed");
    expect(await eventsOf(shop, payload.id)).toMatchObject([
      { appliedAt: expect.any(Date), result: "not applied: the order has no commission (unattributed)" },
    ]);
    expect((await verificationOf(shop, payload.id)).job.state).toBe("done");
  });

  it("keeps a refund that arrived while the order had failed, and applies it when a retry credits the order", async () => {
    const shop = await newShop();
    // Shopify unreachable for the tag write: the verdict is in, the order fails before its credit.
    const broken = startWorker({
      deps: {
        shopifyAdmin: alwaysThrowing("simulated fault while reaching Shopify"),
      },
    });
    const { payload } = await placeOrder(h, { shop, arrivedTag: "honey-77", subtotal: "80.00" });
    const failed = await runOrderToEnd(h, broken, shop, payload.id);
    expect(failed).toMatchObject({ outcome: "failed", hijacked: true, commission: null });
    await broken.stop();
    h.clock.now = null;

    await refundOrder(h, shop, payload, { subtotal: "20.00" });
    const w = startWorker();
    await w.runOnce();
    // Nothing to apply it to while the order has failed.
    expect(await eventsOf(shop, payload.id)).toMatchObject([
      { kind: "refund", result: "not applied: the order has no commission (failed)" },
    ]);
    expect((await verificationOf(shop, payload.id)).outcome).toBe("failed");

    const { retryVerificationNow } = await import("../../app/verification/manual-retry.server");
    expect(await retryVerificationNow(shop, String(payload.id))).toMatchObject({ ok: true });
    await w.runOnce();
    const { v, record, entries } = await ledgerOf(shop, payload.id);
    expect(v.outcome).toBe("hijacked");
    // 8.00 credited on 80.00, then 20.00 of it refunded: a quarter back.
    expect(entries).toEqual([
      ["credit", "8.00"],
      ["refund", "-2.00"],
    ]);
    expect(record).toMatchObject({ amount: "6.00", refunded: "20" });
    expect((await eventsOf(shop, payload.id))[0]).toMatchObject({ result: "refund -2.00 USD" });
  });
  it("pro-rates refunds on the basis the order's value was read on, though the setting changed before its credit", async () => {
    const shop = await newShop({ orderValueBasis: "total_price" });
    const broken = startWorker({
      deps: {
        shopifyAdmin: alwaysThrowing("simulated fault while reaching Shopify"),
      },
    });
    // 100.00 of goods and 8.00 shipping: 108.00 on the shop's basis.
    const { payload } = await placeOrder(h, {
      shop,
      arrivedTag: "honey-77",
      subtotal: "100.00",
      amounts: { shipping: "8.00" },
    });
    const failed = await runOrderToEnd(h, broken, shop, payload.id);
    expect(failed).toMatchObject({ outcome: "failed", orderValue: "108.00", orderValueBasis: "total_price" });
    await broken.stop();
    h.clock.now = null;

    // The merchant goes back to the subtotal, then retries the order.
    await saveSettings(shop, {
      clickServiceUrl: h.clicks.url,
      apiKey: h.apiKey,
      orderValueBasis: "subtotal_after_discounts",
    });
    const { retryVerificationNow } = await import("../../app/verification/manual-retry.server");
    expect(await retryVerificationNow(shop, String(payload.id))).toMatchObject({ ok: true });
    const w = startWorker();
    await w.runOnce();
    expect((await ledgerOf(shop, payload.id)).record).toMatchObject({
      orderValue: "108.00",
      basis: "total_price",
      amount: "10.80",
    });

    // Everything refunded, shipping too: the whole commission comes back (on the subtotal it
    // would read 100.00 of 108.00, and 0.80 would stay owed on a refunded order).
    await refundOrder(h, shop, payload, { subtotal: "100.00", shipping: "8.00" });
    await w.runOnce();
    const { record, entries } = await ledgerOf(shop, payload.id);
    expect(entries).toEqual([
      ["credit", "10.80"],
      ["refund", "-10.80"],
    ]);
    expect(record).toMatchObject({ amount: "0.00", status: "reversed" });
  });
});

describe("hold, approval and payouts", () => {
  it("approves a record once its hold has ended, and never a reversed one", async () => {
    const shop = await newShop({ holdDays: 30 });
    const w = startWorker();
    const kept = await placeOrder(h, { shop, subtotal: "10.00" });
    const cancelled = await placeOrder(h, { shop, subtotal: "10.00" });
    await w.runOnce();
    await cancelOrder(h, shop, cancelled.payload);
    await w.runOnce();
    const orderTime = (await verificationOf(shop, kept.payload.id)).orderCreatedAt.getTime();
    expect((await ledgerOf(shop, kept.payload.id)).record?.holdUntil?.getTime()).toBe(orderTime + 30 * DAY);

    await approveDueCommissions(new Date(orderTime + 30 * DAY - 1));
    expect((await ledgerOf(shop, kept.payload.id)).record?.status).toBe("pending");
    // The worker process's sweep, on the harness clock.
    const at = new Date(orderTime + 30 * DAY);
    h.clock.now = at;
    const sweep = startApprovalSweep(3_600_000, h.clock.date);
    await sweep.runOnce();
    sweep.stop();
    expect((await ledgerOf(shop, kept.payload.id)).record).toMatchObject({ status: "approved", approvedAt: at });
    expect((await ledgerOf(shop, cancelled.payload.id)).record?.status).toBe("reversed");
    // A second sweep (another instance) changes nothing.
    expect(await approveDueCommissions(at)).toBe(0);
  });

  it("claws back a refund after payout and nets it in the next payout", async () => {
    const shop = await newShop({ holdDays: 0 });
    const w = startWorker();
    const first = await placeOrder(h, { shop, creatorId: "cr_net", expectedTag: "net-1", subtotal: "200.00" });
    await w.runOnce();
    expect((await ledgerOf(shop, first.payload.id)).record?.status).toBe("approved");
    const paid = await recordPayout(shop, {
      idempotencyKey: "payout-key-0001",
      reference: "transfer 1",
      paidOn: "2026-11-20",
      balances: await asShown(shop, ["USD:cr_net"]),
    });
    expect(paid).toMatchObject({ ok: true, duplicate: false, lines: 1 });
    expect((await ledgerOf(shop, first.payload.id)).record?.status).toBe("paid");

    await refundOrder(h, shop, first.payload, { subtotal: "50.00" });
    await w.runOnce();
    let ledger = await ledgerOf(shop, first.payload.id);
    expect(ledger.entries).toEqual([
      ["credit", "20.00"],
      ["clawback", "-5.00"],
    ]);
    expect(ledger.record).toMatchObject({ status: "paid", amount: "15.00" });
    expect(await payableBalances(shop)).toMatchObject([
      { creatorId: "cr_net", currency: "USD", owed: "USD -5.00", balance: "USD -5.00", payable: false },
    ]);

    const second = await placeOrder(h, { shop, creatorId: "cr_net", expectedTag: "net-1", subtotal: "80.00" });
    await w.runOnce();
    expect(await payableBalances(shop)).toMatchObject([
      { approved: "USD 8.00", owed: "USD -5.00", balance: "USD 3.00", records: 1, payable: true },
    ]);
    const next = await recordPayout(shop, {
      idempotencyKey: "payout-key-0002",
      reference: "transfer 2",
      paidOn: "2026-11-21",
      balances: await asShown(shop, ["USD:cr_net"]),
    });
    expect(next.ok).toBe(true);
    const line = await prisma.payoutLine.findFirstOrThrow({ where: { payoutId: next.ok ? next.payoutId : "" } });
    expect(line).toMatchObject({ creatorId: "cr_net", currency: "USD", amount: "3.00", amountMinor: 300n, records: 1 });
    ledger = await ledgerOf(shop, first.payload.id);
    expect(ledger.rows.find((e) => e.kind === "clawback")?.payoutId).toBe(next.ok ? next.payoutId : null);
    expect((await ledgerOf(shop, second.payload.id)).record?.status).toBe("paid");
    expect(await payableBalances(shop)).toEqual([]);
  });

  it("pays once when the same payout form is submitted twice, even at once", async () => {
    const shop = await newShop({ holdDays: 0 });
    const w = startWorker();
    await placeOrder(h, { shop, creatorId: "cr_twice", expectedTag: "tw-1", subtotal: "30.00" });
    await placeOrder(h, { shop, creatorId: "cr_twice", expectedTag: "tw-1", subtotal: "20.00" });
    await w.runOnce();
    const form = {
      idempotencyKey: "same-form-token",
      reference: "batch 7",
      paidOn: "2026-11-22",
      balances: await asShown(shop, ["USD:cr_twice"]),
    };
    const [a, b] = await Promise.all([recordPayout(shop, form), recordPayout(shop, form)]);
    const c = await recordPayout(shop, form);
    expect([a, b, c].every((r) => r.ok)).toBe(true);
    const ids = new Set([a, b, c].map((r) => (r.ok ? r.payoutId : "")));
    expect(ids.size).toBe(1);
    expect([a, b, c].filter((r) => r.ok && !r.duplicate)).toHaveLength(1);
    expect(await prisma.payout.count({ where: { shop } })).toBe(1);
    expect(await prisma.payoutLine.findMany({ where: { payout: { shop } } })).toMatchObject([
      { amount: "5.00", records: 2 },
    ]);
    // A new form for the same balances finds nothing left to pay.
    expect(await recordPayout(shop, { ...form, idempotencyKey: "another-form-token" })).toEqual({
      ok: false,
      errors: { balances: "nothing is left to pay in the chosen balances; reload the page" },
    });
  });

  it("refuses a payout whose balance changed since the page showed it, recording nothing", async () => {
    const shop = await newShop({ holdDays: 0 });
    const w = startWorker();
    const first = await placeOrder(h, { shop, creatorId: "cr_seen", expectedTag: "seen-1", subtotal: "100.00" });
    await w.runOnce();
    const shown = await asShown(shop, ["USD:cr_seen"]);
    expect(shown).toEqual([{ key: "USD:cr_seen", shownMinor: "1000" }]);
    const form = { idempotencyKey: "seen-form-1", reference: "wire 9", paidOn: "2026-11-23", balances: shown };

    // Approved after the page loaded: the merchant paid 10.00, not 15.00.
    await placeOrder(h, { shop, creatorId: "cr_seen", expectedTag: "seen-1", subtotal: "50.00" });
    await w.runOnce();
    const refused = await recordPayout(shop, form);
    expect(refused).toEqual({
      ok: false,
      errors: {
        balances:
          "The balances changed since the page loaded: cr_seen was USD 10.00 when the page loaded and is USD 15.00 now. " +
          "Check what you paid against the balances as they are now, and choose again.",
      },
    });
    expect(await prisma.payout.count({ where: { shop } })).toBe(0);
    expect(await prisma.commission.count({ where: { shop, status: "approved" } })).toBe(2);

    // A refund took some back since: lower is refused as well.
    await refundOrder(h, shop, first.payload, { subtotal: "100.00" });
    await w.runOnce();
    const lower = await recordPayout(shop, { ...form, balances: [{ key: "USD:cr_seen", shownMinor: "1500" }] });
    expect(lower.ok ? "" : lower.errors.balances).toContain(
      "cr_seen was USD 15.00 when the page loaded and is USD 5.00 now",
    );
    expect(await prisma.payout.count({ where: { shop } })).toBe(0);

    // As the page shows it now, it is paid, once however often the form names it; the form's
    // token was not used up by the refusals.
    const paid = await recordPayout(shop, { ...form, balances: await asShown(shop, ["USD:cr_seen", "USD:cr_seen"]) });
    expect(paid).toMatchObject({ ok: true, duplicate: false, lines: 1 });
    expect(await prisma.payoutLine.findFirstOrThrow({ where: { payout: { shop } } })).toMatchObject({
      amount: "5.00",
      records: 1,
    });
  });

  it("refuses a hand-sent form that names a balance with nothing due beside one that is, recording nothing", async () => {
    const shop = await newShop({ holdDays: 0 });
    const w = startWorker();
    await placeOrder(h, { shop, creatorId: "cr_due", expectedTag: "due-1", subtotal: "40.00" });
    await w.runOnce();
    const balances = [...(await asShown(shop, ["USD:cr_due"])), { key: "USD:cr_nobody", shownMinor: "0" }];
    const refused = await recordPayout(shop, {
      idempotencyKey: "hand-sent-1",
      reference: "r",
      paidOn: "2026-11-23",
      balances,
    });
    expect(refused.ok ? "" : refused.errors.balances).toContain(
      "cr_nobody was USD 0.00 when the page loaded and has nothing due now",
    );
    expect(await prisma.payout.count({ where: { shop } })).toBe(0);
  });

  // PostgreSQL only: SQLite's single writer runs the payout and the credit one after the other.
  it.runIf(dialect === "postgresql")(
    "pays only the records it summed, not one credited approved while it waited on another balance",
    async () => {
      const shop = await newShop({ holdDays: 0 });
      const w = startWorker();
      await placeOrder(h, { shop, creatorId: "cr_first", expectedTag: "first-1", subtotal: "100.00" });
      const second = await placeOrder(h, { shop, creatorId: "cr_second", expectedTag: "second-1", subtotal: "50.00" });
      await w.runOnce();
      const form = {
        idempotencyKey: "in-flight-form",
        reference: "wire 12",
        paidOn: "2026-11-24",
        balances: await asShown(shop, ["USD:cr_first", "USD:cr_second"]),
      };

      // Another transaction (a refund's, say) holds cr_second's record, so the payout sums
      // cr_first and then waits for it.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let holding!: () => void;
      const isHolding = new Promise<void>((resolve) => (holding = resolve));
      const holder = prisma.$transaction(
        async (tx) => {
          await tx.$queryRaw`SELECT "id" FROM "Commission" WHERE "shop" = ${shop} AND "orderId" = ${String(second.payload.id)} FOR UPDATE`;
          holding();
          await held;
        },
        { timeout: 30_000 },
      );
      await isHolding;
      const payout = recordPayout(shop, form);
      while (!(await payoutIsWaiting())) await new Promise((resolve) => setTimeout(resolve, 20));

      // Meanwhile cr_first's next order is credited, approved at once.
      const late = await placeOrder(h, { shop, creatorId: "cr_first", expectedTag: "first-1", subtotal: "70.00" });
      await w.runOnce();
      expect((await ledgerOf(shop, late.payload.id)).record?.status).toBe("approved");
      release();
      await holder;

      expect(await payout).toMatchObject({ ok: true, lines: 2 });
      expect(
        await prisma.payoutLine.findMany({ where: { payout: { shop } }, orderBy: { creatorId: "asc" } }),
      ).toMatchObject([
        { creatorId: "cr_first", amount: "10.00", records: 1 },
        { creatorId: "cr_second", amount: "5.00", records: 1 },
      ]);
      // Not paid, so still due.
      expect((await ledgerOf(shop, late.payload.id)).record).toMatchObject({ status: "approved", payoutId: null });
      expect(await payableBalances(shop)).toMatchObject([{ creatorId: "cr_first", balance: "USD 7.00", records: 1 }]);
    },
  );

  it("credits at a creator's own rate when one is set, at the shop's otherwise", async () => {
    const shop = await newShop({ commissionRate: "10", creatorRates: { cr_bob: "20", cr_eve: "0" } });
    const w = startWorker();
    const bob = await placeOrder(h, { shop, creatorId: "cr_bob", expectedTag: "bob-1", subtotal: "50.00" });
    const alice = await placeOrder(h, { shop, creatorId: "cr_alice", expectedTag: "alice-1", subtotal: "50.00" });
    const eve = await placeOrder(h, { shop, creatorId: "cr_eve", expectedTag: "eve-1", subtotal: "50.00" });
    await w.runOnce();
    expect((await ledgerOf(shop, bob.payload.id)).record).toMatchObject({ rate: "20", amount: "10.00" });
    expect((await ledgerOf(shop, alice.payload.id)).record).toMatchObject({ rate: "10", amount: "5.00" });
    expect((await ledgerOf(shop, eve.payload.id)).record).toMatchObject({ rate: "0", amount: "0.00" });
  });
});
