import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { parseCodeFilter } from "../../app/codes/code-filter";
import { codeTotalsQuery } from "../../app/codes/code-totals.server";
import { creatorQueries } from "../../app/commissions/creators.server";
import { ledgerQueries, parseLedgerFilter } from "../../app/commissions/ledger.server";
import { dashboardQueries } from "../../app/dashboard/dashboard-queries.server";
import { databaseClient } from "../../app/database/db.server";

const prisma = databaseClient();

// Every statement the dashboard and the ledger run starts from an index that exists in the
// migrated schema: EXPLAIN QUERY PLAN shows SEARCH ... USING INDEX, never a full SCAN of a
// table. (bench/admin-queries.bench.ts times the same statements on a million orders.) Ledger
// totals without a creator read the CommissionDay rollup through its covering index.
// SQLite only (the "unit" project): it reads SQLite's EXPLAIN QUERY PLAN of the SQLite fragments
// (`+column`); PostgreSQL plans from statistics, and its runs check results, not plans.

const SHOP = "plans.myshopify.com";
let db: Database.Database;

beforeAll(async () => {
  await prisma.$queryRaw`SELECT 1`;
  db = new Database(process.env.DATABASE_URL!.replace(/^file:/, ""), { readonly: true });
});

function plan(sql: { sql: string; values: unknown[] }): string[] {
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql.sql}`).all(...(sql.values as never[])) as { detail: string }[]).map(
    (r) => r.detail,
  );
}

function expectIndexed(details: string[]) {
  expect(
    details.some((d) =>
      /SEARCH (Verification|VerificationHour|Commission|CommissionDay|CommissionCreator|DataRequest) USING (COVERING INDEX|INDEX|PRIMARY KEY)/.test(
        d,
      ),
    ),
  ).toBe(true);
  expect(
    details.filter((d) =>
      /^SCAN (Verification|VerificationHour|Commission|CommissionDay|CommissionCreator|DataRequest)\b/.test(d),
    ),
  ).toEqual([]);
}

describe("admin query plans", () => {
  it.each(Object.entries(dashboardQueries(SHOP, new Date(Date.now() - 30 * 86_400_000))))(
    "dashboard %s uses an index",
    (_name, sql) => {
      expectIndexed(plan(sql));
    },
  );

  const filters = [
    "",
    "creator=c1",
    "status=paid",
    "redirected=1",
    "redirected=1&days=30",
    "creator=c1&status=pending&redirected=1&days=90",
    "days=7",
  ];
  it.each(filters)("ledger page and totals for ?%s use an index", (query) => {
    const filter = parseLedgerFilter(new URLSearchParams(query));
    const first = ledgerQueries(SHOP, filter, null, 51);
    const later = ledgerQueries(SHOP, filter, { createdAt: Date.now(), id: "cabc" }, 51);
    for (const sql of [first.page, first.totals, later.page]) expectIndexed(plan(sql));
  });

  it.each(["", "code=save&hijacked=1&sort=orders&days=90"])(
    "reads the Codes page's codes from their (shop, createdAt) range alone, no order joined, for ?%s",
    (query) => {
      const details = plan(codeTotalsQuery(SHOP, parseCodeFilter(new URLSearchParams(query)), new Date()));
      expect(details.some((d) => /SEARCH d USING COVERING INDEX OrderDiscountCode_period_idx/.test(d))).toBe(true);
      expect(details.filter((d) => /\b(Verification|Commission)\b/.test(d))).toEqual([]);
      expect(details.filter((d) => /^SCAN (d|OrderDiscountCode)\b/.test(d))).toEqual([]);
    },
  );

  it("leads with the creator index when a creator is given", () => {
    const q = ledgerQueries(
      SHOP,
      parseLedgerFilter(new URLSearchParams("creator=c1&status=pending&redirected=1")),
      null,
      51,
    );
    // Either index that starts (shop, creatorId): the totals may take the Creators page's
    // covering one, which also holds status, redirected and the amount.
    const creatorLed = /INDEX Commission_shop_creatorId_\w+ \(shop=\? AND creatorId=\?/;
    expect(plan(q.page).join(" ")).toMatch(creatorLed);
    expect(plan(q.totals).join(" ")).toMatch(creatorLed);
  });

  it.each([0, 330])(
    "counts decided orders from the hour rollup, and reads Verification for the first partial hour and the orders in progress only (offset %i)",
    (offset) => {
      const q = dashboardQueries(SHOP, new Date(Date.now() - 30 * 86_400_000), offset);
      const rollup = "SEARCH VerificationHour USING COVERING INDEX VerificationHour_period_idx (shop=? AND hour>?)";
      const outcomeIndex = "Verification_shop_outcome_createdAt_arrivedTag_idx";
      const counts = plan(q.outcomeCounts);
      expect(counts.filter((d) => d === rollup)).toHaveLength(1);
      expect(
        counts.filter((d) =>
          d.includes(`COVERING INDEX ${outcomeIndex} (shop=? AND outcome=? AND createdAt>? AND createdAt<?)`),
        ),
      ).toHaveLength(1);
      expect(
        counts.filter((d) => d.includes(`COVERING INDEX ${outcomeIndex} (shop=? AND outcome=? AND createdAt>?)`)),
      ).toHaveLength(1);
      // A zone offset by :30 splits each hour between two days: the rollup is read once per part.
      const coverage = plan(q.coverageByDay);
      expect(coverage.filter((d) => d === rollup)).toHaveLength(offset % 60 === 0 ? 2 : 4);
      expect(coverage.filter((d) => /^SEARCH Verification USING .*createdAt>\?\)$/.test(d))).toEqual([
        `SEARCH Verification USING INDEX ${outcomeIndex} (shop=? AND outcome=? AND createdAt>?)`,
      ]);
    },
  );

  it("counts the landing record's orders from their own index ranges, not every order of the period", () => {
    const details = plan(dashboardQueries(SHOP, new Date()).landing).join(" ");
    expect(details).toMatch(
      /COVERING INDEX Verification_shop_verdictSource_createdAt_idx \(shop=\? AND verdictSource=\? AND createdAt>\?\)/,
    );
    expect(details).toMatch(
      /COVERING INDEX Verification_shop_tampered_createdAt_idx \(shop=\? AND tampered=\? AND createdAt>\?\)/,
    );
  });

  it("sums the Creators page from the CommissionCreator rollup, in its order, never from the records", () => {
    for (const choice of [null, "cr_a", ["cr_a", "cr_b"]]) {
      const details = plan(creatorQueries(SHOP, choice).records).join(" ");
      expect(details).toMatch(/SEARCH CommissionCreator USING INDEX CommissionCreator_shop_creatorId_idx \(shop=\?/);
      expect(details).not.toMatch(/\bCommission\b(?!Creator)/);
    }
  });
});
