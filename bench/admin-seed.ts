import Database from "better-sqlite3";
import pg from "pg";
import { performance } from "node:perf_hooks";

// The admin bench's data: `rows` orders as the pipeline leaves them, the same on SQLite and
// PostgreSQL (one generator, seedOrder, feeds both), so the two databases' figures compare the
// databases, not two data sets. A commission for every verified order, a discount code on one
// order in ten.

export const SHOP = "bench-shop.myshopify.com";
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
const CODES = ["SAVE10", "WELCOME", "VIP20", "FREESHIP", "HONEY15", "spring-sale", "BFCM30", "FRIENDS"];

function pickOutcome(i: number): string | null {
  let slot = (i * 7919) % 1000;
  for (const [outcome, weight] of MIX) {
    if (slot < weight) return outcome;
    slot -= weight;
  }
  return "unattributed";
}

/** One order: its Verification, its Commission when verified, its discount code when it had one. Times in Unix ms. */
export function seedOrder(i: number, rows: number, now: number) {
  // 90% of rows belong to the benchmarked shop; the rest spread over nine others.
  const shop = i % 10 === 9 ? OTHER_SHOPS[i % OTHER_SHOPS.length]! : SHOP;
  // Rows arrive in time order, as orders do (a few seconds of jitter), over the last year.
  const createdAt = now - 365 * DAY + Math.floor((i / rows) * 365 * DAY) + ((i * 7919) % 5_000);
  const outcome = pickOutcome(i);
  const attributed = outcome !== "unattributed" && outcome !== "skipped" && outcome !== "invalid";
  const verified = outcome === "matched" || outcome === "hijacked";
  const currency = CURRENCIES[i % CURRENCIES.length]!;
  const id = `v${i.toString(36).padStart(8, "0")}`;
  const orderId = String(5_000_000_000_000 + i);
  const creator = `creator-${i % 500}`;
  const arrived = outcome === "hijacked" ? ARRIVED[i % ARRIVED.length]! : "creator-tag";
  const minor = currency === "JPY" ? 1200n : 1200n + BigInt(i % 100);
  const codeMinor = currency === "JPY" ? 500n : 500n + BigInt(i % 1000);
  return {
    verification: {
      id,
      shop,
      orderId,
      orderGid: `gid://shopify/Order/${orderId}`,
      orderName: `#${i}`,
      orderCreatedAt: createdAt,
      outcome,
      captureSource: attributed ? (i % 4 === 0 ? "landing_site" : "cart_attributes") : null,
      clickId: attributed ? `click-${i}` : null,
      arrivedTag: attributed ? arrived : null,
      capturedAt: attributed ? createdAt - 60_000 : null,
      orderValue: "120.00",
      currency,
      expectedTag: verified ? "creator-tag" : null,
      creatorId: verified ? creator : null,
      verdict: verified ? outcome : null,
      // A verdict from the landing record once the service forgot the click (one in 25), and
      // a cart whose attributes a script rewrote (one in 50): few, as in a real shop.
      verdictSource: verified ? (i % 25 === 0 ? "landing" : "service") : null,
      tampered: attributed && i % 50 === 7,
      recorded: verified ? true : null,
      deadlineAt: attributed ? createdAt + 3_600_000 : null,
      createdAt,
      updatedAt: createdAt,
      completedAt: outcome ? createdAt + 5_000 : null,
    },
    commission: verified
      ? {
          id: `c${i.toString(36).padStart(8, "0")}`,
          creatorId: creator,
          arrivedTag: arrived,
          amount: currency === "JPY" ? "1200" : (Number(minor) / 100).toFixed(2),
          amountMinor: minor,
          status: i % 20 === 0 ? "paid" : "pending",
          redirected: outcome === "hijacked",
          createdAt: createdAt + 5_000,
        }
      : null,
    code:
      i % 10 === 3
        ? {
            id: `d${i.toString(36).padStart(8, "0")}`,
            code: CODES[Math.floor(i / 10) % CODES.length]!,
            amount: currency === "JPY" ? "500" : (Number(codeMinor) / 100).toFixed(2),
            amountMinor: codeMinor,
          }
        : null,
  };
}

