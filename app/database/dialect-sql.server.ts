import { Prisma } from "@prisma/client";
import { dialect, sqlTime } from "./db.server";
import { insertRows, sql, type RowOf, type Sql } from "./sql.server";
import { sqliteWriteLock } from "./sqlite-write-lock.server";
import { Job, type ColumnOf, type Table } from "./tables";
import { TransactionGroups } from "./transaction-groups.server";

// Where SQLite and PostgreSQL part ways, in one file: the few statements and fragments the app
// writes differently for each. Everything outside app/database/ writes one text for both.

/**
 * A column compared without its index. SQLite's `+column` keeps the meaning but stops its planner
 * (which has no statistics unless ANALYZE ran) from picking a broad index such as
 * status = 'pending'; PostgreSQL plans from statistics and has no such operator for text.
 */
export function unindexed(column: Prisma.Sql): Prisma.Sql {
  return dialect === "sqlite" ? Prisma.sql`+${column}` : column;
}

/** `FOR UPDATE` where rows can be locked (PostgreSQL); SQLite's single writer already serializes. */
export function rowLock(): Prisma.Sql {
  return dialect === "postgresql" ? Prisma.sql`FOR UPDATE` : Prisma.empty;
}

/** Holds the rows `where` picks until the transaction ends (PostgreSQL); nothing on SQLite. */
export async function lockRows(tx: Sql, table: Prisma.Sql & { id: Prisma.Sql }, where: Prisma.Sql): Promise<void> {
  if (dialect === "postgresql") await tx.rows(Prisma.sql`SELECT ${table.id} FROM ${table} WHERE ${where} FOR UPDATE`);
}

/** A zone's offset from UTC in whole minutes, checked, for SQL text that writes it in. */
export function zoneOffset(offsetMinutes: number): number {
  const minutes = Math.trunc(offsetMinutes);
  if (!Number.isSafeInteger(minutes) || Math.abs(minutes) > 24 * 60) throw new RangeError("offset out of range");
  return minutes;
}

/**
 * A time column's day, as days since 1970 (SQLite keeps Unix milliseconds, PostgreSQL a
 * timestamp), shifted by a zone's offset from UTC in whole minutes. Written into the text, not
 * bound: PostgreSQL would see the SELECT's and the GROUP BY's parameters as two expressions.
 */
export function dayNumber(column: Prisma.Sql, offsetMinutes: number): Prisma.Sql {
  const minutes = zoneOffset(offsetMinutes);
  return dialect === "sqlite"
    ? Prisma.sql`CAST((${column} + ${Prisma.raw(String(minutes * 60_000))}) / 86400000 AS INTEGER)`
    : // The date's distance from 1970-01-01 in days, an integer: EXTRACT(EPOCH ...) is numeric
      // since PostgreSQL 14, and numeric arithmetic on each order of a 90-day period cost the
      // dashboard's coverage about twice its index read at a million orders.
      Prisma.sql`(CAST(${column} + INTERVAL '${Prisma.raw(String(minutes))} minutes' AS DATE) - DATE '1970-01-01')`;
}

/**
 * The statement that claims up to `limit` jobs for `owner`: those whose lease ran out first,
 * then those due, oldest first. PostgreSQL skips rows another worker is claiming (SKIP LOCKED);
 * SQLite has one writer, so the statement is the claim.
 */
export function claimJobs(owner: string, limit: number, now: Date, leaseUntil: Date): Prisma.Sql {
  const at = sqlTime(now);
  const lease = sqlTime(leaseUntil);
  const claimed = Prisma.sql`${Job.state} = 'running', ${Job.attempts} = ${Job.attempts} + 1, ${Job.leaseOwner} = ${owner},
                 ${Job.leaseExpiresAt} = ${lease}, ${Job.updatedAt} = ${at}`;
  const returning = Prisma.sql`RETURNING ${Job.columns("id", "shop", "kind", "subject", "attempts", "runAt")}`;
  if (dialect === "postgresql")
    return Prisma.sql`
      WITH expired AS (
        SELECT ${Job.id} FROM ${Job} WHERE ${Job.state} = 'running' AND ${Job.leaseExpiresAt} < ${at}
        ORDER BY ${Job.leaseExpiresAt} LIMIT ${limit} FOR UPDATE SKIP LOCKED
      ), due AS (
        SELECT ${Job.id} FROM ${Job} WHERE ${Job.state} = 'queued' AND ${Job.runAt} <= ${at}
        ORDER BY ${Job.runAt} LIMIT ${limit} FOR UPDATE SKIP LOCKED
      )
      UPDATE ${Job} SET ${claimed}
      WHERE ${Job.id} IN (SELECT ${Job.id} FROM (SELECT ${Job.id} FROM expired UNION ALL SELECT ${Job.id} FROM due) AS picked LIMIT ${limit})
      ${returning}`;
  return Prisma.sql`
    UPDATE ${Job} SET ${claimed}
    WHERE ${Job.id} IN (
      SELECT ${Job.id} FROM (SELECT ${Job.id} FROM ${Job} WHERE ${Job.state} = 'running' AND ${Job.leaseExpiresAt} < ${at}
                        ORDER BY ${Job.leaseExpiresAt} LIMIT ${limit})
      UNION ALL
      SELECT ${Job.id} FROM (SELECT ${Job.id} FROM ${Job} WHERE ${Job.state} = 'queued' AND ${Job.runAt} <= ${at}
                        ORDER BY ${Job.runAt} LIMIT ${limit})
      LIMIT ${limit})
    ${returning}`;
}

