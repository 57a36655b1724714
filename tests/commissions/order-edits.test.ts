import { beforeAll, describe, expect, it } from "vitest";
import { ledgerCsvStream } from "../../app/commissions/csv";
import { creatorTotals } from "../../app/commissions/creators.server";
import { ledgerRecords, parseLedgerFilter } from "../../app/commissions/ledger.server";
import { payableBalances } from "../../app/commissions/payable-balances.server";
import { applyOrderEvents, pendingOrderEvents } from "../../app/commissions/order-events.server";
import { getOrderDetail } from "../../app/dashboard/order-detail.server";
import { sql } from "../../app/database/sql.server";
import { recordPayout, voidPayout } from "../../app/commissions/payouts.server";
import { payoutsPage } from "../../app/commissions/payouts-page.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { formatShopTime } from "../../app/units/shop-format";
import { databaseClient } from "../../app/database/db.server";
import {
  cancelOrder,
  editOrder,
  placeOrder,
  refundOrder,
  useHarness,
  verificationOf,
  type Harness,
} from "../support/pipeline-harness";
import { asShown, eventsOf, ledgerOf } from "../support/ledger";

const prisma = databaseClient();

// Order edits move the commission (decision 045): orders/edited over HTTP through the app's
// routes, the order's amounts read from the Shopify stand-in by the real worker, the ledger on a
// real database (SQLite here; PostgreSQL in the "postgresql" project).

const suite = useHarness("edits");
const { newShop, startWorker } = suite;
let h: Harness;
beforeAll(() => {
  h = suite.h;
});
const DAY = 24 * 60 * 60 * 1000;

/** The worker run until nothing is due (an edit that arrives with its order takes a second run). */
async function settle(w: { runOnce(): Promise<unknown> }) {
  for (let round = 0; round < 4; round += 1) await w.runOnce();
}

