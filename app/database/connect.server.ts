import { createRequire } from "node:module";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type { PrismaClient } from "@prisma/client";
import { databaseDialect, databaseFile, type DatabaseDialect } from "../platform/database-url";
import { takeWritesInTurn } from "./sqlite-write-lock.server";

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

export interface DatabaseClientOptions {
  /** PostgreSQL: the most connections this client's pool opens (node-postgres's default, 10, when unset). */
  poolSize?: number;
}

/** The driver adapter for the URL: the app's client and Prisma's CLI (prisma.config.ts) both use it. */
export function databaseAdapter(url: string, options: DatabaseClientOptions = {}): PrismaBetterSQLite3 | PrismaPg {
  if (requireDialect(url) === "sqlite") {
    // Unix milliseconds: raw SQL compares and buckets timestamps as integers (decision 001).
    return new PrismaBetterSQLite3({ url: `file:${databaseFile(url)}` }, { timestampFormat: "unixepoch-ms" });
  }
  // Pipeline mode: a statement is sent without waiting for the answers to those before it on the
  // connection, so a transaction's BEGIN travels with its first statement (postgresql-driver.server.ts).
  return new PrismaPg({
    connectionString: url,
    pipeline: true,
    ...(options.poolSize !== undefined && { max: options.poolSize }),
  });
}

interface GeneratedClient {
  PrismaClient: new (options: { adapter: PrismaBetterSQLite3 | PrismaPg }) => PrismaClient;
  Prisma: { PrismaClientKnownRequestError: unknown };
}

/** One statement as a driver adapter takes it: placeholders in the dialect's style, typed arguments. */
export interface DriverQuery {
  sql: string;
  args: unknown[];
  argTypes: { scalarType: string; arity: "scalar" | "list" }[];
}

/** What the app uses of a connected driver adapter: the connection (or pool) Prisma itself runs on. */
export interface DriverQueryable {
  queryRaw(query: DriverQuery): Promise<{ columnNames: string[]; rows: unknown[][] }>;
  executeRaw(query: DriverQuery): Promise<number>;
}

export interface DriverTransaction extends DriverQueryable {
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

export interface ConnectedDriver extends DriverQueryable {
  startTransaction(): Promise<DriverTransaction>;
}

declare global {
  var databaseDrivers: WeakMap<PrismaClient, () => ConnectedDriver | undefined> | undefined;
}

// Global, as db.server.ts keeps its client: a module reload (development, tests) must still
// find the driver of the client it reuses.
const drivers = (globalThis.databaseDrivers ??= new WeakMap());

/**
 * The driver adapter the client is connected through, connecting it first if need be: raw SQL
 * sent here skips the client's runtime and query compiler (docs/lab/throughput-notes.md,
 * "Per-order statements on the driver (decision 016)") but shares its connection, its pool
 * and, on SQLite, its transaction lock.
 */
export async function connectedDriver(client: PrismaClient): Promise<ConnectedDriver> {
  const current = drivers.get(client);
  if (!current) throw new Error("the client was not made by createDatabaseClient");
  const connected = current();
  if (connected) return connected;
  await client.$connect();
  const driver = current();
  if (!driver) throw new Error("the database client did not connect its driver adapter");
  return driver;
}

/** A Prisma client on the URL's database, typed with the shared model types. */
export function createDatabaseClient(url: string, options: DatabaseClientOptions = {}): PrismaClient {
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
  const factory = databaseAdapter(url, options);
  let driver: ConnectedDriver | undefined;
  // The same factory, remembering what it connects (Prisma connects lazily, and again after a
  // disconnect), so connectedDriver reaches the connection the client uses.
  const remembering = {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => {
      const connected = await factory.connect();
      const adapter = factory.provider === "sqlite" ? takeWritesInTurn(connected as never) : connected;
      driver = adapter as unknown as ConnectedDriver;
      return adapter;
    },
    connectToShadowDb: () => factory.connectToShadowDb(),
  } as unknown as PrismaBetterSQLite3 | PrismaPg;
  const client = new generated.PrismaClient({ adapter: remembering });
  drivers.set(client, () => driver);
  return client;
}
