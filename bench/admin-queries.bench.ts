// Admin query benchmark: seeds 1,000,000 orders (a verification each, a commission for every
// verified one, a discount code on one in ten; bench/admin-seed.ts) into a fresh, migrated
// database, SQLite or PostgreSQL, then times the admin pages' server work through the app's own
// modules (the app's `sql`, as in production) and prints each statement's plan, so a missing
// index shows up as a table scan.
//
//   npm run bench                       (bench/run.ts runs it on each database)
//   npx tsx bench/admin-queries.bench.ts [--database sqlite|postgresql] [--rows 1000000] [--runs 15]
//                                        [--db FILE-or-URL] [--detail] [--json]
//
// PostgreSQL: on a new database on the server DATABASE_URL names, else on a throwaway cluster.
// --db keeps the seeded database (a SQLite file, or a PostgreSQL URL) and reuses it when it
// already holds orders; migrations are applied to it first, so a new index is measured at once.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import type { Prisma } from "@prisma/client";
import { migrate } from "../sandbox/demo/app-process";
import { createDemoDatabase } from "../sandbox/demo/database";
import { onServer } from "../sandbox/postgresql";
import { postgresqlBinaries, startCluster } from "../sandbox/postgresql-cluster";
import { explain, tableReads, wholeTableReads } from "../tests/support/postgresql-plans";
import { SHOP, seedPostgresql, seedSqlite, type Seeded } from "./admin-seed";

const { values } = parseArgs({
  options: {
    database: { type: "string", default: "sqlite" },
    rows: { type: "string", default: "1000000" },
    runs: { type: "string", default: "15" },
    db: { type: "string" },
    detail: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});
if (values.database !== "sqlite" && values.database !== "postgresql")
  throw new Error("--database is sqlite or postgresql");
const DATABASE = values.database;
const ROWS = Number(values.rows);
const RUNS = Number(values.runs);
const BUDGET_MS = 100;
const DAY = 24 * 60 * 60 * 1000;

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return { median: at(0.5), p95: at(0.95) };
}

async function time(label: string, fn: () => Promise<unknown>) {
  await fn(); // warm-up: prepared statements, page cache
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  const { median, p95 } = stats(samples);
  return { label, median, p95, ok: p95 < BUDGET_MS };
}

const report = (seeded: Seeded, where: string) =>
  console.log(
    `seeded ${seeded.verifications.toLocaleString("en")} verifications, ${seeded.commissions.toLocaleString("en")} commissions and ${seeded.codes.toLocaleString("en")} discount codes in ${seeded.seconds.toFixed(1)} s (${where})`,
  );

