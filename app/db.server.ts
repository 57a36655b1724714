import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { Prisma, PrismaClient } from "@prisma/client";
import { databaseFile } from "./database-url";
import { env } from "./env.server";

declare global {
  var prismaGlobal: PrismaClient | undefined;
}

function createClient(): PrismaClient {
  const adapter = new PrismaBetterSQLite3(
    { url: `file:${databaseFile(env().DATABASE_URL)}` },
    { timestampFormat: "unixepoch-ms" },
  );
  const client = new PrismaClient({ adapter });
  // Write-ahead logging lets readers (the admin, the demo's report) run beside the writer, and
  // synchronous=NORMAL syncs at checkpoints instead of at every commit: still durable across
  // an application crash, and several times faster for the webhook inbox.
  void client
    .$queryRawUnsafe("PRAGMA journal_mode = WAL")
    .then(() => client.$queryRawUnsafe("PRAGMA synchronous = NORMAL"))
    .catch(() => {});
  return client;
}

// Development reloads modules on every change; one client per process keeps SQLite's
// file handles and the worker's connection stable across reloads.
const prisma: PrismaClient = globalThis.prismaGlobal ?? createClient();
if (env().NODE_ENV !== "production") globalThis.prismaGlobal = prisma;

export default prisma;

/** Which database DATABASE_URL names; raw SQL differs between the two in a few places. */
export type Dialect = "sqlite" | "postgresql";
export const dialect: Dialect = /^postgres(ql)?:/.test(env().DATABASE_URL) ? "postgresql" : "sqlite";

/** A DateTime as a raw SQL parameter: Unix milliseconds on SQLite (how the adapter stores it), a Date on PostgreSQL. */
export function sqlTime(date: Date): number | Date {
  return dialect === "sqlite" ? date.getTime() : date;
}

/** The client inside prisma.$transaction(async (tx) => ...), or the client itself. */
export type Db = Prisma.TransactionClient;

/** A unique constraint refused the write: the row is already there (a duplicate, or a race lost). */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}
