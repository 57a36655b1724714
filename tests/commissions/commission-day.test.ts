import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { sql } from "../../app/database/sql.server";
import { approveDueCommissions } from "../../app/commissions/approval.server";
import { creditCommission } from "../../app/commissions/credit.server";
import { listLedger } from "../../app/commissions/ledger.server";
import { applyOrderEvents, pendingOrderEvents } from "../../app/commissions/order-events.server";
import { payableBalances } from "../../app/commissions/payable-balances.server";
import { recordPayout } from "../../app/commissions/payouts.server";
import { COMMISSION_STATUSES } from "../../app/commissions/statuses";
import { creatorTotals } from "../../app/commissions/creators.server";
import { foldRollups } from "../../app/database/rollups.server";
import { formatMoney } from "../../app/units/money";

const prisma = databaseClient();

// The ledger's totals come from a trigger-kept daily rollup. Whatever is inserted, updated or
// deleted, and whatever the filter, they must equal a plain SUM over the records themselves.
// Runs on SQLite and, in the "postgresql" project, on PostgreSQL's port of the triggers.

const NOW = new Date("2026-11-21T15:30:00.000Z");
const DAY = 24 * 60 * 60 * 1000;
let sequence = 0;

async function directTotals(
  shop: string,
  where: { creatorId?: string; status?: string; redirected?: boolean; since?: Date },
) {
  const rows = await prisma.commission.groupBy({
    by: ["currency"],
    where: {
      shop,
      creatorId: where.creatorId,
      status: where.status,
      redirected: where.redirected,
      createdAt: where.since ? { gte: where.since } : undefined,
    },
    _sum: { amountMinor: true },
    _count: true,
    orderBy: { currency: "asc" },
  });
  return rows.map((row) => ({
    currency: row.currency,
    minor: String(row._sum.amountMinor ?? 0n),
    records: row._count,
  }));
}

type DaySum = { key: string; amountMinor: bigint; records: number };

/** Adds a row's amount and records to its key's sum. */
function addInto(sums: Map<string, DaySum>, key: string, amountMinor: bigint, records: number) {
  const sum = sums.get(key) ?? { key, amountMinor: 0n, records: 0 };
  sums.set(key, { key, amountMinor: sum.amountMinor + amountMinor, records: sum.records + records });
}

/** The rollup's sums per key that hold records, and the same grouped from the records in JavaScript. */
async function rollupAndRecords(shop: string) {
  const key = (r: { day: number; currency: string; status: string; redirected: boolean }) =>
    `${r.day} ${r.currency} ${r.status} ${r.redirected}`;
  const summed = new Map<string, DaySum>();
  for (const row of await prisma.commissionDay.findMany({ where: { shop } }))
    addInto(summed, key(row), row.amountMinor, row.records);
  const rollup = [...summed.values()].filter((sum) => sum.records !== 0).sort((a, b) => a.key.localeCompare(b.key));
  const grouped = new Map<string, DaySum>();
  for (const c of await prisma.commission.findMany({ where: { shop } }))
    addInto(grouped, key({ ...c, day: Math.floor(c.createdAt.getTime() / DAY) }), c.amountMinor, 1);
  return { rollup, records: [...grouped.values()].sort((a, b) => a.key.localeCompare(b.key)) };
}

/** The Creators page's sums (from the CommissionCreator rollup), and the same from the records in JavaScript. */
async function creatorSums(shop: string) {
  const shown = (await creatorTotals(shop)).map(
    ({ creatorId, currency, records, pending, approved, paid, redirected }) => ({
      creatorId,
      currency,
      records,
      pending,
      approved,
      paid,
      redirected,
    }),
  );
  const grouped = new Map<
    string,
    { creatorId: string; currency: string; records: number; sums: Record<string, bigint> }
  >();
  for (const c of await prisma.commission.findMany({ where: { shop } })) {
    const key = `${c.creatorId} ${c.currency}`;
    const row = grouped.get(key) ?? { creatorId: c.creatorId, currency: c.currency, records: 0, sums: {} };
    row.records += 1;
    row.sums[c.status] = (row.sums[c.status] ?? 0n) + c.amountMinor;
    if (c.redirected) row.sums.redirected = (row.sums.redirected ?? 0n) + c.amountMinor;
    grouped.set(key, row);
  }
  const expected = [...grouped.values()]
    .sort((a, b) =>
      a.creatorId === b.creatorId ? (a.currency < b.currency ? -1 : 1) : a.creatorId < b.creatorId ? -1 : 1,
    )
    .map((row) => ({
      creatorId: row.creatorId,
      currency: row.currency,
      records: row.records,
      ...Object.fromEntries(
        ["pending", "approved", "paid", "redirected"].map((name) => [
          name,
          formatMoney(row.sums[name] ?? 0n, row.currency),
        ]),
      ),
    }));
  return { shown, expected };
}

