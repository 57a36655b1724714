// Admin query benchmark: seeds 1,000,000 verifications (and a commission for every attributed
// one) into a fresh, migrated SQLite file, then times the dashboard and ledger loaders' server
// work through the app's own modules (Prisma + better-sqlite3, as in production) and prints
// each statement's EXPLAIN QUERY PLAN, so a missing index shows up as a SCAN.
//
//   npm run bench                       (bench/run.ts runs every bench/*.bench.ts)
//   npx tsx bench/admin-queries.bench.ts [--rows 1000000] [--runs 15]
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const ROWS = option("rows", 1_000_000);
const textOption = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
/** --db FILE keeps the seeded database (and reuses it when it exists) for repeated runs. */
const KEEP_DB = textOption("db");
const RUNS = option("runs", 15);
const BUDGET_MS = 100;
const SHOP = "bench-shop.myshopify.com";
const OTHER_SHOPS = Array.from({ length: 9 }, (_, i) => `bench-other-${i}.myshopify.com`);
const DAY = 24 * 60 * 60 * 1000;

// Outcome mix (per 1000): a realistic shop has many orders without any affiliate click.
const MIX: [string | null, number][] = [
  ["matched", 300],
  ["hijacked", 80],
  ["unattributed", 400],
  ["expired", 80],
  ["failed", 30],
  ["rejected", 10],
  ["skipped", 90],
  ["invalid", 5],
  [null, 5],
];
const CURRENCIES = ["USD", "USD", "USD", "EUR", "GBP", "JPY"];
const ARRIVED = ["coupon-hunter", "deal-finder", "cashback-x", "savvy-save", "honey-ish", "", "creator-tag"];

function pickOutcome(i: number): string | null {
  let slot = (i * 7919) % 1000;
  for (const [outcome, weight] of MIX) {
    if (slot < weight) return outcome;
    slot -= weight;
  }
  return "unattributed";
}

function seed(file: string, now: number): { verifications: number; commissions: number; seconds: number } {
  const started = performance.now();
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = OFF");
  const insertV = db.prepare(`INSERT INTO "Verification"
    (id, shop, orderId, orderGid, orderName, orderCreatedAt, outcome, reason, captureSource, clickId, arrivedTag, capturedAt,
     orderValue, currency, expectedTag, creatorId, verdict, verdictSource, tampered, recorded, deadlineAt, orderFacts,
     createdAt, updatedAt, completedAt)
    VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '{}', ?, ?, ?)`);
  const insertC = db.prepare(`INSERT INTO "Commission"
    (id, shop, verificationId, orderId, orderName, creatorId, expectedTag, arrivedTag, orderValue, currency, rate, amount, amountMinor, status, redirected, createdAt)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '10', ?, ?, ?, ?, ?)`);
  let commissions = 0;
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      // 90% of rows belong to the benchmarked shop; the rest spread over nine others.
      const shop = i % 10 === 9 ? OTHER_SHOPS[i % OTHER_SHOPS.length]! : SHOP;
      // Rows arrive in time order, as orders do (a few seconds of jitter), over the last year.
      const createdAt = now - 365 * DAY + Math.floor((i / ROWS) * 365 * DAY) + ((i * 7919) % 5_000);
      const outcome = pickOutcome(i);
      const attributed = outcome !== "unattributed" && outcome !== "skipped" && outcome !== "invalid";
      const verified = outcome === "matched" || outcome === "hijacked";
      const currency = CURRENCIES[i % CURRENCIES.length]!;
      const id = `v${i.toString(36).padStart(8, "0")}`;
      const orderId = String(5_000_000_000_000 + i);
      const creator = `creator-${i % 500}`;
      const arrived = outcome === "hijacked" ? ARRIVED[i % ARRIVED.length]! : "creator-tag";
      const source = attributed ? (i % 4 === 0 ? "landing_site" : "cart_attributes") : null;
      insertV.run(
        id,
        shop,
        orderId,
        `gid://shopify/Order/${orderId}`,
        `#${i}`,
        createdAt,
        outcome,
        source,
        attributed ? `click-${i}` : null,
        attributed ? arrived : null,
        attributed ? createdAt - 60_000 : null,
        "120.00",
        currency,
        verified ? "creator-tag" : null,
        verified ? creator : null,
        verified ? outcome : null,
        // A verdict from the landing record once the service forgot the click (one in 25), and
        // a cart whose attributes a script rewrote (one in 50): few, as in a real shop.
        verified ? (i % 25 === 0 ? "landing" : "service") : null,
        attributed && i % 50 === 7 ? 1 : 0,
        verified ? 1 : null,
        attributed ? createdAt + 3_600_000 : null,
        createdAt,
        createdAt,
        outcome ? createdAt + 5_000 : null,
      );
      if (verified) {
        const minor = currency === "JPY" ? 1200n : 1200n + BigInt(i % 100);
        const amount = currency === "JPY" ? "1200" : (Number(minor) / 100).toFixed(2);
        insertC.run(
          `c${i.toString(36).padStart(8, "0")}`,
          shop,
          id,
          orderId,
          `#${i}`,
          creator,
          "creator-tag",
          arrived,
          "120.00",
          currency,
          amount,
          minor,
          i % 20 === 0 ? "paid" : "pending",
          outcome === "hijacked" ? 1 : 0,
          createdAt + 5_000,
        );
        commissions++;
      }
    }
  });
  const CHUNK = 50_000;
  for (let from = 0; from < ROWS; from += CHUNK) batch(from, Math.min(ROWS, from + CHUNK));
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return { verifications: ROWS, commissions, seconds: (performance.now() - started) / 1000 };
}

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

