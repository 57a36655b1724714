import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { derivePostgresqlSchema, readDerivedSchema } from "../../prisma/tools/postgresql-schema";
import { SCHEMAS } from "../../prisma/tools/schemas";

// prisma/schema.prisma is the one source of the models; the committed PostgreSQL schema is
// derived from it, and the PostgreSQL migrations are held to that (migrations.test.ts).

describe("the PostgreSQL schema", () => {
  it("is what prisma/schema.prisma derives (else: npm run migration:postgresql -- <name>)", () => {
    expect(readFileSync(SCHEMAS.postgresql, "utf8")).toBe(readDerivedSchema());
  });

  it("differs from the SQLite schema only in its provider, its client's folder and a header", () => {
    const sqlite = readFileSync(SCHEMAS.sqlite, "utf8");
    const derived = derivePostgresqlSchema(sqlite);
    expect(derived).toMatch(/datasource db \{\s*provider = "postgresql"/);
    expect(derived).toContain('output     = "../../node_modules/.prisma/client-postgresql"');
    const changed = derived.split("\n").filter((line) => !sqlite.split("\n").includes(line));
    expect(changed.filter((line) => !line.startsWith("//"))).toEqual([
      '  output     = "../../node_modules/.prisma/client-postgresql"',
      '  provider = "postgresql"',
    ]);
  });

  it("refuses a SQLite schema whose shape it does not know, instead of guessing", () => {
    expect(() => derivePostgresqlSchema('datasource db {\n  provider = "mysql"\n}\n')).toThrow(
      /exactly one datasource block with provider = "sqlite"/,
    );
  });
});