/**
 * How many jobs' writes go in one commit. A write is a few statements (a fraction of a
 * millisecond). A group of 8 is cheap for intake to wait behind and gives most of the gain;
 * past 8 a group goes on to 32 only while the main thread (intake) is not waiting for SQLite's
 * writer (decision 021).
 */
const WRITES_PER_GROUP = { least: 8, most: 32 };
let groups: TransactionGroups | undefined;

/**
 * A small write, all or nothing. On SQLite, writes that come together share a commit
 * (transaction-groups.server.ts); PostgreSQL runs them side by side on the pool, and a shared
 * transaction there would hold one writer's rows and advisory locks until the others are done.
 */
export function sharedCommit<T>(write: (tx: Sql) => Promise<T>): Promise<T> {
  if (dialect !== "sqlite") return sql.transaction(write);
  groups ??= new TransactionGroups(
    (fn) => sql.transaction(fn),
    WRITES_PER_GROUP,
    () => sqliteWriteLock.firstInLine(),
  );
  return groups.run(write);
}

/**
 * One statement on its own: on SQLite it joins a group's commit (sharedCommit), on PostgreSQL it
 * needs no transaction of its own.
 */
export function sharedStatement<T>(write: (tx: Sql) => Promise<T>): Promise<T> {
  return dialect === "sqlite" ? sharedCommit(write) : write(sql);
}

/** A rollup kept by appending rows (loose) that the fold merges: its table, key and summed columns. */
/** The rollups kept by appending a row per change, and folded. */
export type FoldedTable = "VerificationHour" | "CommissionCreator" | "CommissionDay";

export interface FoldedRollup<T extends FoldedTable> {
  table: Table<T>;
  keys: readonly ColumnOf<T>[];
  sums: readonly ColumnOf<T>[];
}

/**
 * Merges the rows of up to `keys` keys of a rollup that have loose rows into one row per key
 * (none for a key whose sums are all zero), and says how many keys it took. A key's sums are
 * unchanged, so a page reading at any moment reads the same.
 *
 * PostgreSQL does it in one statement, which deletes exactly the rows it sums: a row a trigger
 * appends meanwhile is not in its snapshot and stays loose for the next fold, and a fold on
 * another instance skips the rows this one deleted. SQLite's single writer makes the
 * transaction's three statements one step: the keys its sums were read for are the keys it deletes.
 */
export async function foldRows<T extends FoldedTable>(rollup: FoldedRollup<T>, keys: number): Promise<number> {
  const { table } = rollup;
  const column = (name: ColumnOf<T>) => table[name] as Prisma.Sql;
  const key = Prisma.join(rollup.keys.map(column));
  // In the keys' order, so that on SQLite the same statement picks the same keys twice in one transaction.
  const picked = Prisma.sql`SELECT DISTINCT ${key} FROM ${table} WHERE ${column("loose" as ColumnOf<T>)} = TRUE ORDER BY ${key} LIMIT ${keys}`;
  const sums = Prisma.join(rollup.sums.map((name) => Prisma.sql`SUM(${column(name)}) AS ${column(name)}`));
  const columns = Prisma.join([...rollup.keys, ...rollup.sums].map(column));
  if (dialect === "postgresql") {
    const same = Prisma.join(
      rollup.keys.map((name) => Prisma.sql`v.${column(name)} = k.${column(name)}`),
      " AND ",
    );
    const nonzero = Prisma.join(
      rollup.sums.map((name) => Prisma.sql`SUM(${column(name)}) <> 0`),
      " OR ",
    );
    const [row] = await sql.rows<{ keys: number | string }>(Prisma.sql`
      WITH picked AS (${picked}),
      gone AS (DELETE FROM ${table} AS v USING picked AS k WHERE ${same} RETURNING v.*),
      folded AS (
        INSERT INTO ${table} ("id", ${columns}, "loose")
        SELECT gen_random_uuid()::text, ${key}, ${sums}, FALSE FROM gone GROUP BY ${key} HAVING ${nonzero}
        RETURNING 1
      )
      SELECT COUNT(*) AS keys FROM picked`);
    return Number(row?.keys ?? 0);
  }
  return sql.transaction(async (tx) => {
    const rows = await tx.rows<Record<string, unknown>>(
      Prisma.sql`SELECT ${key}, ${sums} FROM ${table} WHERE (${key}) IN (${picked}) GROUP BY ${key}`,
    );
    if (rows.length === 0) return 0;
    // Searched through the key's index; a list of the keys' values instead made SQLite scan the table.
    await tx.execute(Prisma.sql`DELETE FROM ${table} WHERE (${key}) IN (${picked})`);
    await insertRows(
      tx,
      table.tableName,
      rows
        .filter((row) => rollup.sums.some((name) => Number(row[name]) !== 0))
        .map((row) => ({ ...row, loose: false }) as RowOf<T>),
    );
    return rows.length;
  });
}