async function ledgerTotals(shop: string, params: Record<string, string>) {
  const page = await listLedger(shop, new URLSearchParams(params), NOW);
  return page.totals.map((total) => ({
    currency: total.currency,
    minor: total.total.replace(/[^\d-]/g, "").replace(/^(-?)0+(?=\d)/, "$1"),
    records: total.records,
  }));
}

const record = fc.record({
  creatorId: fc.constantFrom("cr_a", "cr_b", "cr_c"),
  currency: fc.constantFrom("USD", "JPY", "KWD"),
  status: fc.constantFrom("pending", "paid"),
  redirected: fc.boolean(),
  amountMinor: fc.bigInt({ min: 0n, max: 10n ** 12n }),
  ageMs: fc.integer({ min: 0, max: 120 * DAY }),
});

describe("commission totals", () => {
  it("match a plain SUM for every filter, after inserts, updates and deletes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(record, { minLength: 1, maxLength: 25 }), fc.nat(), async (records, seed) => {
        sequence += 1;
        const shop = `rollup-${sequence}.myshopify.com`;
        for (const [i, r] of records.entries()) {
          const verification = await prisma.verification.create({
            data: {
              shop,
              orderId: `${sequence}-${i}`,
              orderGid: `gid://shopify/Order/${i}`,
              orderCreatedAt: NOW,
              orderFacts: "{}",
            },
          });
          const digits = r.currency === "JPY" ? 0 : r.currency === "KWD" ? 3 : 2;
          const text = r.amountMinor.toString().padStart(digits + 1, "0");
          await prisma.commission.create({
            data: {
              shop,
              verificationId: verification.id,
              orderId: `${sequence}-${i}`,
              creatorId: r.creatorId,
              expectedTag: "t",
              arrivedTag: "t",
              orderValue: "1",
              currency: r.currency,
              rate: "10",
              status: r.status,
              redirected: r.redirected,
              amountMinor: r.amountMinor,
              amount: digits ? `${text.slice(0, -digits)}.${text.slice(-digits)}` : text,
              createdAt: new Date(NOW.getTime() - r.ageMs),
            },
          });
        }
        const all = await prisma.commission.findMany({ where: { shop }, orderBy: { id: "asc" } });
        // Mark one paid and delete another: the rollup must follow both.
        await prisma.commission.update({ where: { id: all[seed % all.length]!.id }, data: { status: "paid" } });
        if (all.length > 1) await prisma.commission.delete({ where: { id: all[(seed + 1) % all.length]!.id } });

        // Each day row is the UTC day of createdAt, as SQLite's milliseconds / 86400000.
        // Folded on half the runs: a sum must not change with the fold.
        if (seed % 2 === 0) await foldRollups();
        const { rollup, records: grouped } = await rollupAndRecords(shop);
        expect(rollup).toEqual(grouped);
        const creators = await creatorSums(shop);
        expect(creators.shown).toEqual(creators.expected);

        for (const days of [null, 7, 30, 90]) {
          const since = days ? new Date(NOW.getTime() - days * DAY) : undefined;
          const period: Record<string, string> = days ? { days: String(days) } : {};
          expect(await ledgerTotals(shop, period)).toEqual(await directTotals(shop, { since }));
          expect(await ledgerTotals(shop, { ...period, status: "paid" })).toEqual(
            await directTotals(shop, { since, status: "paid" }),
          );
          expect(await ledgerTotals(shop, { ...period, redirected: "1" })).toEqual(
            await directTotals(shop, { since, redirected: true }),
          );
          expect(await ledgerTotals(shop, { ...period, creator: "cr_a" })).toEqual(
            await directTotals(shop, { since, creatorId: "cr_a" }),
          );
        }
      }),
      { numRuns: 15 },
    );
  });
});

// The same property when the amounts move the way the ledger moves them: credits, pro-rated
// refunds, cancellations, approval, payouts and clawbacks after them, each through the app's
// own code, in any order and mix.
const order = fc.record({
  creatorId: fc.constantFrom("cr_a", "cr_b"),
  currency: fc.constantFrom("USD", "JPY", "KWD"),
  orderValue: fc.integer({ min: 0, max: 10_000_000 }).map((cents) => (cents / 100).toFixed(2)),
  rate: fc.constantFrom("10", "7.5", "33.3333"),
  holdDays: fc.constantFrom(0, 30),
  ageMs: fc.integer({ min: 0, max: 120 * DAY }),
  // Before payment: refunds as parts of the order value (0 to 1.2), and perhaps a cancellation.
  refunds: fc.array(fc.integer({ min: 0, max: 1200 }), { maxLength: 3 }),
  cancel: fc.boolean(),
  // After the payout: more refunds, or a cancellation, that claw back.
  later: fc.array(fc.integer({ min: 0, max: 1200 }), { maxLength: 2 }),
  cancelLater: fc.boolean(),
});

