import fc from "fast-check";
import { describe, expect, it } from "vitest";
import prisma from "../../app/db.server";
import { listLedger } from "../../app/commissions/ledger.server";

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

/** The rollup's rows that hold records, and the same rows grouped from the records in JavaScript. */
async function rollupAndRecords(shop: string) {
  const key = (r: { day: number; currency: string; status: string; redirected: boolean }) =>
    `${r.day} ${r.currency} ${r.status} ${r.redirected}`;
  const rollup = (await prisma.commissionDay.findMany({ where: { shop, records: { gt: 0 } } }))
    .map((row) => ({ key: key(row), amountMinor: row.amountMinor, records: row.records }))
    .sort((a, b) => a.key.localeCompare(b.key));
  const grouped = new Map<string, { key: string; amountMinor: bigint; records: number }>();
  for (const c of await prisma.commission.findMany({ where: { shop } })) {
    const k = key({ ...c, day: Math.floor(c.createdAt.getTime() / DAY) });
    const sum = grouped.get(k) ?? { key: k, amountMinor: 0n, records: 0 };
    grouped.set(k, { key: k, amountMinor: sum.amountMinor + c.amountMinor, records: sum.records + 1 });
  }
  return { rollup, records: [...grouped.values()].sort((a, b) => a.key.localeCompare(b.key)) };
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
        const { rollup, records: grouped } = await rollupAndRecords(shop);
        expect(rollup).toEqual(grouped);

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