/** A seeded SQLite file; `drop` removes what this run made. */
async function sqliteDatabase(now: number) {
  const dir = mkdtempSync(path.join(tmpdir(), "tag-guard-bench-"));
  const file = values.db ? path.resolve(values.db) : path.join(dir, "bench.sqlite");
  const reuse = values.db !== undefined && existsSync(file);
  migrate(`file:${file}`);
  if (reuse) console.log(`reusing ${file}`);
  else report(seedSqlite(file, ROWS, now), file);
  return { url: `file:${file}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** A seeded PostgreSQL database: --db's (kept), or a new one on DATABASE_URL's server or a throwaway cluster. */
async function postgresqlDatabase(now: number) {
  const drops: (() => Promise<unknown> | void)[] = [];
  const drop = async () => {
    for (const step of drops.reverse()) await step();
  };
  try {
    let url = values.db;
    if (!url) {
      let server = process.env.DATABASE_URL?.startsWith("postgres") ? process.env.DATABASE_URL : undefined;
      if (!server) {
        const binaries = postgresqlBinaries();
        if (!binaries)
          throw new Error("--database postgresql needs DATABASE_URL naming a server, or PostgreSQL installed");
        const cluster = await startCluster(binaries);
        drops.push(() => cluster.stop());
        server = cluster.url;
      }
      const database = await createDemoDatabase(server, tmpdir());
      drops.push(() => database.drop());
      url = database.url;
    }
    migrate(url);
    const held = await onServer(
      url,
      async (client) => (await client.query(`SELECT 1 FROM "Verification" LIMIT 1`)).rowCount,
    );
    if (held) console.log(`reusing ${url}`);
    else report(await seedPostgresql(url, ROWS, now), "PostgreSQL");
    return { url, drop };
  } catch (error) {
    await drop();
    throw error;
  }
}

interface Plan {
  name: string;
  plan: string[];
  scans: boolean;
}

export async function main(): Promise<boolean> {
  const now = Date.now();
  const database = DATABASE === "sqlite" ? await sqliteDatabase(now) : await postgresqlDatabase(now);
  try {
    Object.assign(process.env, {
      NODE_ENV: "production",
      DATABASE_URL: database.url,
      SHOPIFY_API_KEY: process.env.SHOPIFY_API_KEY ?? "bench-api-key",
      SHOPIFY_API_SECRET: process.env.SHOPIFY_API_SECRET ?? "bench-api-secret",
      SHOPIFY_APP_URL: process.env.SHOPIFY_APP_URL ?? "https://bench.example.com",
      SETTINGS_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString("base64"),
      WORKER_ENABLED: "false",
      LOG_LEVEL: "silent",
    });
    const { saveSettings } = await import("../app/settings/shop-settings.server");
    await saveSettings(SHOP, { clickServiceUrl: "https://clicks.example.com", apiKey: "sk_bench_key_0000" });
    const { getDashboard } = await import("../app/dashboard/dashboard.server");
    const { dashboardQueries } = await import("../app/dashboard/dashboard-queries.server");
    const { listLedger, ledgerQueries, parseLedgerFilter, decodeCursor } =
      await import("../app/commissions/ledger.server");
    const { creatorQueries } = await import("../app/commissions/creators.server");
    const { creatorsPageData, parseCreatorsFilter } = await import("../app/creators/creators-page.server");
    const { payableBalances } = await import("../app/commissions/payable-balances.server");
    const { codesPage } = await import("../app/codes/codes-page.server");
    const { codeTotalsQuery } = await import("../app/codes/code-totals.server");
    const { parseCodeFilter } = await import("../app/codes/code-filter");
    const { periodStart } = await import("../app/units/periods");
    const { sql } = await import("../app/database/sql.server");
    const prisma = (await import("../app/database/db.server")).databaseClient();

    // Query plans of the exact statements the pages run: SQLite's EXPLAIN QUERY PLAN, or
    // PostgreSQL's EXPLAIN with the values bound as the app binds them (the planner's choice on
    // a million orders with statistics; tests/admin/postgresql-plans.test.ts checks that an index
    // can serve each statement at all).
    const sqliteFile =
      DATABASE === "sqlite" ? new Database(database.url.slice("file:".length), { readonly: true }) : null;
    const plans: Plan[] = [];
    const explainAs = async (name: string, query: Prisma.Sql) => {
      if (sqliteFile) {
        const rows = sqliteFile.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...(query.values as never[])) as {
          detail: string;
        }[];
        const plan = rows.map((r) => r.detail);
        plans.push({
          name,
          plan,
          scans: plan.some((d) => /^SCAN (Verification|Commission|DataRequest)\b(?! USING)/.test(d)),
        });
      } else {
        const plan = await explain(sql, query);
        plans.push({ name, plan: tableReads(plan), scans: wholeTableReads(plan).length > 0 });
      }
    };
    for (const [name, query] of Object.entries(dashboardQueries(SHOP, periodStart(90, new Date(now)))))
      await explainAs(`dashboard.${name}`, query);
    const filters: [string, string][] = [
      ["all", ""],
      ["creator", "creator=creator-7"],
      ["status", "status=paid"],
      ["redirected", "redirected=1"],
      ["redirected+30d", "redirected=1&days=30"],
      ["creator+status+90d", "creator=creator-7&status=pending&days=90"],
    ];
    for (const [name, query] of filters) {
      const q = ledgerQueries(SHOP, parseLedgerFilter(new URLSearchParams(query)), null, 51, new Date(now));
      await explainAs(`ledger.page[${name}]`, q.page);
      await explainAs(`ledger.totals[${name}]`, q.totals);
    }
    const cursorQuery = ledgerQueries(
      SHOP,
      parseLedgerFilter(new URLSearchParams("")),
      { createdAt: now - 30 * DAY, id: "vzzzz" },
      51,
      new Date(now),
    );
    await explainAs("ledger.page[after cursor]", cursorQuery.page);
    for (const [name, query] of Object.entries(creatorQueries(SHOP))) await explainAs(`creators.${name}`, query);
    const codeFilters: [string, string][] = [
      ["30d", ""],
      ["90d hijacked by orders", "days=90&hijacked=1&sort=orders"],
    ];
    for (const [name, query] of codeFilters)
      await explainAs(
        `codes[${name}]`,
        codeTotalsQuery(SHOP, parseCodeFilter(new URLSearchParams(query)), new Date(now)),
      );
    sqliteFile?.close();

    console.log(`\nQuery plans (${DATABASE}):`);
    for (const p of plans) console.log(`  ${p.scans ? "!!" : "ok"} ${p.name}: ${p.plan.join(" | ")}`);

    // Server time of the loaders' work (authentication excluded: it is a JWT check and one session read).
    const results: Awaited<ReturnType<typeof time>>[] = [];
    for (const days of [7, 30, 90] as const)
      results.push(await time(`dashboard ${days}d`, () => getDashboard(SHOP, days)));
    if (values.detail) {
      for (const [name, query] of Object.entries(dashboardQueries(SHOP, periodStart(90, new Date(now))))) {
        results.push(await time(`  90d ${name}`, () => sql.rows(query)));
      }
      for (const [name, query] of filters) {
        const q = ledgerQueries(SHOP, parseLedgerFilter(new URLSearchParams(query)), null, 51, new Date(now));
        results.push(await time(`  page ${name}`, () => sql.rows(q.page)));
        results.push(await time(`  totals ${name}`, () => sql.rows(q.totals)));
      }
    }
    for (const [name, query] of filters)
      results.push(await time(`ledger ${name}`, () => listLedger(SHOP, new URLSearchParams(query))));
    results.push(
      await time("creators page", () => creatorsPageData(SHOP, parseCreatorsFilter(new URLSearchParams("")))),
    );
    results.push(await time("payouts page (balances)", () => payableBalances(SHOP)));
    for (const [name, query] of codeFilters)
      results.push(await time(`codes page ${name}`, () => codesPage(SHOP, new URLSearchParams(query))));
    const first = await listLedger(SHOP, new URLSearchParams(""));
    let cursor = first.nextCursor;
    for (let i = 0; i < 20 && cursor; i++)
      cursor = (await listLedger(SHOP, new URLSearchParams({ cursor }))).nextCursor;
    if (cursor && decodeCursor(cursor))
      results.push(
        await time("ledger page 22 (cursor)", () => listLedger(SHOP, new URLSearchParams({ cursor: cursor! }))),
      );

    console.log(`\nServer time on ${DATABASE} over ${RUNS} runs (budget ${BUDGET_MS} ms at p95):`);
    console.log(`  ${"query".padEnd(32)} ${"median".padStart(9)} ${"p95".padStart(9)}  under ${BUDGET_MS} ms`);
    for (const r of results)
      console.log(
        `  ${r.label.padEnd(32)} ${r.median.toFixed(1).padStart(7)}ms ${r.p95.toFixed(1).padStart(7)}ms  ${r.ok ? "yes" : "NO"}`,
      );
    await prisma.$disconnect();
    const ok = results.every((r) => r.ok) && plans.every((p) => !p.scans);
    if (values.json) {
      const worst = (prefix: string) =>
        Math.max(0, ...results.filter((r) => r.label.startsWith(prefix)).map((r) => Number(r.p95.toFixed(1))));
      const summary = {
        rows: ROWS,
        database: DATABASE,
        dashboardP95Ms: worst("dashboard"),
        ledgerP95Ms: worst("ledger"),
        creatorsP95Ms: worst("creators"),
        payoutsP95Ms: worst("payouts"),
        codesP95Ms: worst("codes"),
        indexedPlans: plans.every((p) => !p.scans),
      };
      console.log(`RESULT ${JSON.stringify(summary)}`);
    }
    return ok;
  } finally {
    await database.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("admin-queries.bench.ts")) {
  main().then(
    (ok) => {
      console.log(
        ok ? "\nall admin queries within budget" : "\nsome admin queries are over budget or scan a table (see above)",
      );
      // The app's pool (PostgreSQL) would keep the process alive.
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
