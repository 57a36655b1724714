import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { creditCommission, type CommissionInput } from "../../app/commissions/credit.server";
import { databaseClient } from "../../app/database/db.server";
import { sql } from "../../app/database/sql.server";

const prisma = databaseClient();

// Crediting an order (app/commissions/credit.server.ts) sends its record and its credit entry
// together, with nothing awaited between: the database keeps one record per order, and an entry
// goes in only with the record its own statement wrote. On SQLite and PostgreSQL.

const NOW = new Date("2026-12-01T12:00:00.000Z");

async function orderToCredit(overrides: Partial<CommissionInput> = {}): Promise<CommissionInput> {
  const shop = `credit-${randomUUID()}.myshopify.com`;
  const orderId = randomUUID();
  const verification = await prisma.verification.create({
    data: { shop, orderId, orderGid: `gid://shopify/Order/${orderId}`, orderCreatedAt: NOW, orderFacts: "{}" },
  });
  return {
    shop,
    verificationId: verification.id,
    orderId,
    orderName: "#1001",
    orderCreatedAt: NOW,
    creatorId: "creator-alice",
    expectedTag: "alice-20",
    arrivedTag: "honey-77",
    orderValue: "80.00",
    basis: "subtotal_after_discounts",
    currency: "USD",
    ratePercent: "12.5",
    holdDays: 30,
    hijacked: true,
    ...overrides,
  };
}

async function ledgerOf(verificationId: string) {
  const records = await prisma.commission.findMany({ where: { verificationId }, include: { entries: true } });
  return records.map((r) => ({
    status: r.status,
    amount: r.amount,
    entries: r.entries.map((e) => ({ kind: e.kind, amount: e.amount })),
  }));
}

describe("crediting an order's commission", () => {
  it("writes the record and its credit entry, with the amount and the hold it states", async () => {
    const order = await orderToCredit();
    expect(await sql.transaction((tx) => creditCommission(tx, order, NOW))).toBe(true);
    expect(await ledgerOf(order.verificationId)).toEqual([
      { status: "pending", amount: "10.00", entries: [{ kind: "credit", amount: "10.00" }] },
    ]);
  });

  it("keeps the record an order has and writes no second entry, in a later transaction or in the same one", async () => {
    const order = await orderToCredit();
    await sql.transaction((tx) => creditCommission(tx, order, NOW));
    expect(await sql.transaction((tx) => creditCommission(tx, { ...order, orderValue: "999.00" }, NOW))).toBe(false);
    const both = await sql.transaction((tx) =>
      Promise.all([creditCommission(tx, order, NOW), creditCommission(tx, order, NOW)]),
    );
    expect(both).toEqual([false, false]);
    expect(await ledgerOf(order.verificationId)).toEqual([
      { status: "pending", amount: "10.00", entries: [{ kind: "credit", amount: "10.00" }] },
    ]);

    const fresh = await orderToCredit();
    const racing = await sql.transaction((tx) =>
      Promise.all([creditCommission(tx, fresh, NOW), creditCommission(tx, fresh, NOW)]),
    );
    expect(racing).toEqual([true, false]);
    expect((await ledgerOf(fresh.verificationId))[0]?.entries).toHaveLength(1);
  });

  it("starts a record approved when its hold is over, and in review when the order is contested", async () => {
    const late = await orderToCredit({ holdDays: 0 });
    const contested = await orderToCredit({ holdDays: 0, review: true });
    await sql.transaction((tx) => Promise.all([creditCommission(tx, late, NOW), creditCommission(tx, contested, NOW)]));
    expect((await ledgerOf(late.verificationId))[0]?.status).toBe("approved");
    expect((await ledgerOf(contested.verificationId))[0]?.status).toBe("review");
  });
});
