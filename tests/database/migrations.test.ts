import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, inject, it } from "vitest";
import { databaseDialect } from "../../app/platform/database-url";
import { onServer, postgresqlDatabaseUrl } from "../../sandbox/postgresql";
import { MIGRATIONS } from "../../prisma/tools/schemas";

// The committed migrations must build exactly the database the schema describes, on each
// database this file runs on (the "unit" project: SQLite; the "postgresql" project: PostgreSQL).
// Prisma's own drift check cannot read a database through a driver adapter, so we compare the
// two by hand. Triggers are the migrations' own addition (Prisma does not model them): tested
// by behaviour in tests/commissions/commission-day.test.ts.

const dialect = databaseDialect(process.env.DATABASE_URL!);

/** The SQL that builds the schema's tables from nothing, as Prisma writes it for that schema. */
function schemaScript(schema: string): string {
  return execFileSync(
    "npx",
    ["prisma", "migrate", "diff", "--from-empty", "--to-schema-datamodel", schema, "--script"],
    {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
}

/** Tables as sorted column definitions (ALTER TABLE appends columns) and indexes as SQL. */
function sqliteObjects(file: string): Record<string, unknown> {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db
      .prepare(
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND type != 'trigger' AND name NOT LIKE '_prisma_migrations%' AND name NOT LIKE 'sqlite_%'",
      )
      .all() as { type: string; name: string; sql: string }[];
    return Object.fromEntries(
      rows.map((row) => [
        `${row.type} ${row.name}`,
        row.type === "table"
          ? (db.prepare(`PRAGMA table_info("${row.name}")`).all() as { name: string }[])
              .map(({ name, ...rest }) => ({ name, ...rest, cid: undefined }))
              .sort((a, b) => a.name.localeCompare(b.name))
          : row.sql.replace(/\s+/g, " ").trim(),
      ]),
    );
  } finally {
    db.close();
  }
}

/** Columns (by name, so ALTER TABLE's order does not matter), indexes and constraints, from the catalogs. */
function postgresqlObjects(url: string): Promise<Record<string, unknown>> {
  return onServer(url, async (client) => {
    const objects: Record<string, unknown> = {};
    const columns = await client.query<Record<string, string | null>>(`
      SELECT table_name, column_name, data_type, datetime_precision::text, is_nullable, column_default
      FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name <> '_prisma_migrations'
      ORDER BY table_name, column_name`);
    for (const { table_name, column_name, ...definition } of columns.rows)
      objects[`column ${table_name}.${column_name}`] = definition;
    const indexes = await client.query<{ indexname: string; indexdef: string }>(`
      SELECT indexname::text, indexdef FROM pg_indexes
      WHERE schemaname = current_schema() AND tablename <> '_prisma_migrations'`);
    for (const { indexname, indexdef } of indexes.rows) objects[`index ${indexname}`] = indexdef;
    const constraints = await client.query<{ name: string; definition: string }>(`
      SELECT t.relname || '.' || c.conname AS name, pg_get_constraintdef(c.oid) AS definition
      FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = current_schema() AND t.relname <> '_prisma_migrations'`);
    for (const { name, definition } of constraints.rows) objects[`constraint ${name}`] = definition;
    return objects;
  });
}

describe.runIf(dialect === "sqlite")("SQLite migrations", () => {
  it("build the same tables and indexes as the schema", () => {
    const fromSchema = path.join(mkdtempSync(path.join(tmpdir(), "schema-")), "schema.sqlite");
    const db = new Database(fromSchema);
    db.exec(schemaScript("prisma/schema.prisma"));
    db.close();
    const migrated = sqliteObjects(inject("templateDatabase"));
    expect(Object.keys(migrated).length).toBeGreaterThan(10);
    expect(migrated).toEqual(sqliteObjects(fromSchema));
  });
});

describe.runIf(dialect === "postgresql")("PostgreSQL migrations", () => {
  it("build the same tables, indexes and constraints as the derived schema", async () => {
    const server = inject("postgresql")!;
    const fromSchema = `${server.prefix}_from_schema`;
    await onServer(server.serverUrl, async (client) => {
      await client.query(`CREATE DATABASE "${fromSchema}"`);
    });
    const script = schemaScript("prisma/postgresql/schema.prisma");
    // One simple query: PostgreSQL runs the whole script in one transaction.
    await onServer(postgresqlDatabaseUrl(server.serverUrl, fromSchema), (client) => client.query(script));

    const migrated = await postgresqlObjects(process.env.DATABASE_URL!);
    expect(Object.keys(migrated).length).toBeGreaterThan(60);
    expect(migrated).toEqual(await postgresqlObjects(postgresqlDatabaseUrl(server.serverUrl, fromSchema)));
  });
});

// A backfill is SQL Prisma does not write: it is run here on rows as the previous release left
// them, through the committed migrations themselves (each file in order, as Prisma applies them).

/** The committed migrations of the dialect, oldest first: each folder's name and its SQL. */
function migrationFiles(): { name: string; sql: string }[] {
  const dir = MIGRATIONS[dialect!];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => ({ name, sql: readFileSync(path.join(dir, name, "migration.sql"), "utf8") }));
}

/** Migrations before `name`, then `name` itself. */
function around(name: string) {
  const all = migrationFiles();
  const at = all.findIndex((migration) => migration.name === name);
  expect(at).toBeGreaterThan(0);
  return { before: all.slice(0, at), migration: all[at]! };
}

