import { beforeAll, describe, expect, it } from "vitest";
import { creatorTotals } from "../../app/commissions/creators.server";
import { payableBalances } from "../../app/commissions/payable-balances.server";
import { listPayouts, payoutRows } from "../../app/commissions/payout-history.server";
import { recordPayout, voidPayout } from "../../app/commissions/payouts.server";
import { databaseClient } from "../../app/database/db.server";
import { placeOrder, refundOrder, useHarness, verificationOf, type Harness } from "../support/pipeline-harness";
import { asShown } from "../support/ledger";

const prisma = databaseClient();

// Voiding a payout, and one currency per payout: real orders credited by the real worker
// through the app's webhook routes, paid and voided through the payouts module, on a real
// database (SQLite here; PostgreSQL in the "postgresql" project).

const suite = useHarness("void");
const { newShop, startWorker } = suite;
let h: Harness;
beforeAll(() => {
  h = suite.h;
});

async function pay(shop: string, keys: string[], idempotencyKey: string, reference = "wire 1") {
  const result = await recordPayout(shop, {
    idempotencyKey,
    reference,
    paidOn: "2026-11-20",
    balances: await asShown(shop, keys),
  });
  if (!result.ok) throw new Error(`payout refused: ${JSON.stringify(result.errors)}`);
  return result.payoutId;
}

async function recordOf(shop: string, orderId: number) {
  const v = await verificationOf(shop, orderId);
  const entries = await prisma.commissionEntry.findMany({
    where: { commissionId: v.commission!.id },
    orderBy: [{ createdAt: "asc" }, { amountMinor: "desc" }],
  });
  return { record: v.commission!, entries };
}

