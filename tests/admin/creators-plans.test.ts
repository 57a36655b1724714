import Database from "better-sqlite3";
import type { Prisma } from "@prisma/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { creatorView } from "../../app/creators/creator-page.server";
import { creatorsPageData, parseCreatorsFilter } from "../../app/creators/creators-page.server";
import { orderCreators } from "../../app/creators/order-creators.server";
import { creatorAttention } from "../../app/dashboard/creator-attention.server";
import { databaseClient } from "../../app/database/db.server";
import { formatMoney } from "../../app/units/money";
import { seedSuspectedCreator, type SuspectedCreatorSeed } from "../../sandbox/admin-pages/suspected-creator";
import { statementsOf } from "../support/caught-statements";

// Every statement the creator's page, the dashboard's creator lines and the order page's claims
// run starts from an index (EXPLAIN QUERY PLAN: SEARCH ... USING INDEX, never a SCAN of a table),
// so a shop's creator page costs what its creator's rows cost, not the table's. The statements
// are caught as the page runs them. SQLite only, as tests/admin/query-plans.test.ts.

const prisma = databaseClient();
const SHOP = "creators-plans.myshopify.com";
const FORMAT = { locale: "en-US", timeZone: "UTC" };
let db: Database.Database;
let seed: SuspectedCreatorSeed;

beforeAll(async () => {
  seed = await seedSuspectedCreator(SHOP, { firstOrder: 71_001, approved: true, contested: true });
  db = new Database(process.env.DATABASE_URL!.replace(/^file:/, ""), { readonly: true });
});

afterAll(() => db.close());

function plan(query: Prisma.Sql): string[] {
  return (db.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...(query.values as never[])) as { detail: string }[]).map(
    (row) => row.detail,
  );
}

describe("the creator pages' query plans", () => {
  it("reads every table through an index", async () => {
    const statements = await statementsOf(async () => {
      await creatorView(SHOP, seed.attacker, 90, FORMAT);
      await creatorsPageData(SHOP, parseCreatorsFilter(new URLSearchParams("standing=suspected")), FORMAT);
      await creatorAttention(SHOP, formatMoney);
      await orderCreators(SHOP, seed.stoodDown[0]!, seed.honest);
    });
    expect(statements.length).toBeGreaterThan(15);
    const scans = statements.flatMap((query) =>
      plan(query)
        .filter((detail) => /^SCAN (?!CONSTANT)/.test(detail) && !/USING (COVERING )?INDEX/.test(detail))
        .map((detail) => `${detail}: ${query.sql.replace(/\s+/g, " ").slice(0, 160)}`),
    );
    expect(scans).toEqual([]);
  });

  it("finds the seeded rows it plans for", async () => {
    expect(await prisma.creatorClaim.count({ where: { shop: SHOP } })).toBeGreaterThan(0);
  });
});