export interface Seeded {
  verifications: number;
  commissions: number;
  codes: number;
  seconds: number;
}

const V_COLUMNS = [
  "id",
  "shop",
  "orderId",
  "orderGid",
  "orderName",
  "orderCreatedAt",
  "outcome",
  "captureSource",
  "clickId",
  "arrivedTag",
  "capturedAt",
  "orderValue",
  "currency",
  "expectedTag",
  "creatorId",
  "verdict",
  "verdictSource",
  "tampered",
  "recorded",
  "deadlineAt",
  "createdAt",
  "updatedAt",
  "completedAt",
] as const;
const TIMES = new Set(["orderCreatedAt", "capturedAt", "deadlineAt", "createdAt", "updatedAt", "completedAt"]);
const C_COLUMNS = [
  "id",
  "shop",
  "verificationId",
  "orderId",
  "orderName",
  "creatorId",
  "expectedTag",
  "arrivedTag",
  "orderValue",
  "currency",
  "rate",
  "amount",
  "amountMinor",
  "status",
  "redirected",
  "createdAt",
] as const;
const D_COLUMNS = [
  "id",
  "shop",
  "verificationId",
  "orderId",
  "code",
  "amount",
  "amountMinor",
  "type",
  "currency",
  "createdAt",
] as const;

/** The three tables' rows of orders [from, to), as column name to value. */
function batchRows(from: number, to: number, rows: number, now: number) {
  const verifications: Record<string, unknown>[] = [];
  const commissions: Record<string, unknown>[] = [];
  const codes: Record<string, unknown>[] = [];
  for (let i = from; i < to; i++) {
    const { verification: v, commission: c, code } = seedOrder(i, rows, now);
    verifications.push(v);
    if (c)
      commissions.push({
        ...c,
        shop: v.shop,
        verificationId: v.id,
        orderId: v.orderId,
        orderName: v.orderName,
        expectedTag: "creator-tag",
        orderValue: v.orderValue,
        currency: v.currency,
        rate: "10",
      });
    if (code)
      codes.push({
        ...code,
        shop: v.shop,
        verificationId: v.id,
        orderId: v.orderId,
        type: "fixed_amount",
        currency: v.currency,
        createdAt: v.createdAt,
      });
  }
  return { verifications, commissions, codes };
}

const CHUNK = 50_000;
const quote = (names: readonly string[]) => names.map((name) => `"${name}"`).join(", ");

