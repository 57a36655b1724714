import { Prisma } from "@prisma/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { codesPage } from "../../app/codes/codes-page.server";
import { listLedger } from "../../app/commissions/ledger.server";
import { payoutsPage } from "../../app/commissions/payouts-page.server";
import { creatorsPageData, parseCreatorsFilter } from "../../app/creators/creators-page.server";
import { getDashboard } from "../../app/dashboard/dashboard.server";
import { databaseClient, dialect } from "../../app/database/db.server";
import { sql } from "../../app/database/sql.server";
import { seedSuspectedCreator, type SuspectedCreatorSeed } from "../../sandbox/admin-pages/suspected-creator";
import { explain, wholeTableReads } from "../support/postgresql-plans";
import { statementsOf } from "../support/caught-statements";

// Every statement the admin pages run (the dashboard at each period, the ledger's filters and a
// later page, the Creators, Payouts and Codes pages), caught as the pages run it, can be served
// by an index on PostgreSQL: EXPLAIN (FORMAT JSON) shows no Seq Scan and no index walked end to
// end (an index scan without an Index Cond), on any table.
//
// Planned with enable_seqscan = off, on a test's few rows. Why not the planner's own choice: on a
// few rows a Seq Scan is the right plan, and which plan PostgreSQL picks on a million depends on
// statistics and costs a test cannot reproduce without seeding a million rows. With sequential
// scans priced out, PostgreSQL still takes one where no index can serve the statement (a missing
// index, a condition no index can use, such as a function of a column), and that is what this
// test catches. The planner's choice on a million orders, with statistics, is the admin bench's
// (bench/admin-queries.bench.ts --database postgresql prints each plan and flags a whole-table
// read). SQLite's plans: tests/admin/query-plans.test.ts and creators-plans.test.ts.

const prisma = databaseClient();
const SHOP = "postgresql-plans.myshopify.com";
let seed: SuspectedCreatorSeed;

beforeAll(async () => {
  if (dialect !== "postgresql") return;
  seed = await seedSuspectedCreator(SHOP, { firstOrder: 81_001, approved: true, contested: true });
  // A discount code on a seeded order, so the Codes page runs its follow-up (the switch-offs).
  const order = await prisma.verification.findFirstOrThrow({ where: { shop: SHOP } });
  await prisma.orderDiscountCode.create({
    data: {
      shop: SHOP,
      verificationId: order.id,
      orderId: order.orderId,
      code: "SAVE10",
      amount: "5.00",
      amountMinor: 500n,
      currency: "USD",
      createdAt: order.createdAt,
    },
  });
});

afterAll(() => vi.restoreAllMocks());

/** Each statement's whole-table reads with sequential scans priced out, as "read: statement". */
async function wholeTableReadsOf(statements: Prisma.Sql[]): Promise<string[]> {
  const found: string[] = [];
  for (const query of statements) {
    const plan = await sql.transaction(async (tx) => {
      await tx.execute(Prisma.sql`SET LOCAL enable_seqscan = off`);
      return explain(tx, query);
    });
    for (const read of wholeTableReads(plan)) found.push(`${read}: ${query.text.replace(/\s+/g, " ").slice(0, 160)}`);
  }
  return found;
}

describe.runIf(dialect === "postgresql")("the admin pages' plans on PostgreSQL", () => {
  const pages: [string, () => Promise<unknown>][] = [
    [
      "the dashboard, at each period",
      () => Promise.all([7, 30, 90].map((days) => getDashboard(SHOP, days as 7 | 30 | 90))),
    ],
    [
      "the ledger, with each filter and on a later page",
      async () => {
        for (const query of [
          "",
          "creator=cr_mallory",
          "status=approved",
          "redirected=1",
          "redirected=1&days=30",
          "creator=cr_dana&status=pending&redirected=1&days=90",
          "days=7",
        ])
          await listLedger(SHOP, new URLSearchParams(query));
        await listLedger(
          SHOP,
          new URLSearchParams({ cursor: Buffer.from(`${Date.now()}:cabc`).toString("base64url") }),
        );
      },
    ],
    [
      "the Creators page, all, by standing and one creator's",
      async () => {
        for (const query of ["", "standing=suspected", `creator=${seed.attacker}&days=90`])
          await creatorsPageData(SHOP, parseCreatorsFilter(new URLSearchParams(query)));
      },
    ],
    ["the Payouts page", () => payoutsPage(SHOP)],
    [
      "the Codes page, by default and filtered",
      async () => {
        for (const query of ["", "code=save&hijacked=1&sort=orders&days=90", "sort=code&days=7"])
          await codesPage(SHOP, new URLSearchParams(query));
      },
    ],
  ];

  it.each(pages)("%s: every statement can be served by an index", async (_page, run) => {
    const statements = await statementsOf(run);
    expect(statements.length).toBeGreaterThan(0);
    expect(await wholeTableReadsOf(statements)).toEqual([]);
  });

  it("catches a statement no index serves (the check itself)", async () => {
    const unindexed = Prisma.sql`SELECT "id" FROM "Verification" WHERE "orderName" = ${"#1"}`;
    expect(await wholeTableReadsOf([unindexed])).toEqual([expect.stringMatching(/^Seq Scan on Verification: /)]);
  });

  it("finds the seeded rows it plans for", async () => {
    expect(await prisma.commission.count({ where: { shop: SHOP } })).toBeGreaterThan(0);
    expect(await prisma.creatorClaim.count({ where: { shop: SHOP } })).toBeGreaterThan(0);
  });
});
