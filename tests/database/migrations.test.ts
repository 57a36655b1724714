import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, inject, it } from "vitest";
import { databaseDialect } from "../../app/platform/database-url";
import { onServer, postgresqlDatabaseUrl } from "../../sandbox/postgresql";

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
