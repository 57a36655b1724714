import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Prisma } from "@prisma/client";
import pg from "pg";

// The one file that reaches parts of Prisma its packages do not promise (decision 024). Each is
// here because a public way costs more where the app spends its time (docs/database.md): the
// SQLite adapter's better-sqlite3 connection (its protected `client`), for statements prepared
// once and run on it directly; that connection's `prepare`, rewritten so the adapter's
// transactions begin IMMEDIATE; and the generated client's `Prisma.dmmf`, for the types of the
// columns raw rows are read back into. Each is checked when the app starts (checkClient) or
// connects (checkAdapter), with an error that names the package and version that changed.

/** What the app uses of a better-sqlite3 Database. */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
}

export interface SqliteStatement {
  readonly reader: boolean;
  readonly readonly: boolean;
  all(...args: unknown[]): Record<string, unknown>[];
  run(...args: unknown[]): { changes: number };
}

/** The installed version of a package, from the package.json above its entry (not every package exports it). */
function versionOf(name: string): string {
  try {
    let dir = path.dirname(createRequire(import.meta.url).resolve(name));
    for (; dir !== path.dirname(dir); dir = path.dirname(dir)) {
      const file = path.join(dir, "package.json");
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (manifest.name === name && manifest.version) return manifest.version;
    }
  } catch {
    // not installed, or not resolvable from here: said below
  }
  return "(version unknown)";
}

function changed(name: string, what: string): Error {
  return new Error(
    `${name} ${versionOf(name)} no longer has ${what}, which the app relies on ` +
      "(app/database/prisma-internals.server.ts): keep the version in package.json, or move the app off it",
  );
}

/** The better-sqlite3 connection of a connected SQLite adapter, or null for any other adapter. */
export function sqliteDatabaseOf(adapter: unknown): SqliteDatabase | null {
  const client = (adapter as { client?: Partial<SqliteDatabase> } | null)?.client;
  return typeof client?.prepare === "function" ? (client as SqliteDatabase) : null;
}

/** The node-postgres pool of a connected PostgreSQL adapter (its public `underlyingDriver`), or null for any other. */
export function postgresqlPoolOf(driver: unknown): pg.Pool | null {
  const underlying = (driver as { underlyingDriver?: () => unknown } | null)?.underlyingDriver?.();
  return underlying instanceof pg.Pool ? underlying : null;
}

export interface ImmediateBegins {
  /** The connection's own prepare, unchanged. */
  prepare: SqliteDatabase["prepare"];
  /** The error of the last BEGIN that failed, once (then null): the caller must end that transaction. */
  takeBeginFailure(): unknown;
}

/**
 * Makes the adapter's transactions begin IMMEDIATE (it sends a plain BEGIN through its
 * connection's prepare). A BEGIN that fails (a read-only or full database, a lock held past
 * the busy timeout) does not throw inside the adapter: its startTransaction takes its own mutex
 * before the BEGIN and gives it back only on commit or rollback, so a throw there kept the mutex
 * and every later transaction of the process waited forever. The failure is kept instead, for
 * the caller to take right after startTransaction and end the transaction it got
 * (sqlite-write-lock.server.ts).
 */
export function beginImmediately(database: SqliteDatabase): ImmediateBegins {
  const prepare = database.prepare.bind(database);
  let failure: unknown = null;
  database.prepare = (sql) => {
    if (sql !== "BEGIN") return prepare(sql);
    const begin = prepare("BEGIN IMMEDIATE");
    const run = begin.run.bind(begin);
    begin.run = (...args) => {
      try {
        return run(...args);
      } catch (error) {
        failure = error;
        return { changes: 0 };
      }
    };
    return begin;
  };
  return {
    prepare,
    takeBeginFailure() {
      const taken = failure;
      failure = null;
      return taken;
    },
  };
}

/** Fails loudly when a connected SQLite adapter no longer has what the app uses of it. */
export function checkAdapter(adapter: unknown): SqliteDatabase {
  const database = sqliteDatabaseOf(adapter);
  if (!database) throw changed("@prisma/adapter-better-sqlite3", "its better-sqlite3 connection as `client`");
  const statement = database.prepare("SELECT 1");
  if (typeof statement.readonly !== "boolean" || typeof statement.reader !== "boolean")
    throw changed("better-sqlite3", "`readonly` and `reader` on a statement");
  return database;
}

/**
 * The generated client's Prisma namespace, loaded on first use: Prisma's CLI loads this file
 * (prisma.config.ts, through the adapter) before the client is generated.
 */
function generated(): typeof Prisma {
  return (createRequire(import.meta.url)("@prisma/client") as { Prisma: typeof Prisma }).Prisma;
}

/** The scalar fields of a model and their Prisma types (DateTime, Boolean, BigInt...). */
export function scalarFieldTypes(model: Prisma.ModelName): Map<string, string> {
  const found = generated().dmmf?.datamodel?.models?.find((m) => m.name === model);
  if (!found) throw changed("@prisma/client", `the model ${model} in Prisma.dmmf`);
  return new Map(found.fields.filter((f) => f.kind === "scalar").map((f) => [f.name, f.type]));
}

/** Fails loudly, at start-up, when the generated client no longer describes its models. */
export function checkClient(): void {
  for (const model of Object.values(generated().ModelName)) scalarFieldTypes(model);
}