export function seedSqlite(file: string, rows: number, now: number): Seeded {
  const started = performance.now();
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = OFF");
  const insert = (table: string, columns: readonly string[], extra: Record<string, string>) => {
    const statement = db.prepare(
      `INSERT INTO "${table}" (${quote([...columns, ...Object.keys(extra)])}) VALUES (${[...columns.map(() => "?"), ...Object.values(extra)].join(", ")})`,
    );
    // SQLite keeps times as Unix ms and booleans as 0/1 (decision 001).
    return (row: Record<string, unknown>) =>
      statement.run(...columns.map((name) => (typeof row[name] === "boolean" ? (row[name] ? 1 : 0) : row[name])));
  };
  const insertV = insert("Verification", V_COLUMNS, { orderFacts: "'{}'" });
  const insertC = insert("Commission", C_COLUMNS, {});
  const insertD = insert("OrderDiscountCode", D_COLUMNS, {});
  const counts = { commissions: 0, codes: 0 };
  const batch = db.transaction((from: number, to: number) => {
    const { verifications, commissions, codes } = batchRows(from, to, rows, now);
    verifications.forEach(insertV);
    commissions.forEach(insertC);
    codes.forEach(insertD);
    counts.commissions += commissions.length;
    counts.codes += codes.length;
  });
  for (let from = 0; from < rows; from += CHUNK) batch(from, Math.min(rows, from + CHUNK));
  // The triggers appended a loose row per order; the app's fold would leave one row per key,
  // as the migrations' backfills do.
  db.exec(`DELETE FROM "CommissionDay";
    INSERT INTO "CommissionDay" ("id", "shop", "day", "currency", "status", "redirected", "amountMinor", "records", "loose")
    SELECT lower(hex(randomblob(16))), "shop", "createdAt" / 86400000, "currency", "status", "redirected", SUM("amountMinor"), COUNT(*), 0
    FROM "Commission" GROUP BY "shop", "createdAt" / 86400000, "currency", "status", "redirected";
    DELETE FROM "CommissionCreator";
    INSERT INTO "CommissionCreator" ("id", "shop", "creatorId", "currency", "status", "redirected", "amountMinor", "records", "loose")
    SELECT lower(hex(randomblob(16))), "shop", "creatorId", "currency", "status", "redirected", SUM("amountMinor"), COUNT(*), 0
    FROM "Commission" GROUP BY "shop", "creatorId", "currency", "status", "redirected";
    DELETE FROM "VerificationHour";
    INSERT INTO "VerificationHour" ("id", "shop", "hour", "outcome", "source", "q0", "q1", "q2", "q3", "loose")
    SELECT lower(hex(randomblob(16))), "shop", "createdAt" / 3600000, "outcome", COALESCE("captureSource", ''),
           SUM(("createdAt" % 3600000) / 900000 = 0), SUM(("createdAt" % 3600000) / 900000 = 1),
           SUM(("createdAt" % 3600000) / 900000 = 2), SUM(("createdAt" % 3600000) / 900000 = 3), 0
    FROM "Verification" WHERE "outcome" IS NOT NULL
    GROUP BY "shop", "createdAt" / 3600000, "outcome", COALESCE("captureSource", '')`);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return { verifications: rows, ...counts, seconds: (performance.now() - started) / 1000 };
}

/**
 * The same rows on PostgreSQL, a chunk per statement: each column as one array parameter,
 * unnested into rows (INSERT ... SELECT FROM unnest), so 50,000 orders cost one round trip.
 * The rollup triggers and foreign-key checks are off while seeding (session_replication_role =
 * replica); CommissionDay, CommissionCreator, VerificationHour and the codes' order facts are then filled as their
 * migrations' backfills fill them. ANALYZE and VACUUM
 * at the end leave what autovacuum leaves a table of this age: statistics and a visibility map.
 */