describe("an order edited", () => {
  it("moves the commission down and up with an edit entry of the difference, reading the order's amounts", async () => {
    const shop = await newShop();
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop, subtotal: "100.00" });
    await settle(w);
    expect((await editOrder(h, shop, payload, { subtotal: "80.00" })).statuses).toEqual([200]);
    await settle(w);
    let ledger = await ledgerOf(shop, payload.id);
    expect(ledger.entries).toEqual([
      ["credit", "10.00"],
      ["edit", "-2.00"],
    ]);
    expect(ledger.record).toMatchObject({ amount: "8.00", amountMinor: 800n, orderValue: "80.00", status: "pending" });
    expect((await eventsOf(shop, payload.id))[0]).toMatchObject({
      kind: "edit",
      result: "edit -2.00 USD (order value 100.00 -> 80.00, commission 10.00 -> 8.00)",
    });
    const reads = h.shopify.requests().filter((r) => r.operationName === "TagGuardOrderAmounts");
    expect(reads).toHaveLength(1);

    await editOrder(h, shop, payload, { subtotal: "150.05" });
    await settle(w);
    ledger = await ledgerOf(shop, payload.id);
    // 10 % of 150.05 = 15.005, half-up 15.01.
    expect(ledger.entries.at(-1)).toEqual(["edit", "7.01"]);
    expect(ledger.record).toMatchObject({ amount: "15.01", orderValue: "150.05" });

    // The order page: each edit's entry with the value and commission before and after it, and
    // the edits among the order's events; the ledger's CSV with each record's entries.
    const detail = await getOrderDetail(shop, String(payload.id));
    const moved = (valueBefore: string, valueAfter: string, commissionBefore: string, commissionAfter: string) => ({
      valueBefore,
      valueAfter,
      commissionBefore,
      commissionAfter,
    });
    expect(detail?.commission?.entries.map((e) => [e.kind, e.amount, e.edit])).toEqual([
      ["credit", "10.00", null],
      ["edit", "-2.00", moved("$100.00", "$80.00", "$10.00", "$8.00")],
      ["edit", "7.01", moved("$80.00", "$150.05", "$8.00", "$15.01")],
    ]);
    expect(detail?.events.map((e) => e.kind)).toEqual(["edit", "edit"]);
    const rows = [];
    for await (const row of ledgerRecords(shop, parseLedgerFilter(new URLSearchParams()))) rows.push(row);
    expect(rows.map((row) => row.entries)).toEqual(["credit 10.00; edit -2.00; edit 7.01"]);
    let csv = "";
    for await (const chunk of ledgerCsvStream(rows)) csv += String(chunk);
    expect(csv.split("\r\n")[0]).toContain("Entries (kind amount)");
    expect(csv).toContain("credit 10.00; edit -2.00; edit 7.01");
  });

  it("on the subtotal before discounts, moves the commission by the line discounts the edit added too", async () => {
    const shop = await newShop({ orderValueBasis: "subtotal_before_discounts" });
    const w = startWorker();
    // Placed: a 100.00 item with 10.00 off, 90.00 after discounts.
    const { payload } = await placeOrder(h, {
      shop,
      amounts: { lineItems: [{ title: "Widget", price: "100.00" }], discount: "10.00" },
    });
    await settle(w);
    expect((await ledgerOf(shop, payload.id)).record).toMatchObject({ orderValue: "100.00", amount: "10.00" });
    // The edit adds a 30.00 item with 10.00 off it: 110.00 after discounts, 130.00 before.
    await editOrder(h, shop, payload, { subtotal: "110.00", discount: "10.00" });
    await settle(w);
    const ledger = await ledgerOf(shop, payload.id);
    expect(ledger.entries).toEqual([
      ["credit", "10.00"],
      ["edit", "3.00"],
    ]);
    expect(ledger.record).toMatchObject({ orderValue: "130.00", amount: "13.00" });
  });

  it("applies an edit delivered three times, and again under a new event id, once", async () => {
    const shop = await newShop();
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop, subtotal: "100.00" });
    await settle(w);
    const { edit } = await editOrder(h, shop, payload, { subtotal: "60.00", deliveries: 3 });
    const { deliver } = await import("../support/deliver");
    const again = await deliver(h.app.url, "/webhooks/orders/edited", {
      topic: "orders/edited",
      shop,
      body: edit,
      eventId: "another-event-id-for-the-same-edit",
    });
    expect(again.status).toBe(200);
    await settle(w);
    const ledger = await ledgerOf(shop, payload.id);
    expect(ledger.entries).toEqual([
      ["credit", "10.00"],
      ["edit", "-4.00"],
    ]);
    expect(await eventsOf(shop, payload.id)).toHaveLength(1);
    const deliveries = await prisma.webhookDelivery.findMany({ where: { shop, topic: "orders/edited" } });
    expect(deliveries.map((d) => d.status).sort()).toEqual(["duplicate-event", "recorded"]);
  });

  it("applies an edit that arrives with its order, before the verification has finished", async () => {
    const shop = await newShop();
    const w = startWorker();
    await w.stop();
    const { payload } = await placeOrder(h, { shop, subtotal: "100.00" });
    await editOrder(h, shop, payload, { subtotal: "120.00" });
    await settle(startWorker());
    const ledger = await ledgerOf(shop, payload.id);
    expect(ledger.entries).toEqual([
      ["credit", "10.00"],
      ["edit", "2.00"],
    ]);
  });

  it("never applies amounts read before an edit was recorded to that edit: it waits for the next read", async () => {
    const shop = await newShop();
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop, subtotal: "100.00" });
    await settle(w);
    await w.stop();
    await editOrder(h, shop, payload, { subtotal: "70.00" });
    const v = await verificationOf(shop, payload.id);
    // A run that read the order's amounts (still 100.00) just before this edit was recorded.
    const stale = { ok: true as const, currency: "USD", values: { subtotal_after_discounts: "100.00" } };
    await sql.transaction(async (tx) =>
      applyOrderEvents(
        tx,
        {
          shop,
          orderId: String(payload.id),
          verificationId: v.id,
          outcome: v.outcome,
          reading: { edits: [], reading: stale },
        },
        await pendingOrderEvents(tx, shop, String(payload.id)),
        new Date(),
      ),
    );
    expect(await eventsOf(shop, payload.id)).toMatchObject([{ kind: "edit", appliedAt: null }]);
    expect((await verificationOf(shop, payload.id)).job.state).toBe("queued");
    await settle(startWorker());
    expect((await ledgerOf(shop, payload.id)).record).toMatchObject({ amount: "7.00", orderValue: "70.00" });
  });

  for (const order of ["edit then refund", "refund then edit"] as const) {
    it(`ends at rate x (edited value - refunded) whichever is applied first (${order})`, async () => {
      const shop = await newShop();
      const w = startWorker();
      const { payload } = await placeOrder(h, { shop, subtotal: "100.00" });
      await settle(w);
      // In Shopify the edit came first (100 -> 80), then a refund of 30; the deliveries race.
      const { edit } = await editOrder(h, shop, payload, { subtotal: "80.00", deliveries: 0 });
      const sendEdit = async () => {
        const { deliver } = await import("../support/deliver");
        await deliver(h.app.url, "/webhooks/orders/edited", { topic: "orders/edited", shop, body: edit });
      };
      if (order === "edit then refund") {
        await sendEdit();
        await settle(w);
        await refundOrder(h, shop, payload, { subtotal: "30.00" });
      } else {
        await refundOrder(h, shop, payload, { subtotal: "30.00" });
        await settle(w);
        await sendEdit();
      }
      await settle(w);
      const ledger = await ledgerOf(shop, payload.id);
      // 10 % of (80 - 30) = 5.00, however it got there.
      expect(ledger.record).toMatchObject({ amount: "5.00", orderValue: "80.00", refunded: "30", status: "pending" });
      expect(ledger.entries.reduce((sum, [, amount]) => sum + Math.round(Number(amount) * 100), 0)).toBe(500);
    });
  }

  it("never revives a cancelled order's commission, whether the edit comes before or after the cancellation", async () => {
    const shop = await newShop();
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop, subtotal: "100.00" });
    await settle(w);
    await cancelOrder(h, shop, payload);
    await settle(w);
    await editOrder(h, shop, payload, { subtotal: "140.00" });
    await settle(w);
    const ledger = await ledgerOf(shop, payload.id);
    expect(ledger.entries).toEqual([
      ["credit", "10.00"],
      ["reversal", "-10.00"],
    ]);
    expect(ledger.record).toMatchObject({ amount: "0.00", status: "reversed" });
    expect((await eventsOf(shop, payload.id)).find((e) => e.kind === "edit")?.result).toBe(
      "nothing to adjust: the commission is already reversed",
    );
  });

  it("marks an edit of an order without a commission as applied, and reads nothing for it", async () => {
    const shop = await newShop();
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop, capture: "none", subtotal: "100.00" });
    await settle(w);
    await editOrder(h, shop, payload, { subtotal: "50.00" });
    await settle(w);
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "unattributed", commission: null });
    expect((await eventsOf(shop, payload.id))[0]?.result).toMatch(/^not applied: the order has no commission/);
    expect(
      h.shopify
        .requests()
        .filter(
          (r) =>
            r.operationName === "TagGuardOrderAmounts" &&
            (r.variables as { id?: string } | undefined)?.id === payload.admin_graphql_api_id,
        ),
    ).toHaveLength(0);
  });

  it("rounds half-up at a 0-decimal currency's unit", async () => {
    const shop = await newShop();
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop, subtotal: "1000", currency: "JPY" });
    await settle(w);
    await editOrder(h, shop, payload, { subtotal: "1005" });
    await settle(w);
    const ledger = await ledgerOf(shop, payload.id);
    // 10 % of 1005 = 100.5, half-up 101.
    expect(ledger.entries).toEqual([
      ["credit", "100"],
      ["edit", "1"],
    ]);
    expect(ledger.record).toMatchObject({ amount: "101", currency: "JPY" });
  });
});

