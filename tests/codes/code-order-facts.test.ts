import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { codeTotals } from "../../app/codes/code-totals.server";
import { databaseClient } from "../../app/database/db.server";
import { formatMoney } from "../../app/units/money";

const prisma = databaseClient();

// The Codes page counts each code by its order's facts (a click, hijacked, when, the redirected
// commission), which triggers copy onto the code's row. Whatever happens to the orders, their
// commissions and their codes, in whatever order, the page must show what joining every code to
// its order and commission shows. Runs on SQLite and, in the "postgresql" project, on
// PostgreSQL's port of the triggers.

const NOW = new Date("2026-11-21T15:37:12.345Z");
const DAY = 86_400_000;

const order = fc.record({
  clicked: fc.boolean(),
  outcome: fc.constantFrom(null, "matched", "hijacked", "hijacked", "unattributed"),
  codes: fc.array(
    fc.record({ code: fc.constantFrom("SAVE5", "save5", "VIP"), amountMinor: fc.bigInt({ min: 0n, max: 5000n }) }),
    {
      maxLength: 2,
    },
  ),
  commission: fc.option(fc.record({ redirected: fc.boolean(), amountMinor: fc.bigInt({ min: 0n, max: 9000n }) }), {
    freq: 4,
  }),
  ageMs: fc.integer({ min: 0, max: 40 * DAY }),
});
const change = fc.oneof(
  fc.record({
    kind: fc.constant("outcome" as const),
    at: fc.nat(),
    outcome: fc.constantFrom(null, "matched", "hijacked"),
  }),
  fc.record({ kind: fc.constant("click" as const), at: fc.nat(), clicked: fc.boolean() }),
  fc.record({
    kind: fc.constant("commission" as const),
    at: fc.nat(),
    redirected: fc.boolean(),
    amountMinor: fc.bigInt({ min: 0n, max: 9000n }),
  }),
  fc.record({ kind: fc.constant("uncommission" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("code" as const), at: fc.nat(), amountMinor: fc.bigInt({ min: 0n, max: 5000n }) }),
);

const minor = (n: bigint) => (n === 0n ? "0.00" : `${n / 100n}.${String(n % 100n).padStart(2, "0")}`);

/** The page's rows, by joining every code of the shop to its order and commission here. */
async function joined(shop: string, since: Date) {
  const codes = await prisma.orderDiscountCode.findMany({
    where: { shop, createdAt: { gte: since } },
    include: { verification: { include: { commission: true } } },
  });
  const rows = new Map<
    string,
    { orders: number; hijacked: number; discount: bigint; redirected: bigint; first: Date | null; last: Date | null }
  >();
  for (const d of codes) {
    if (d.verification.clickId === null) continue;
    const key = `${d.code.toUpperCase()} ${d.currency}`;
    const row = rows.get(key) ?? { orders: 0, hijacked: 0, discount: 0n, redirected: 0n, first: null, last: null };
    row.orders += 1;
    if (d.verification.outcome === "hijacked") {
      const at = d.verification.orderCreatedAt;
      row.hijacked += 1;
      row.discount += d.amountMinor;
      const commission = d.verification.commission;
      if (commission?.redirected) row.redirected += commission.amountMinor;
      if (!row.first || at < row.first) row.first = at;
      if (!row.last || at > row.last) row.last = at;
    }
    rows.set(key, row);
  }
  return [...rows.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, row]) => ({
      key,
      orders: row.orders,
      hijacked: row.hijacked,
      discount: formatMoney(row.discount, "USD"),
      redirected: formatMoney(row.redirected, "USD"),
      first: row.first?.toISOString() ?? null,
      last: row.last?.toISOString() ?? null,
    }));
}

async function shown(shop: string) {
  const rows = await codeTotals(shop, { period: 30, search: "", hijackedOnly: false, sort: "code" }, NOW);
  return rows.map((row) => ({
    key: `${row.code} ${row.currency}`,
    orders: row.orders,
    hijacked: row.hijacked,
    discount: row.discountOnHijacked,
    redirected: row.redirectedOnHijacked,
    first: row.firstHijackedAt,
    last: row.lastHijackedAt,
  }));
}

let sequence = 0;

describe("a code's order facts", () => {
  it("follow its order and commission through every change, so the Codes page counts what a join counts", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(order, { minLength: 1, maxLength: 6 }),
        fc.array(change, { maxLength: 10 }),
        async (orders, changes) => {
          sequence += 1;
          const shop = `code-facts-${sequence}.myshopify.com`;
          const made: { id: string; orderId: string }[] = [];
          for (const [i, o] of orders.entries()) {
            const createdAt = new Date(NOW.getTime() - o.ageMs);
            const v = await prisma.verification.create({
              data: {
                shop,
                orderId: String(i),
                orderGid: `gid://shopify/Order/${i}`,
                orderCreatedAt: new Date(createdAt.getTime() - 60_000),
                createdAt,
                outcome: o.outcome,
                clickId: o.clicked ? `clk_${i}` : null,
                orderFacts: "{}",
              },
            });
            made.push({ id: v.id, orderId: v.orderId });
            // Half the commissions come before the codes, half after: both orders of writing happen.
            const commission = async () =>
              o.commission &&
              (await prisma.commission.create({
                data: {
                  shop,
                  verificationId: v.id,
                  orderId: v.orderId,
                  creatorId: "cr_a",
                  expectedTag: "t",
                  arrivedTag: "t",
                  orderValue: "1",
                  currency: "USD",
                  rate: "10",
                  redirected: o.commission.redirected,
                  amountMinor: o.commission.amountMinor,
                  amount: minor(o.commission.amountMinor),
                },
              }));
            if (i % 2 === 0) await commission();
            for (const c of o.codes)
              await prisma.orderDiscountCode.create({
                data: {
                  shop,
                  verificationId: v.id,
                  orderId: v.orderId,
                  code: c.code,
                  amount: minor(c.amountMinor),
                  amountMinor: c.amountMinor,
                  currency: "USD",
                  createdAt,
                },
              });
            if (i % 2 === 1) await commission();
          }
          for (const c of changes) {
            const target = made[c.at % made.length]!;
            if (c.kind === "outcome")
              await prisma.verification.update({ where: { id: target.id }, data: { outcome: c.outcome } });
            else if (c.kind === "click")
              await prisma.verification.update({
                where: { id: target.id },
                data: { clickId: c.clicked ? "clk_later" : null },
              });
            else if (c.kind === "commission")
              await prisma.commission.updateMany({
                where: { verificationId: target.id },
                data: { redirected: c.redirected, amountMinor: c.amountMinor },
              });
            else if (c.kind === "uncommission")
              await prisma.commission.deleteMany({ where: { verificationId: target.id } });
            else
              await prisma.orderDiscountCode.updateMany({
                where: { verificationId: target.id },
                data: { amountMinor: c.amountMinor },
              });
          }
          expect(await shown(shop)).toEqual(await joined(shop, new Date(NOW.getTime() - 30 * DAY)));
        },
      ),
      { numRuns: 60 },
    );
  });
});
