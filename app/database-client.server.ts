import { createRequire } from "node:module";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type { PrismaClient } from "@prisma/client";
import { databaseDialect, databaseFile, type DatabaseDialect } from "./database-url";

// DATABASE_URL alone picks the database. Prisma fixes the provider per schema, so each dialect
// has its own generated client (prisma/tools/generate-clients.mjs); both come from the same
// models, so the app types everything with @prisma/client's (SQLite) types and runs whichever
// client the URL names (docs/decisions/007-sqlite-and-postgresql-from-one-code-base.md).

/** Where the PostgreSQL client is generated; the SQLite one keeps Prisma's default. */
export const POSTGRESQL_CLIENT_MODULE = ".prisma/client-postgresql";

const CLIENT_MODULES: Record<DatabaseDialect, string> = {
  sqlite: "@prisma/client",
  postgresql: POSTGRESQL_CLIENT_MODULE,
};

export function requireDialect(url: string): DatabaseDialect {
  const dialect = databaseDialect(url);
  if (!dialect) throw new Error("DATABASE_URL must start with file: (SQLite) or postgresql:// (PostgreSQL)");
  return dialect;
}

/** The driver adapter for the URL: the app's client and Prisma's CLI (prisma.config.ts) both use it. */
export function databaseAdapter(url: string): PrismaBetterSQLite3 | PrismaPg {
  if (requireDialect(url) === "sqlite") {
    // Unix milliseconds: raw SQL compares and buckets timestamps as integers (decision 001).
    return new PrismaBetterSQLite3({ url: `file:${databaseFile(url)}` }, { timestampFormat: "unixepoch-ms" });
  }
  return new PrismaPg({ connectionString: url });
}

interface GeneratedClient {
  PrismaClient: new (options: { adapter: PrismaBetterSQLite3 | PrismaPg }) => PrismaClient;
  Prisma: { PrismaClientKnownRequestError: unknown };
}

/** A Prisma client on the URL's database, typed with the shared model types. */
export function createDatabaseClient(url: string): PrismaClient {
  // Loaded at run time by module name, so the production build keeps using the generated
  // clients in node_modules rather than bundling one of them.
  const require = createRequire(import.meta.url);
  let generated: GeneratedClient;
  try {
    generated = require(CLIENT_MODULES[requireDialect(url)]) as GeneratedClient;
  } catch (error) {
    throw new Error(`the Prisma client for DATABASE_URL is not generated: run \`npm run setup\` (${String(error)})`);
  }
  // The app tests `instanceof Prisma.PrismaClientKnownRequestError` (unique violations, lost
  // leases) with @prisma/client's class: both clients must share its runtime, which
  // prisma/tools/generate-clients.mjs arranges and a bare `prisma generate` undoes.
  const shared = (require("@prisma/client") as GeneratedClient).Prisma.PrismaClientKnownRequestError;
  if (generated.Prisma.PrismaClientKnownRequestError !== shared)
    throw new Error("the PostgreSQL Prisma client does not share @prisma/client's runtime: run `npm run setup`");
  return new generated.PrismaClient({ adapter: databaseAdapter(url) });
}
