import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, inject, it } from "vitest";

// The committed migrations must build exactly the database the schema describes. (Prisma's own
// drift check cannot read a database through a driver adapter, so we compare the two by hand.)
// Triggers are the migrations' own addition (Prisma does not model them): tested by behaviour in
// tests/commissions/commission-day.test.ts.

/** Tables as sorted column definitions (ALTER TABLE appends columns) and indexes as SQL. */
function objects(file: string): Record<string, unknown> {
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

describe("migrations", () => {
  it("build the same tables and indexes as the schema", () => {
    const script = execFileSync(
      "npx",
      ["prisma", "migrate", "diff", "--from-empty", "--to-schema-datamodel", "prisma/schema.prisma", "--script"],
      {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const fromSchema = path.join(mkdtempSync(path.join(tmpdir(), "schema-")), "schema.sqlite");
    const db = new Database(fromSchema);
    db.exec(script);
    db.close();
    const migrated = objects(inject("templateDatabase"));
    expect(Object.keys(migrated).length).toBeGreaterThan(10);
    expect(migrated).toEqual(objects(fromSchema));
  });
});
