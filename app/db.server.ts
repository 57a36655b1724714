import { Prisma, type PrismaClient } from "@prisma/client";
import { createDatabaseClient, requireDialect } from "./database-client.server";
import type { DatabaseDialect } from "./database-url";
import { env } from "./env.server";

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

function createClient(): PrismaClient {
  const client = createDatabaseClient(env().DATABASE_URL);
  if (dialect === "sqlite") {
    // Write-ahead logging lets readers (the admin, the demo's report) run beside the writer, and
    // synchronous=NORMAL syncs at checkpoints instead of at every commit: still durable across
    // an application crash, and several times faster for the webhook inbox.
    void client
      .$queryRawUnsafe("PRAGMA journal_mode = WAL")
      .then(() => client.$queryRawUnsafe("PRAGMA synchronous = NORMAL"))
      .catch(() => {});
  }
  return client;
}

// Development reloads modules on every change; one client per process keeps SQLite's
// file handles, PostgreSQL's pool and the worker's connection stable across reloads.
const prisma: PrismaClient = globalThis.prismaGlobal ?? createClient();
if (env().NODE_ENV !== "production") globalThis.prismaGlobal = prisma;

export default prisma;

/** The client inside prisma.$transaction(async (tx) => ...), or the client itself. */
export type Db = Prisma.TransactionClient;

/** A unique constraint refused the write: the row is already there (a duplicate, or a race lost). */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  if (error.code === "P2002") return true;
  // Raw SQL (insertRows) fails with P2010, the driver's own error inside.
  const cause = (error.meta?.driverAdapterError as { cause?: { kind?: string } } | undefined)?.cause;
  return error.code === "P2010" && cause?.kind === "UniqueConstraintViolation";
}

/**
 * Serializes the transactions that touch the same keys until they end: PostgreSQL's
 * transaction-scoped advisory locks, taken in one order so two transactions never deadlock.
 * Nothing on SQLite, where one writer already runs transactions one after another.
 */
export async function lockKeys(tx: Db, keys: string[]): Promise<void> {
  if (dialect !== "postgresql" || keys.length === 0) return;
  const sorted = [...new Set(keys)].sort();
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(k, 0))
                     FROM (SELECT unnest(${sorted}::text[]) AS k ORDER BY 1) AS ordered`;
}

/** A value raw SQL stores as it is; a Date goes in the column's representation (sqlTime). */
export type RowValue = string | number | boolean | Date | null | undefined;

/** A table's or column's name in SQL, quoted (PostgreSQL folds unquoted names to lower case). */
function quoted(name: string): Prisma.Sql {
  return Prisma.raw(`"${name}"`);
}

function sqlValue(value: RowValue): Prisma.Sql {
  if (value instanceof Date) return sqlTime(value);
  return Prisma.sql`${value ?? null}`;
}

/**
 * Rows written in one INSERT, in raw SQL: for intake's group commit, where the ORM's createMany
 * cost a millisecond or more a call in its query compiler (docs/throughput.md). Columns left out
 * of every row take the table's own defaults, so a row must name every column without one.
 */
export async function insertRows(tx: Db, table: string, rows: Record<string, RowValue>[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const values = rows.map((row) => Prisma.sql`(${Prisma.join(columns.map((column) => sqlValue(row[column])))})`);
  await tx.$executeRaw`INSERT INTO ${quoted(table)} (${Prisma.join(columns.map(quoted))}) VALUES ${Prisma.join(values)}`;
}

/**
 * `select` of the rows of `table` that match one of `keys` (column to value, all with the same
 * columns) and `where`: a raw read, as insertRows writes, in the shape Prisma gives such a
 * findMany (an OR of equalities), which the table's unique index answers.
 */
export async function rowsMatching<S extends string>(
  tx: Db,
  table: string,
  select: readonly S[],
  keys: Record<string, string>[],
  where: Prisma.Sql = Prisma.sql`1 = 1`,
): Promise<Record<S, string>[]> {
  if (keys.length === 0) return [];
  const matches = keys.map(
    (key) =>
      Prisma.sql`(${Prisma.join(
        Object.entries(key).map(([column, value]) => Prisma.sql`${quoted(column)} = ${value}`),
        " AND ",
      )})`,
  );
  return tx.$queryRaw<Record<S, string>[]>`
    SELECT ${Prisma.join(select.map(quoted))} FROM ${quoted(table)}
    WHERE (${Prisma.join(matches, " OR ")}) AND ${where}`;
}