interface OldRows {
  /** A statement with ? parameters; a Date is written as the app writes times on that database. */
  run(statement: string, ...values: (string | number | Date)[]): Promise<unknown>;
  /** Each entry's id and dueAt as ISO text (null when none). */
  dues(): Promise<{ id: string; dueAt: string | null }[]>;
}

/** A database built by the migrations before `name`, given to `work` and then to `name`'s migration. */
async function migratedUpTo(name: string, work: (db: OldRows, migrate: () => Promise<void>) => Promise<void>) {
  const { before, migration } = around(name);
  if (dialect === "sqlite") {
    const db = new Database(path.join(mkdtempSync(path.join(tmpdir(), "backfill-")), "backfill.sqlite"));
    try {
      for (const { sql } of before) db.exec(sql);
      await work(
        {
          // Unix milliseconds, as the adapter is told to write them (app/database/connect.server.ts).
          run: async (statement, ...values) =>
            db.prepare(statement).run(...values.map((value) => (value instanceof Date ? value.getTime() : value))),
          dues: async () =>
            (
              db.prepare('SELECT "id", "dueAt" FROM "CommissionEntry" ORDER BY "id"').all() as {
                id: string;
                dueAt: number | null;
              }[]
            ).map((row) => ({ id: row.id, dueAt: row.dueAt === null ? null : new Date(row.dueAt).toISOString() })),
        },
        async () => void db.exec(migration.sql),
      );
    } finally {
      db.close();
    }
    return;
  }
  const server = inject("postgresql")!;
  const database = `${server.prefix}_backfill`;
  await onServer(server.serverUrl, (client) => client.query(`CREATE DATABASE "${database}"`));
  await onServer(postgresqlDatabaseUrl(server.serverUrl, database), async (client) => {
    for (const { sql } of before) await client.query(sql);
    // PostgreSQL numbers its parameters; the statements here are written with ?, as SQLite's.
    const numbered = (statement: string) => {
      let n = 0;
      return statement.replace(/\?/g, () => `$${++n}`);
    };
    await work(
      {
        run: (statement, ...values) =>
          client.query(
            numbered(statement),
            // UTC wall time: a zone in the text is ignored for a column without one, as Prisma writes it.
            values.map((value) => (value instanceof Date ? value.toISOString() : value)),
          ),
        dues: async () =>
          (
            await client.query<{ id: string; dueAt: string | null }>(
              `SELECT "id", to_char("dueAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "dueAt" FROM "CommissionEntry" ORDER BY "id"`,
            )
          ).rows,
      },
      async () => void (await client.query(migration.sql)),
    );
  });
}

describe("the migration that keeps a top-up's due time", () => {
  it("gives each top-up its shop's hold from when it was written, the default hold without settings, and nothing else a due time", async () => {
    const written = new Date("2026-11-20T10:00:00.000Z");
    const day = 24 * 60 * 60 * 1000;
    const at = (ms: number) => new Date(written.getTime() + ms);
    await migratedUpTo("20261128090000_top_up_due_and_found_edits", async (db, migrate) => {
      await db.run(
        `INSERT INTO "ShopSettings" ("shop", "clickServiceUrl", "apiKeySealed", "apiKeyLast4", "holdDays", "createdAt", "updatedAt")
         VALUES (?, 'https://clicks.example.com', 'sealed', '1234', 14, ?, ?)`,
        "held.myshopify.com",
        written,
        written,
      );
      for (const shop of ["held.myshopify.com", "bare.myshopify.com"]) {
        await db.run(
          `INSERT INTO "Verification" ("id", "shop", "orderId", "orderGid", "orderCreatedAt", "orderFacts", "createdAt", "updatedAt")
           VALUES (?, ?, '1', 'gid://shopify/Order/1', ?, '{}', ?, ?)`,
          `v-${shop}`,
          shop,
          written,
          written,
          written,
        );
        await db.run(
          `INSERT INTO "Commission" ("id", "shop", "verificationId", "orderId", "creatorId", "expectedTag", "arrivedTag", "orderValue", "currency", "rate", "amount", "amountMinor", "status", "createdAt")
           VALUES (?, ?, ?, '1', 'cr_a', 'a-20', 'a-20', '250.00', 'USD', '10', '25.00', 2500, 'paid', ?)`,
          `c-${shop}`,
          shop,
          `v-${shop}`,
          written,
        );
      }
      const entry = (id: string, shop: string, kind: string, amountMinor: number, createdAt: Date) =>
        db.run(
          `INSERT INTO "CommissionEntry" ("id", "shop", "commissionId", "kind", "amountMinor", "amount", "createdAt")
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          id,
          shop,
          `c-${shop}`,
          kind,
          amountMinor,
          (amountMinor / 100).toFixed(2),
          createdAt,
        );
      await entry("1-credit", "held.myshopify.com", "credit", 2000, at(-day));
      await entry("2-top-up-held", "held.myshopify.com", "top_up", 500, written);
      await entry("3-clawback", "held.myshopify.com", "clawback", -100, written);
      await entry("4-top-up-bare", "bare.myshopify.com", "top_up", 500, at(1));
      await migrate();
      expect(await db.dues()).toEqual([
        { id: "1-credit", dueAt: null },
        { id: "2-top-up-held", dueAt: at(14 * day).toISOString() },
        { id: "3-clawback", dueAt: null },
        { id: "4-top-up-bare", dueAt: at(1 + 30 * day).toISOString() },
      ]);
    });
  });
});
