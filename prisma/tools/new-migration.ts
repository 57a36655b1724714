import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { DatabaseDialect } from "../../app/platform/database-url";
import { readDerivedSchema } from "./postgresql-schema";
import { prisma } from "./prisma-cli";
import { MIGRATIONS, SCHEMAS } from "./schemas";

// After changing prisma/schema.prisma, one command per database writes its migration, offline:
//   npm run migration:sqlite -- 20261122090000_refund_entries
//   npm run migration:postgresql -- 20261122090000_refund_entries
// (a name without the timestamp gets the current UTC time). `prisma migrate dev` cannot do it
// here: it needs a live database and, through a driver adapter, a shadow database too.
//
// SQLite: the committed migrations are applied to a throwaway file, Prisma reads back what they
// built (db pull), and the migration is the difference from that to the schema.
// PostgreSQL: the derived schema is rewritten from prisma/schema.prisma, and the migration is the
// difference from the committed derived schema, which tests/database/migrations.test.ts holds
// equal to what the PostgreSQL migrations build.
// Hand-written SQL that Prisma cannot model (triggers, backfills) goes at the end of the file.

const EMPTY = "-- This is an empty migration.";

function folderName(name: string | undefined): string {
  if (!name || !/^(\d{14}_)?[a-z0-9]+(_[a-z0-9]+)*$/.test(name))
    throw new Error("name the migration in snake_case, e.g. refund_entries or 20261122090000_refund_entries");
  if (/^\d{14}_/.test(name)) return name;
  const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
  return `${stamp}_${name}`;
}

/** What the committed SQLite migrations build, as a Prisma schema. */
function migratedSqliteSchema(dir: string): string {
  const url = `file:${path.join(dir, "migrated.sqlite")}`;
  prisma(["migrate", "deploy"], url);
  const pulled = path.join(dir, "migrated.prisma");
  writeFileSync(
    pulled,
    'generator client {\n  provider   = "prisma-client-js"\n  engineType = "client"\n}\n\n' +
      'datasource db {\n  provider = "sqlite"\n  url      = env("DATABASE_URL")\n}\n',
  );
  prisma(["db", "pull", "--schema", pulled], url);
  return pulled;
}

function diff(from: string, to: string, dir: string): string {
  // Prisma opens the configured adapter even to compare two schema files; a throwaway SQLite
  // file satisfies it, and the SQL is written for the schemas' own provider.
  const script = prisma(
    ["migrate", "diff", "--from-schema-datamodel", from, "--to-schema-datamodel", to, "--script"],
    `file:${path.join(dir, "diff.sqlite")}`,
  );
  // Only emitted for a live PostgreSQL connection; it would need CREATE on the database.
  return script.replace(/-- CreateSchema\nCREATE SCHEMA IF NOT EXISTS "public";\n\n/, "").trim();
}

function main(): number {
  const [dialect, name] = process.argv.slice(2) as [DatabaseDialect | undefined, string | undefined];
  if (dialect !== "sqlite" && dialect !== "postgresql")
    throw new Error("usage: new-migration.ts sqlite|postgresql NAME");
  const folder = path.join(MIGRATIONS[dialect], folderName(name));
  if (existsSync(folder)) throw new Error(`${path.relative(process.cwd(), folder)} already exists`);

  const dir = mkdtempSync(path.join(tmpdir(), "tag-guard-migration-"));
  try {
    let script: string;
    if (dialect === "sqlite") {
      script = diff(migratedSqliteSchema(dir), SCHEMAS.sqlite, dir);
    } else {
      const next = path.join(dir, "schema.prisma");
      writeFileSync(next, readDerivedSchema());
      script = diff(SCHEMAS.postgresql, next, dir);
      // Comments and other changes that alter no table still belong in the derived schema.
      writeFileSync(SCHEMAS.postgresql, readFileSync(next, "utf8"));
    }
    if (script === EMPTY || script === "") {
      console.log(`No ${dialect} migration needed: the migrations already build what the schema describes.`);
      return 0;
    }
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, "migration.sql"), `${script}\n`);
    console.log(`Wrote ${path.relative(process.cwd(), path.join(folder, "migration.sql"))}:\n\n${script}\n`);
    console.log("Review it, add any SQL Prisma cannot model, then `npm run setup` (both clients, and the migrations).");
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  process.exit(main());
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