describe("commission totals with adjustments", () => {
  it("match a plain SUM for every filter and status after refunds, cancellations, approval and payouts", async () => {
    let events = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(order, { minLength: 1, maxLength: 12 }), fc.boolean(), async (orders, payFirst) => {
        sequence += 1;
        const shop = `adjusted-${sequence}.myshopify.com`;
        const made: { verificationId: string; orderId: string; orderValue: string; o: (typeof orders)[number] }[] = [];
        for (const [i, o] of orders.entries()) {
          const orderId = `${sequence}-${i}`;
          const createdAt = new Date(NOW.getTime() - o.ageMs);
          const verification = await prisma.verification.create({
            data: { shop, orderId, orderGid: `gid://shopify/Order/${i}`, orderCreatedAt: createdAt, orderFacts: "{}" },
          });
          await sql.transaction((tx) =>
            creditCommission(
              tx,
              {
                shop,
                verificationId: verification.id,
                orderId,
                orderName: null,
                orderCreatedAt: createdAt,
                creatorId: o.creatorId,
                expectedTag: "t",
                arrivedTag: "t",
                orderValue: o.orderValue,
                basis: "subtotal_after_discounts",
                currency: o.currency,
                ratePercent: o.rate,
                holdDays: o.holdDays,
                hijacked: i % 2 === 0,
              },
              createdAt,
            ),
          );
          made.push({ verificationId: verification.id, orderId, orderValue: o.orderValue, o });
        }
        const send = async (m: (typeof made)[number], kind: "refund" | "cancel", perMille = 0) => {
          events += 1;
          const refunded = ((Number(m.orderValue) * perMille) / 1000).toFixed(2);
          await prisma.orderEvent.create({
            data: {
              shop,
              orderId: m.orderId,
              kind,
              sourceId: `${kind}-${events}`,
              facts: JSON.stringify(
                kind === "cancel"
                  ? { kind, orderId: m.orderId, cancelledAt: null }
                  : {
                      kind,
                      orderId: m.orderId,
                      refundId: `r${events}`,
                      currency: m.o.currency,
                      refunded: {
                        subtotal_after_discounts: refunded,
                        subtotal_before_discounts: refunded,
                        total_price: refunded,
                      },
                    },
              ),
            },
          });
          await sql.transaction(async (tx) =>
            applyOrderEvents(
              tx,
              { shop, orderId: m.orderId, verificationId: m.verificationId, outcome: "matched" },
              await pendingOrderEvents(tx, shop, m.orderId),
              NOW,
            ),
          );
        };
        const pay = async () => {
          const balances = (await payableBalances(shop)).filter((b) => b.payable);
          if (balances.length === 0) return;
          await recordPayout(
            shop,
            {
              idempotencyKey: `key-${shop}-${events}`,
              reference: "r",
              paidOn: "2026-11-21",
              balances: balances.map((b) => ({ key: b.key, shownMinor: b.balanceMinor })),
            },
            NOW,
          );
        };

        if (payFirst) {
          await approveDueCommissions(NOW);
          await pay();
        }
        for (const m of made) {
          for (const part of m.o.refunds) await send(m, "refund", part);
          if (m.o.cancel) await send(m, "cancel");
        }
        await approveDueCommissions(NOW);
        await pay();
        for (const m of made) {
          for (const part of m.o.later) await send(m, "refund", part);
          if (m.o.cancelLater) await send(m, "cancel");
        }

        // Each record is the sum of its entries, never below zero, and its status follows.
        for (const c of await prisma.commission.findMany({ where: { shop }, include: { entries: true } })) {
          expect(c.entries.reduce((sum, e) => sum + e.amountMinor, 0n)).toBe(c.amountMinor);
          expect(c.amountMinor >= 0n).toBe(true);
          if (c.status === "reversed") expect(c.amountMinor).toBe(0n);
          expect(c.entries.filter((e) => e.kind === "clawback").length === 0 || c.status === "paid").toBe(true);
        }
        if (payFirst) await foldRollups();
        const { rollup, records: grouped } = await rollupAndRecords(shop);
        expect(rollup).toEqual(grouped);
        const creators = await creatorSums(shop);
        expect(creators.shown).toEqual(creators.expected);
        for (const days of [null, 7, 30, 90]) {
          const since = days ? new Date(NOW.getTime() - days * DAY) : undefined;
          const period: Record<string, string> = days ? { days: String(days) } : {};
          expect(await ledgerTotals(shop, period)).toEqual(await directTotals(shop, { since }));
          for (const status of COMMISSION_STATUSES)
            expect(await ledgerTotals(shop, { ...period, status })).toEqual(
              await directTotals(shop, { since, status }),
            );
          expect(await ledgerTotals(shop, { ...period, redirected: "1" })).toEqual(
            await directTotals(shop, { since, redirected: true }),
          );
        }
      }),
      { numRuns: 12 },
    );
  });
});