export async function seedPostgresql(url: string, rows: number, now: number): Promise<Seeded> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // Types by name where a first row may hold NULL (times, recorded), else by value.
  const typeOf = (name: string, sample: unknown) =>
    TIMES.has(name) || typeof sample === "bigint"
      ? "bigint"
      : name === "recorded" || typeof sample === "boolean"
        ? "boolean"
        : "text";
  const insert = async (
    table: string,
    columns: readonly string[],
    rowsOf: Record<string, unknown>[],
    extra: Record<string, string>,
  ) => {
    if (rowsOf.length === 0) return;
    const types = columns.map((name) => typeOf(name, rowsOf[0]![name]));
    // Times go as Unix ms and become timestamps without zone, in UTC (decision 001).
    const select = columns.map((name, k) =>
      TIMES.has(name) ? `to_timestamp(c${k} / 1000.0) AT TIME ZONE 'UTC'` : `c${k}`,
    );
    await client.query(
      `INSERT INTO "${table}" (${quote([...columns, ...Object.keys(extra)])})
       SELECT ${[...select, ...Object.values(extra)].join(", ")}
       FROM unnest(${columns.map((_, k) => `$${k + 1}::${types[k]}[]`).join(", ")}) AS t(${columns.map((_, k) => `c${k}`).join(", ")})`,
      columns.map((name) =>
        rowsOf.map((row) => (typeof row[name] === "bigint" ? String(row[name]) : (row[name] ?? null))),
      ),
    );
  };
  const counts = { commissions: 0, codes: 0 };
  try {
    await client.query("SET session_replication_role = replica");
    for (let from = 0; from < rows; from += CHUNK) {
      const { verifications, commissions, codes } = batchRows(from, Math.min(rows, from + CHUNK), rows, now);
      await insert("Verification", V_COLUMNS, verifications, { orderFacts: "'{}'" });
      await insert("Commission", C_COLUMNS, commissions, {});
      await insert("OrderDiscountCode", D_COLUMNS, codes, {});
      counts.commissions += commissions.length;
      counts.codes += codes.length;
    }
    await client.query(`INSERT INTO "CommissionDay" ("id", "shop", "day", "currency", "status", "redirected", "amountMinor", "records", "loose")
      SELECT gen_random_uuid()::text, "shop", "createdAt"::date - DATE '1970-01-01', "currency", "status", "redirected", SUM("amountMinor"), COUNT(*), false
      FROM "Commission" GROUP BY 2, 3, 4, 5, 6`);
    await client.query(`INSERT INTO "VerificationHour" ("id", "shop", "hour", "outcome", "source", "q0", "q1", "q2", "q3", "loose")
      SELECT gen_random_uuid()::text, "shop", "hour", "outcome", "source", SUM(CAST("quarter" = 0 AS integer)),
             SUM(CAST("quarter" = 1 AS integer)), SUM(CAST("quarter" = 2 AS integer)), SUM(CAST("quarter" = 3 AS integer)), false
      FROM (SELECT "shop", "outcome", COALESCE("captureSource", '') AS "source",
                   CAST(EXTRACT(EPOCH FROM date_trunc('hour', "createdAt")) / 3600 AS integer) AS "hour",
                   CAST(EXTRACT(MINUTE FROM "createdAt") AS integer) / 15 AS "quarter"
            FROM "Verification" WHERE "outcome" IS NOT NULL) AS "decided"
      GROUP BY "shop", "hour", "outcome", "source"`);
    await client.query(`INSERT INTO "CommissionCreator" ("id", "shop", "creatorId", "currency", "status", "redirected", "amountMinor", "records", "loose")
      SELECT gen_random_uuid()::text, "shop", "creatorId", "currency", "status", "redirected", SUM("amountMinor"), COUNT(*), false
      FROM "Commission" GROUP BY "shop", "creatorId", "currency", "status", "redirected"`);
    await client.query(`UPDATE "OrderDiscountCode" AS d SET "clicked" = v."clickId" IS NOT NULL,
        "hijacked" = COALESCE(v."outcome" = 'hijacked', false), "orderCreatedAt" = v."orderCreatedAt",
        "redirectedMinor" = COALESCE((SELECT CASE WHEN c."redirected" THEN c."amountMinor" ELSE 0 END FROM "Commission" AS c
                                      WHERE c."verificationId" = d."verificationId"), 0)
      FROM "Verification" AS v WHERE v."id" = d."verificationId"`);
    await client.query("SET session_replication_role = DEFAULT");
    await client.query("ANALYZE");
    // A VACUUM beside autovacuum's ANALYZE of the new rows (its snapshot holds them back) leaves
    // pages unmarked, and every index-only scan then reads the table too: vacuum until the
    // seeded tables are all-visible, as an old table is.
    for (let attempt = 0; attempt < 10; attempt++) {
      await client.query(
        `VACUUM "Verification", "VerificationHour", "Commission", "CommissionCreator", "OrderDiscountCode"`,
      );
      const { rows: behind } = await client.query(
        `SELECT relname FROM pg_class WHERE relname IN ('Verification', 'VerificationHour', 'Commission', 'CommissionCreator', 'OrderDiscountCode') AND relallvisible < relpages`,
      );
      if (behind.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  } finally {
    await client.end();
  }
  return { verifications: rows, ...counts, seconds: (performance.now() - started) / 1000 };
}
