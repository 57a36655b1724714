import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, inject, it } from "vitest";

// The committed migrations must build exactly the database the schema describes. (Prisma's own
// drift check cannot read a database through a driver adapter, so we compare the two by hand.)

function objects(file: string): Record<string, string> {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db
      .prepare("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE '_prisma_migrations%' AND name NOT LIKE 'sqlite_%'")
      .all() as { type: string; name: string; sql: string }[];
    return Object.fromEntries(rows.map((row) => [`${row.type} ${row.name}`, row.sql.replace(/\s+/g, " ").trim()]));
  } finally {
    db.close();
  }
}

describe("migrations", () => {
  it("build the same tables and indexes as the schema", () => {
    const script = execFileSync("npx", ["prisma", "migrate", "diff", "--from-empty", "--to-schema-datamodel", "prisma/schema.prisma", "--script"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    const fromSchema = path.join(mkdtempSync(path.join(tmpdir(), "schema-")), "schema.sqlite");
    const db = new Database(fromSchema);
    db.exec(script);
    db.close();
    const migrated = objects(inject("templateDatabase"));
    expect(Object.keys(migrated).length).toBeGreaterThan(10);
    expect(migrated).toEqual(objects(fromSchema));
  });
});