describe("voiding a payout", () => {
  it("puts its records back to approved with an entry naming the payout, so the balance is due again", async () => {
    const shop = await newShop({ holdDays: 0 });
    const w = startWorker();
    const a = await placeOrder(h, { shop, creatorId: "cr_v", expectedTag: "v-1", subtotal: "100.00" });
    const b = await placeOrder(h, { shop, creatorId: "cr_v", expectedTag: "v-1", subtotal: "30.00" });
    await w.runOnce();
    const payoutId = await pay(shop, ["USD:cr_v"], "void-form-0001", "Wire 9");
    expect(await payableBalances(shop)).toEqual([]);

    const at = new Date(Date.now() + 1_000);
    expect(await voidPayout(shop, { payoutId, reason: "the transfer bounced" }, "staff-42", at)).toEqual({
      ok: true,
      payoutId,
      records: 2,
      clawbacks: 0,
    });
    for (const order of [a, b]) {
      const { record, entries } = await recordOf(shop, order.payload.id);
      expect(record).toMatchObject({ status: "approved", paidAt: null, payoutId: null });
      expect(entries.map((e) => [e.kind, e.amountMinor, e.payoutId])).toEqual([
        ["credit", record.amountMinor, null],
        ["payout_void", 0n, payoutId],
      ]);
    }
    expect(await payableBalances(shop)).toMatchObject([
      { creatorId: "cr_v", balance: "USD 13.00", records: 2, payable: true },
    ]);
    expect(await creatorTotals(shop)).toMatchObject([{ creatorId: "cr_v", paid: "USD 0.00", balanceDue: "USD 13.00" }]);
    // It stays in the history, marked voided with who, when and why; its CSV says so too.
    expect(await listPayouts(shop)).toMatchObject([
      {
        id: payoutId,
        reference: "Wire 9",
        voided: { at: at.toISOString(), by: "staff-42", reason: "the transfer bounced" },
        lines: [{ creatorId: "cr_v", amount: "USD 13.00", records: 2 }],
      },
    ]);
    expect((await payoutRows(shop, payoutId))?.rows).toMatchObject([
      { reference: "Wire 9", paidOn: "2026-11-20", creatorId: "cr_v", voidedAt: at.toISOString() },
    ]);
    // The balance can be paid again, by a new payout.
    const again = await pay(shop, ["USD:cr_v"], "void-form-0002");
    expect(again).not.toBe(payoutId);
    expect((await recordOf(shop, a.payload.id)).record).toMatchObject({ status: "paid", payoutId: again });
  });

  it("refuses to void twice, and another shop's payout, saying why", async () => {
    const shop = await newShop({ holdDays: 0 });
    const w = startWorker();
    await placeOrder(h, { shop, creatorId: "cr_twice", expectedTag: "t-1", subtotal: "50.00" });
    await w.runOnce();
    const payoutId = await pay(shop, ["USD:cr_twice"], "void-twice-form");
    expect((await voidPayout(shop, { payoutId, reason: "wrong account" }, null)).ok).toBe(true);
    expect(await voidPayout(shop, { payoutId, reason: "again" }, null)).toEqual({
      ok: false,
      errors: { void: "This payout was already voided; nothing changed." },
    });
    const other = await newShop({ holdDays: 0 });
    expect(await voidPayout(other, { payoutId, reason: "not mine" }, null)).toEqual({
      ok: false,
      errors: { void: "There is no such payout in your shop. Reload the page." },
    });
    expect(await voidPayout(shop, { payoutId, reason: "  " }, null)).toMatchObject({
      ok: false,
      errors: { reason: "Say why you are voiding this payout." },
    });
    // Still one void entry per record.
    expect(await prisma.commissionEntry.count({ where: { shop, kind: "payout_void" } })).toBe(1);
  });

  it("lets only one of two voids at once through", async () => {
    const shop = await newShop({ holdDays: 0 });
    const w = startWorker();
    await placeOrder(h, { shop, creatorId: "cr_race", expectedTag: "r-1", subtotal: "40.00" });
    await placeOrder(h, { shop, creatorId: "cr_race", expectedTag: "r-1", subtotal: "60.00" });
    await w.runOnce();
    const payoutId = await pay(shop, ["USD:cr_race"], "void-race-form");
    const results = await Promise.all([
      voidPayout(shop, { payoutId, reason: "first" }, "a"),
      voidPayout(shop, { payoutId, reason: "second" }, "b"),
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toEqual([
      { ok: false, errors: { void: "This payout was already voided; nothing changed." } },
    ]);
    expect(await prisma.commissionEntry.count({ where: { shop, kind: "payout_void" } })).toBe(2);
    expect(await payableBalances(shop)).toMatchObject([{ balance: "USD 10.00", records: 2 }]);
  });

  it("opens again the clawbacks it netted, and settles the refunds that reached its own records after it", async () => {
    const shop = await newShop({ holdDays: 0 });
    const w = startWorker();
    const first = await placeOrder(h, { shop, creatorId: "cr_claw", expectedTag: "c-1", subtotal: "200.00" });
    await w.runOnce();
    const firstPayout = await pay(shop, ["USD:cr_claw"], "claw-form-0001");
    // Refunded after payment: a clawback of 5.00 the creator owes.
    await refundOrder(h, shop, first.payload, { subtotal: "50.00" });
    await w.runOnce();
    const second = await placeOrder(h, { shop, creatorId: "cr_claw", expectedTag: "c-1", subtotal: "80.00" });
    await w.runOnce();
    // 8.00 approved less the 5.00 clawback.
    const secondPayout = await pay(shop, ["USD:cr_claw"], "claw-form-0002");
    const clawback = () => prisma.commissionEntry.findFirstOrThrow({ where: { shop, kind: "clawback" } });
    expect((await clawback()).payoutId).toBe(secondPayout);

    // The first payout cannot be voided while the second netted its record's refund.
    const refused = await voidPayout(shop, { payoutId: firstPayout, reason: "bounced" }, null);
    expect(refused).toEqual({
      ok: false,
      errors: {
        void: "A later payout netted a refund on one of this payout's records: wire 1 (2026-11-20). Void that payout first, then this one.",
      },
    });
    expect((await recordOf(shop, first.payload.id)).record.status).toBe("paid");

    expect(await voidPayout(shop, { payoutId: secondPayout, reason: "bounced" }, null)).toMatchObject({
      ok: true,
      records: 1,
      clawbacks: 1,
    });
    expect((await clawback()).payoutId).toBeNull();
    expect(await payableBalances(shop)).toMatchObject([
      { creatorId: "cr_claw", approved: "USD 8.00", owed: "USD -5.00", balance: "USD 3.00", records: 1 },
    ]);
    // The record whose clawback was reopened says so in its own entries.
    expect((await recordOf(shop, first.payload.id)).entries.map((e) => e.kind)).toEqual([
      "credit",
      "clawback",
      "payout_void",
    ]);
    expect((await recordOf(shop, second.payload.id)).record.status).toBe("approved");

    // Now the first payout voids: its record is approved at 15.00 (the refund already took its
    // 5.00), so the open clawback is settled by the void instead of being taken twice.
    expect((await voidPayout(shop, { payoutId: firstPayout, reason: "bounced too" }, null)).ok).toBe(true);
    expect((await clawback()).payoutId).toBe(firstPayout);
    expect(await payableBalances(shop)).toMatchObject([
      { creatorId: "cr_claw", approved: "USD 23.00", owed: "USD 0.00", balance: "USD 23.00", records: 2 },
    ]);
  });
});

describe("one currency per payout", () => {
  it("refuses balances in two currencies, recording nothing", async () => {
    const shop = await newShop({ holdDays: 0 });
    const w = startWorker();
    await placeOrder(h, { shop, creatorId: "cr_usd", expectedTag: "u-1", subtotal: "10.00" });
    await placeOrder(h, { shop, creatorId: "cr_eur", expectedTag: "e-1", subtotal: "20.00", currency: "EUR" });
    await w.runOnce();
    const result = await recordPayout(shop, {
      idempotencyKey: "mixed-form-001",
      reference: "batch",
      paidOn: "2026-11-20",
      balances: await asShown(shop, ["USD:cr_usd", "EUR:cr_eur"]),
    });
    expect(result).toEqual({
      ok: false,
      errors: {
        balances:
          "A payout is one payment in one currency, and you chose balances in EUR, USD. Record a payout for each currency.",
      },
    });
    expect(await prisma.payout.count({ where: { shop } })).toBe(0);
  });
});