describe("an order edited after its commission was paid", () => {
  async function paidOrder(shop: string, creatorId: string) {
    const w = startWorker();
    const { payload } = await placeOrder(h, { shop, creatorId, expectedTag: `${creatorId}-tag`, subtotal: "200.00" });
    await settle(w);
    const paid = await recordPayout(shop, {
      idempotencyKey: `payout-${creatorId}-1`,
      reference: "transfer 1",
      paidOn: "2026-11-20",
      balances: await asShown(shop, [`USD:${creatorId}`]),
    });
    expect(paid).toMatchObject({ ok: true });
    expect((await ledgerOf(shop, payload.id)).record?.status).toBe("paid");
    return { w, payload };
  }

  it("claws a lower value back, netted by the next payout", async () => {
    const shop = await newShop({ holdDays: 0 });
    const { w, payload } = await paidOrder(shop, "cr_down");
    await editOrder(h, shop, payload, { subtotal: "150.00" });
    await settle(w);
    const ledger = await ledgerOf(shop, payload.id);
    expect(ledger.entries).toEqual([
      ["credit", "20.00"],
      ["clawback", "-5.00"],
    ]);
    expect(ledger.record).toMatchObject({ status: "paid", amount: "15.00" });
    expect(await payableBalances(shop)).toMatchObject([{ owed: "USD -5.00", balance: "USD -5.00", payable: false }]);

    await placeOrder(h, { shop, creatorId: "cr_down", expectedTag: "cr_down-tag", subtotal: "80.00" });
    await settle(w);
    const next = await recordPayout(shop, {
      idempotencyKey: "payout-cr_down-2",
      reference: "transfer 2",
      paidOn: "2026-11-21",
      balances: await asShown(shop, ["USD:cr_down"]),
    });
    expect(next.ok).toBe(true);
    const line = await prisma.payoutLine.findFirstOrThrow({ where: { payoutId: next.ok ? next.payoutId : "" } });
    expect(line).toMatchObject({ amount: "3.00", records: 1 });
    expect(await payableBalances(shop)).toEqual([]);
  });

  it("pays a higher value as a top-up once the hold in force at the edit has passed, whatever the hold is set to later", async () => {
    const shop = await newShop({ holdDays: 0 });
    const { w, payload } = await paidOrder(shop, "cr_up");
    expect(await saveSettings(shop, { clickServiceUrl: h.clicks.url, holdDays: 14 })).toMatchObject({ ok: true });
    await editOrder(h, shop, payload, { subtotal: "250.00" });
    await settle(w);
    const ledger = await ledgerOf(shop, payload.id);
    expect(ledger.entries).toEqual([
      ["credit", "20.00"],
      ["top_up", "5.00"],
    ]);
    expect(ledger.record).toMatchObject({ status: "paid", amount: "25.00", orderValue: "250.00" });
    const written = ledger.rows.find((e) => e.kind === "top_up")!.createdAt.getTime();
    const dueAt = new Date(written + 14 * DAY);
    expect(ledger.rows.find((e) => e.kind === "top_up")?.dueAt).toEqual(dueAt);
    // The merchant shortens the hold: the top-up still waits the 14 days it was written with.
    expect(await saveSettings(shop, { clickServiceUrl: h.clicks.url, holdDays: 3 })).toMatchObject({ ok: true });
    const day10 = new Date(written + 10 * DAY);
    const waiting = { amount: "USD 5.00", count: 1, from: dueAt.toISOString() };
    expect(await payableBalances(shop, undefined, day10)).toEqual([
      {
        key: "USD:cr_up",
        creatorId: "cr_up",
        currency: "USD",
        approved: "USD 0.00",
        owed: "USD 0.00",
        balance: "USD 0.00",
        balanceMinor: "0",
        records: 0,
        payable: false,
        held: null,
        waiting,
      },
    ]);
    // The Payouts page says when it becomes payable, in the shop's time.
    const page = await payoutsPage(shop, day10);
    expect(page.balances[0]?.waiting).toEqual({ ...waiting, amount: "$5.00" });
    expect(page.times[waiting.from]).toBe(formatShopTime(dueAt, { locale: "en-US", timeZone: "UTC" }));
    // A form sent by hand for it at day 10 pays nothing.
    expect(
      await recordPayout(
        shop,
        {
          idempotencyKey: "payout-cr_up-early",
          reference: "too early",
          paidOn: "2026-12-01",
          balances: [{ key: "USD:cr_up", shownMinor: "500" }],
        },
        day10,
      ),
    ).toMatchObject({ ok: false });
    expect((await ledgerOf(shop, payload.id)).rows.find((e) => e.kind === "top_up")?.payoutId).toBeNull();
    expect(await payableBalances(shop, undefined, new Date(dueAt.getTime() - 1))).toMatchObject([{ payable: false }]);
    // The Creators page's balance due agrees with Payouts: nothing while the top-up waits, then the top-up.
    expect(await creatorTotals(shop, "cr_up", undefined, day10)).toMatchObject([{ balanceDue: "USD 0.00" }]);

    const later = new Date(dueAt.getTime() + 60_000);
    expect(await creatorTotals(shop, "cr_up", undefined, later)).toMatchObject([{ balanceDue: "USD 5.00" }]);
    expect(await payableBalances(shop, undefined, later)).toMatchObject([
      { creatorId: "cr_up", owed: "USD 5.00", balance: "USD 5.00", records: 0, payable: true, waiting: null },
    ]);
    const shown = (await payableBalances(shop, undefined, later)).map((b) => ({
      key: b.key,
      shownMinor: b.balanceMinor,
    }));
    const topUp = await recordPayout(
      shop,
      { idempotencyKey: "payout-cr_up-2", reference: "top-up", paidOn: "2026-12-01", balances: shown },
      later,
    );
    expect(topUp.ok).toBe(true);
    const line = await prisma.payoutLine.findFirstOrThrow({ where: { payoutId: topUp.ok ? topUp.payoutId : "" } });
    expect(line).toMatchObject({ amount: "5.00", amountMinor: 500n, records: 0 });
    expect((await ledgerOf(shop, payload.id)).rows.find((e) => e.kind === "top_up")?.payoutId).toBe(
      topUp.ok ? topUp.payoutId : null,
    );
    expect(await payableBalances(shop, undefined, later)).toEqual([]);

    // The top-up's payout voided: the top-up is open and due again, as a voided clawback is.
    const voided = await voidPayout(shop, { payoutId: topUp.ok ? topUp.payoutId : "", reason: "bounced" }, null, later);
    expect(voided).toMatchObject({ ok: true, records: 0, clawbacks: 1 });
    expect((await ledgerOf(shop, payload.id)).rows.find((e) => e.kind === "top_up")?.payoutId).toBeNull();
    expect(await payableBalances(shop, undefined, later)).toMatchObject([{ balance: "USD 5.00", payable: true }]);
  });

  it("keeps each top-up's own hold: one written after the hold was shortened is due first", async () => {
    const shop = await newShop({ holdDays: 0 });
    const { w, payload } = await paidOrder(shop, "cr_two");
    expect(await saveSettings(shop, { clickServiceUrl: h.clicks.url, holdDays: 14 })).toMatchObject({ ok: true });
    await editOrder(h, shop, payload, { subtotal: "250.00" });
    await settle(w);
    expect(await saveSettings(shop, { clickServiceUrl: h.clicks.url, holdDays: 3 })).toMatchObject({ ok: true });
    await editOrder(h, shop, payload, { subtotal: "275.00" });
    await settle(w);
    const [first, second] = (await ledgerOf(shop, payload.id)).rows.filter((e) => e.kind === "top_up");
    expect([first?.amount, second?.amount]).toEqual(["5.00", "2.50"]);
    expect(second!.dueAt).toEqual(new Date(second!.createdAt.getTime() + 3 * DAY));
    const written = first!.createdAt.getTime();

    // Both in their hold: the later, shorter one is the first to become payable.
    expect(await payableBalances(shop, undefined, new Date(written + DAY))).toMatchObject([
      {
        balance: "USD 0.00",
        payable: false,
        waiting: { amount: "USD 7.50", count: 2, from: second!.dueAt!.toISOString() },
      },
    ]);
    // At day 4 the second is due and paid alone; the first still waits its 14 days.
    const day4 = new Date(written + 4 * DAY);
    expect(await payableBalances(shop, undefined, day4)).toMatchObject([
      {
        balance: "USD 2.50",
        payable: true,
        waiting: { amount: "USD 5.00", count: 1, from: first!.dueAt!.toISOString() },
      },
    ]);
    const paid = await recordPayout(
      shop,
      {
        idempotencyKey: "payout-cr_two-2",
        reference: "the shorter hold",
        paidOn: "2026-12-01",
        balances: [{ key: "USD:cr_two", shownMinor: "250" }],
      },
      day4,
    );
    expect(paid).toMatchObject({ ok: true, lines: 1 });
    const settled = (await ledgerOf(shop, payload.id)).rows.filter((e) => e.kind === "top_up");
    expect(settled.map((e) => e.payoutId === null)).toEqual([true, false]);
  });

  it("pays a top-up written under a hold of 0 days at once, though the hold is lengthened after", async () => {
    const shop = await newShop({ holdDays: 0 });
    const { w, payload } = await paidOrder(shop, "cr_now");
    await editOrder(h, shop, payload, { subtotal: "230.00" });
    await settle(w);
    const topUp = (await ledgerOf(shop, payload.id)).rows.find((e) => e.kind === "top_up");
    expect(topUp).toMatchObject({ amount: "3.00", dueAt: topUp?.createdAt });
    expect(await saveSettings(shop, { clickServiceUrl: h.clicks.url, holdDays: 30 })).toMatchObject({ ok: true });
    expect(await payableBalances(shop)).toMatchObject([
      { creatorId: "cr_now", balance: "USD 3.00", records: 0, payable: true, waiting: null },
    ]);
    const paid = await recordPayout(shop, {
      idempotencyKey: "payout-cr_now-2",
      reference: "top-up at once",
      paidOn: "2026-12-01",
      balances: await asShown(shop, ["USD:cr_now"]),
    });
    expect(paid).toMatchObject({ ok: true, lines: 1 });
    expect((await ledgerOf(shop, payload.id)).rows.find((e) => e.kind === "top_up")?.payoutId).toBe(
      paid.ok ? paid.payoutId : null,
    );
    expect(await payableBalances(shop)).toEqual([]);
  });
});
