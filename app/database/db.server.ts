import { isMainThread } from "node:worker_threads";
import { Prisma, type PrismaClient } from "@prisma/client";
import pg from "pg";
import { createDatabaseClient, requireDialect } from "./connect.server";
import { checkClient } from "./prisma-internals.server";
import { databaseFile, type DatabaseDialect } from "../platform/database-url";
import { env, type Env } from "../platform/env.server";
import { logger } from "../platform/logger.server";
import { AUTOCHECKPOINT_PAGES, BACKSTOP_AUTOCHECKPOINT_PAGES, startWalCheckpoints } from "./wal-checkpoints.server";

declare global {
  var prismaGlobal: PrismaClient | undefined;
}

/** The database DATABASE_URL names; raw SQL (ledger, dashboard) picks its few dialect-only pieces by it. */
export const dialect: DatabaseDialect = requireDialect(env().DATABASE_URL);

/**
 * A point in time as a raw-SQL parameter, in the column's own representation: Unix milliseconds
 * on SQLite (decision 001), a timestamp(3) in UTC on PostgreSQL.
 */
export function sqlTime(at: Date): Prisma.Sql {
  return dialect === "sqlite" ? Prisma.sql`${at.getTime()}` : Prisma.sql`${at}`;
}

let client: PrismaClient | undefined;

/**
 * This thread's client, made on first use: importing this module opens nothing. Prisma connects
 * at the first query.
 */
export function databaseClient(): PrismaClient {
  // Development reloads modules on every change; one client per process keeps SQLite's file
  // handles, PostgreSQL's pool and the worker's connection stable across reloads.
  client ??= globalThis.prismaGlobal ?? createClient();
  if (env().NODE_ENV !== "production") globalThis.prismaGlobal = client;
  return client;
}

function createClient(): PrismaClient {
  // What the app reads of the generated client beyond its promises, checked before any use.
  checkClient();
  const created = createDatabaseClient(env().DATABASE_URL, { poolSize: poolShare(env()) });
  if (dialect === "sqlite") {
    // Write-ahead logging lets readers (the admin, the demo's report) run beside the writer, and
    // synchronous=NORMAL syncs at checkpoints instead of at every commit: still durable across
    // an application crash, and several times faster for the webhook inbox. Checkpoints run on
    // the event loop (SQLite's own, every AUTOCHECKPOINT_PAGES) until the instance moves them to
    // a thread (startDatabaseCheckpoints).
    // temp_store=MEMORY: a transaction's savepoints (the worker's group commits) and multi-row
    // statements keep the pages they may roll back in a journal of their own, which SQLite
    // otherwise moves into a new file on disk past 64 KiB. Creating, writing and dropping that
    // file held the single writer for up to tens of milliseconds at a time under load
    // (docs/lab/throughput-notes.md, "Temporary files in memory"); such a journal is only ever
    // as large as one transaction's changes.
    void created
      .$queryRawUnsafe("PRAGMA journal_mode = WAL")
      .then(() => created.$queryRawUnsafe("PRAGMA synchronous = NORMAL"))
      .then(() => created.$queryRawUnsafe("PRAGMA temp_store = MEMORY"))
      .then(() => autocheckpoint(created, checkpointsOnThread() ? BACKSTOP_AUTOCHECKPOINT_PAGES : AUTOCHECKPOINT_PAGES))
      .catch(() => {});
  }
  return created;
}

/**
 * This thread's part of DATABASE_POOL_SIZE: all of it, or half when the worker runs on a thread
 * of its own (the main thread takes the odd one), at least one each.
 */
export function poolShare(
  settings: Pick<Env, "DATABASE_POOL_SIZE" | "WORKER_THREAD" | "WORKER_ENABLED">,
  main: boolean = isMainThread,
): number | undefined {
  const total = settings.DATABASE_POOL_SIZE;
  if (total === undefined) return undefined;
  if (!settings.WORKER_THREAD || !settings.WORKER_ENABLED) return total;
  return Math.max(1, main ? Math.ceil(total / 2) : Math.floor(total / 2));
}

let checkpointThreadRunning = false;

/** The main thread's checkpoint thread serves the worker's thread too (one file): there, SQLite's own is the backstop. */
function checkpointsOnThread(): boolean {
  return checkpointThreadRunning || !isMainThread;
}

function autocheckpoint(on: PrismaClient, pages: number): Promise<unknown> {
  return on.$queryRawUnsafe(`PRAGMA wal_autocheckpoint = ${pages}`).catch(() => {});
}

/**
 * SQLite: moves the database's checkpoints off the event loop, onto a thread of their own
 * (decision 017), with SQLite's own kept as a backstop. The instance's start calls it on its
 * main thread; nothing else starts the thread.
 */
export function startDatabaseCheckpoints(): void {
  if (dialect !== "sqlite" || !isMainThread || checkpointThreadRunning) return;
  checkpointThreadRunning = true;
  startWalCheckpoints(databaseFile(env().DATABASE_URL), {
    onRunning: () => void autocheckpoint(databaseClient(), BACKSTOP_AUTOCHECKPOINT_PAGES),
    onStopped: (reason) => {
      checkpointThreadRunning = false;
      logger.warn("database.checkpoints_on_loop", "SQLite checkpoints are back on the event loop", { reason });
      void autocheckpoint(databaseClient(), AUTOCHECKPOINT_PAGES);
    },
  });
}

/** Closes this thread's connections (SQLite's file, PostgreSQL's pool): the instance's last step (app/instance). */
export async function closeDatabase(): Promise<void> {
  await client?.$disconnect();
}

/** A unique constraint refused the write: the row is already there (a duplicate, or a race lost). */
export function isUniqueViolation(error: unknown): boolean {
  // Raw SQL on the driver (sql.server.ts) fails with node-postgres's error or SQLite's own;
  // through the client, with the adapter's.
  if (error instanceof pg.DatabaseError) return error.code === "23505";
  if (error instanceof Error && error.name === "DriverAdapterError")
    return (error.cause as { kind?: string } | undefined)?.kind === "UniqueConstraintViolation";
  if (error instanceof Error && error.name === "SqliteError") {
    const code = (error as { code?: string }).code;
    return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
  }
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  if (error.code === "P2002") return true;
  // Raw SQL through the client fails with P2010, the driver's error inside.
  const cause = (error.meta?.driverAdapterError as { cause?: { kind?: string } } | undefined)?.cause;
  return error.code === "P2010" && cause?.kind === "UniqueConstraintViolation";
}