export async function main(): Promise<boolean> {
  const dir = mkdtempSync(path.join(tmpdir(), "tag-guard-bench-"));
  const file = KEEP_DB ? path.resolve(KEEP_DB) : path.join(dir, "bench.sqlite");
  try {
    const now = Date.now();
    if (KEEP_DB && existsSync(file)) {
      console.log(`reusing ${file}`);
    } else {
      execFileSync("npx", ["prisma", "migrate", "deploy"], {
        env: { ...process.env, DATABASE_URL: `file:${file}` },
        stdio: "pipe",
      });
      const seeded = seed(file, now);
      console.log(
        `seeded ${seeded.verifications.toLocaleString("en")} verifications and ${seeded.commissions.toLocaleString("en")} commissions in ${seeded.seconds.toFixed(1)} s (${file})`,
      );
    }

    Object.assign(process.env, {
      NODE_ENV: "production",
      DATABASE_URL: `file:${file}`,
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
    const { periodStart } = await import("../app/units/periods");
    const prisma = (await import("../app/database/db.server")).databaseClient();

    // Query plans of the exact statements the pages run.
    const db = new Database(file, { readonly: true });
    const plans: { name: string; plan: string[]; scans: boolean }[] = [];
    const explain = (name: string, sql: { sql: string; values: unknown[] }) => {
      const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql.sql}`).all(...(sql.values as never[])) as { detail: string }[];
      const plan = rows.map((r) => r.detail);
      plans.push({
        name,
        plan,
        scans: plan.some((d) => /^SCAN (Verification|Commission|DataRequest)\b(?! USING)/.test(d)),
      });
    };
    for (const [name, sql] of Object.entries(dashboardQueries(SHOP, periodStart(90, new Date(now)))))
      explain(`dashboard.${name}`, sql);
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
      explain(`ledger.page[${name}]`, q.page);
      explain(`ledger.totals[${name}]`, q.totals);
    }
    const cursorQuery = ledgerQueries(
      SHOP,
      parseLedgerFilter(new URLSearchParams("")),
      { createdAt: now - 30 * DAY, id: "vzzzz" },
      51,
      new Date(now),
    );
    explain("ledger.page[after cursor]", cursorQuery.page);
    db.close();

    console.log("\nQuery plans (EXPLAIN QUERY PLAN):");
    for (const p of plans) console.log(`  ${p.scans ? "!!" : "ok"} ${p.name}: ${p.plan.join(" | ")}`);

    // Server time of the loaders' work (authentication excluded: it is a JWT check and one session read).
    const results: Awaited<ReturnType<typeof time>>[] = [];
    for (const days of [7, 30, 90] as const)
      results.push(await time(`dashboard ${days}d`, () => getDashboard(SHOP, days)));
    if (args.includes("--detail")) {
      for (const [name, sql] of Object.entries(dashboardQueries(SHOP, periodStart(90, new Date(now))))) {
        results.push(await time(`  90d ${name}`, () => prisma.$queryRaw(sql)));
      }
      for (const [name, query] of filters) {
        const q = ledgerQueries(SHOP, parseLedgerFilter(new URLSearchParams(query)), null, 51, new Date(now));
        results.push(await time(`  page ${name}`, () => prisma.$queryRaw(q.page)));
        results.push(await time(`  totals ${name}`, () => prisma.$queryRaw(q.totals)));
      }
    }
    for (const [name, query] of filters)
      results.push(await time(`ledger ${name}`, () => listLedger(SHOP, new URLSearchParams(query))));
    const { creatorTotals } = await import("../app/commissions/creators.server");
    const { payableBalances } = await import("../app/commissions/payable-balances.server");
    results.push(await time("creators page", () => creatorTotals(SHOP)));
    results.push(await time("payouts page (balances)", () => payableBalances(SHOP)));
    const first = await listLedger(SHOP, new URLSearchParams(""));
    let cursor = first.nextCursor;
    for (let i = 0; i < 20 && cursor; i++)
      cursor = (await listLedger(SHOP, new URLSearchParams({ cursor }))).nextCursor;
    if (cursor && decodeCursor(cursor))
      results.push(
        await time("ledger page 22 (cursor)", () => listLedger(SHOP, new URLSearchParams({ cursor: cursor! }))),
      );

    console.log(`\nServer time over ${RUNS} runs (budget ${BUDGET_MS} ms at p95):`);
    console.log(`  ${"query".padEnd(28)} ${"median".padStart(9)} ${"p95".padStart(9)}  under ${BUDGET_MS} ms`);
    for (const r of results)
      console.log(
        `  ${r.label.padEnd(28)} ${r.median.toFixed(1).padStart(7)}ms ${r.p95.toFixed(1).padStart(7)}ms  ${r.ok ? "yes" : "NO"}`,
      );
    await prisma.$disconnect();
    const ok = results.every((r) => r.ok) && plans.every((p) => !p.scans);
    if (args.includes("--json")) {
      const worst = (prefix: string) =>
        Math.max(0, ...results.filter((r) => r.label.startsWith(prefix)).map((r) => Number(r.p95.toFixed(1))));
      const summary = {
        rows: ROWS,
        dashboardP95Ms: worst("dashboard"),
        ledgerP95Ms: worst("ledger"),
        creatorsP95Ms: worst("creators"),
        payoutsP95Ms: worst("payouts"),
        indexedPlans: plans.every((p) => !p.scans),
      };
      console.log(`RESULT ${JSON.stringify(summary)}`);
    }
    return ok;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("admin-queries.bench.ts")) {
  main().then(
    (ok) => {
      console.log(
        ok ? "\nall admin queries within budget" : "\nsome admin queries are over budget or scan a table (see above)",
      );
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
