import { Prisma } from "@prisma/client";
import { connectedDriver, type DriverQuery, type DriverQueryable } from "./connect.server";
import { databaseClient, dialect, sqlTime } from "./db.server";
import {
  postgresqlPoolOf,
  sqliteDatabaseOf as adapterDatabase,
  type SqliteDatabase,
  type SqliteStatement,
} from "./prisma-internals.server";
import { randomUUID } from "node:crypto";
import { transactionBody } from "../platform/transaction-scope";
import { hasColumn, quoted, type ColumnOf, type TableName } from "./tables";
import { sqliteWriteLock } from "./sqlite-write-lock.server";
import { countStatement, countTransaction, statementKind } from "./probe.server";
import { beginTransaction, onOneConnection, runStatement } from "./postgresql-driver.server";
import { modelRows, type ModelName } from "./row-values.server";
import type pg from "pg";

// The value readers are used with rows read here, and imported from here.
export { modelRows, readBoolean, readDate } from "./row-values.server";

// The app's one way to its database (decision 026): every statement outside app/database/ is
// a Prisma.sql template run here, on the driver Prisma's adapter connects, never through the
// client's runtime and query compiler. Measured per call (bench/database-paths.bench.ts): a
// model call costs about 0.5 ms of CPU, $queryRaw through the client 0.2, the adapter's public
// queryRaw 0.03 to 0.05, and a statement prepared once on the adapter's own better-sqlite3
// connection 0.005 to 0.01. On PostgreSQL statements go to node-postgres on the adapter's pool,
// prepared once per connection (postgresql-driver.server.ts). Either way they share the
// client's connections and, on SQLite, its write lock, so the tests and tools that still use
// the client mix safely with them.

/** A place to run raw statements: the database, or one transaction on it. */
export interface Sql {
  /** The rows of a query, as the driver gives them: read them with the value readers below or modelRows. */
  rows<T = Record<string, unknown>>(query: Prisma.Sql): Promise<T[]>;
  /** A statement's count of changed rows. */
  execute(query: Prisma.Sql): Promise<number>;
}

/**
 * Statements prepared once per text: the adapter prepares every statement anew, which was a
 * tenth of the worker's CPU. Texts vary with the number of rows a group writes, so the cache
 * is bounded; the oldest statement goes first.
 */
const MAX_PREPARED = 500;
const preparedStatements = new WeakMap<SqliteDatabase, Map<string, SqliteStatement>>();

function sqliteDatabaseOf(driver: DriverQueryable): SqliteDatabase {
  const db = adapterDatabase(driver);
  if (!db) throw new Error("the SQLite adapter no longer gives its better-sqlite3 connection");
  return db;
}

function prepared(db: SqliteDatabase, text: string): SqliteStatement {
  let cache = preparedStatements.get(db);
  if (!cache) preparedStatements.set(db, (cache = new Map()));
  let statement = cache.get(text);
  if (!statement) {
    statement = db.prepare(text);
    if (cache.size >= MAX_PREPARED) cache.delete(cache.keys().next().value!);
    cache.set(text, statement);
  }
  return statement;
}

/** A parameter as SQLite stores it: times as Unix milliseconds (decision 001), booleans as 0 and 1. */
function sqliteArg(value: unknown): unknown {
  if (value instanceof Date) return value.getTime();
  if (typeof value === "boolean") return value ? 1 : 0;
  return value ?? null;
}

/** Statements on PostgreSQL: the pool, or one transaction's connection (postgresql-driver.server.ts). */
function onPostgresql(queryable: () => Promise<pg.Pool | pg.PoolClient>): Sql {
  const run = async <T>(query: Prisma.Sql) => {
    const started = performance.now();
    const result = await runStatement<T>(await queryable(), query);
    counted(query.text, started, result.roundTrip);
    return result;
  };
  return {
    rows: async <T>(query: Prisma.Sql) => (await run<T>(query)).rows,
    execute: async (query) => (await run(query)).changed,
  };
}

async function postgresqlPool(): Promise<pg.Pool> {
  const pool = postgresqlPoolOf(await connectedDriver(databaseClient()));
  if (!pool) throw new Error("the PostgreSQL adapter no longer gives its pool (underlyingDriver)");
  return pool;
}

/**
 * A driver's statements. On SQLite a write outside a transaction takes its turn, after the other
 * threads' and after this thread's open transaction (sqlite-write-lock.server.ts); a statement of
 * the transaction, which holds the turn, runs at once.
 */
function onSqlite(driver: () => Promise<DriverQueryable>, inTransaction: boolean): Sql {
  // The transaction holds this thread's turn: its own statements run at once.
  const inTurn = <T>(readOnly: boolean, run: () => T) =>
    inTransaction ? run() : sqliteWriteLock.statement(readOnly, run);
  return {
    async rows<T>(query: Prisma.Sql) {
      const started = performance.now();
      const statement = prepared(sqliteDatabaseOf(await driver()), query.sql);
      const args = query.values.map(sqliteArg);
      const rows = await inTurn(statement.readonly, () => {
        if (statement.reader) return statement.all(...args) as T[];
        statement.run(...args);
        return [];
      });
      counted(query.sql, started, false);
      return rows;
    },
    async execute(query) {
      const started = performance.now();
      const statement = prepared(sqliteDatabaseOf(await driver()), query.sql);
      const changes = await inTurn(statement.readonly, () => statement.run(...query.values.map(sqliteArg)).changes);
      counted(query.sql, started, false);
      return changes;
    },
  };
}

const counted = (text: string, started: number, roundTrip: boolean) =>
  countStatement(statementKind(text), (performance.now() - started) / 1000, roundTrip);

const control = (sql: string): DriverQuery => ({ sql, args: [], argTypes: [] });

const sqlite = onSqlite(() => connectedDriver(databaseClient()), false);
const postgresql = onPostgresql(postgresqlPool);

async function postgresqlTransaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
  const started = performance.now();
  const tx = await beginTransaction(await postgresqlPool());
  // The BEGIN's round trip is its first statement's too (they go out in one write).
  countTransaction((performance.now() - started) / 1000, true);
  let result: T;
  try {
    result = await transactionBody(() => fn(onPostgresql(() => Promise.resolve(tx.connection))));
  } catch (error) {
    const at = performance.now();
    await tx.rollback();
    counted("ROLLBACK", at, true);
    throw error;
  }
  const at = performance.now();
  await tx.commit();
  counted("COMMIT", at, true);
  return result;
}

/** The app's database, through its driver. */
export const sql: Sql & {
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  together<T>(fn: (db: Sql) => Promise<T>): Promise<T>;
} = {
  rows: (query) => (dialect === "postgresql" ? postgresql : sqlite).rows(query),
  execute: (query) => (dialect === "postgresql" ? postgresql : sqlite).execute(query),
  /**
   * Runs `fn`'s statements outside any transaction. On PostgreSQL they share one connection, and
   * those issued before any is awaited one write and one answer; SQLite runs each as issued.
   */
  async together(fn) {
    if (dialect !== "postgresql") return fn(sqlite);
    return onOneConnection(await postgresqlPool(), (connection) => fn(onPostgresql(() => Promise.resolve(connection))));
  },
  /**
   * Runs `fn` in one transaction, as prisma.$transaction would: BEGIN comes with the driver's
   * transaction (on SQLite after the lock Prisma's own transactions take), COMMIT or ROLLBACK
   * is sent by the caller, as the client sends it, before the connection is given back.
   */
  async transaction(fn) {
    if (dialect === "postgresql") return postgresqlTransaction(fn);
    const started = performance.now();
    const driverTx = await (await connectedDriver(databaseClient())).startTransaction();
    countTransaction((performance.now() - started) / 1000, false);
    const end = async (text: "COMMIT" | "ROLLBACK") => {
      const at = performance.now();
      await driverTx.executeRaw(control(text));
      counted(text, at, false);
    };
    let result;
    try {
      result = await transactionBody(() => fn(onSqlite(() => Promise.resolve(driverTx), true)));
      await end("COMMIT");
    } catch (error) {
      // The caller's error is the one to report: a ROLLBACK can fail too (SQLite has already
      // rolled back after some errors; a PostgreSQL connection may be gone).
      await end("ROLLBACK").catch(() => {});
      await driverTx.rollback();
      throw error;
    }
    await driverTx.commit();
    return result;
  },
};

/**
 * Serializes the transactions that touch the same keys until they end: PostgreSQL's
 * transaction-scoped advisory locks, taken in one order so two transactions never deadlock.
 * Nothing on SQLite, where one writer already runs transactions one after another.
 */
export async function lockKeys(tx: Sql, keys: string[]): Promise<void> {
  if (dialect !== "postgresql" || keys.length === 0) return;
  const sorted = [...new Set(keys)].sort();
  await tx.execute(Prisma.sql`SELECT pg_advisory_xact_lock(hashtextextended(k, 0))
                     FROM (SELECT unnest(${sorted}::text[]) AS k ORDER BY 1) AS ordered`);
}

/**
 * A value raw SQL stores as it is; a Date goes in the column's representation (sqlTime); a
 * Prisma.sql fragment is an expression on the row (`"attempts" - 1`).
 */
export type RowValue = string | number | bigint | boolean | Date | Prisma.Sql | null | undefined;

/** A row of `table` to write: its columns, checked by the compiler, each to a value. */
export type RowOf<T extends TableName> = { [C in ColumnOf<T>]?: RowValue };

/** A Prisma.sql fragment, by its public shape (the client exports its class as a type only). */
function isFragment(value: RowValue): value is Prisma.Sql {
  return (
    typeof value === "object" && value !== null && !(value instanceof Date) && "strings" in value && "values" in value
  );
}

function sqlValue(value: RowValue): Prisma.Sql {
  if (isFragment(value)) return value;
  if (value instanceof Date) return sqlTime(value);
  return Prisma.sql`${value ?? null}`;
}

/**
 * What the client fills in for a row and the database does not (Prisma makes them in the
 * client): an id, unless the row names its own, and the time of the write for updatedAt and
 * createdAt, unless the row gives one (the caller's clock).
 */
function filled<T extends TableName>(table: T, row: RowOf<T>, now: Date): RowOf<T> {
  const out: Record<string, RowValue> = { ...row };
  if (hasColumn(table, "id") && out.id === undefined) out.id = randomUUID();
  if (hasColumn(table, "createdAt") && out.createdAt === undefined) out.createdAt = now;
  if (hasColumn(table, "updatedAt") && out.updatedAt === undefined) out.updatedAt = now;
  return out as RowOf<T>;
}

/** The time of an update for a table that keeps one (Prisma's @updatedAt), unless the caller gave its own. */
function touched<T extends TableName>(table: T, data: RowOf<T>): RowOf<T> {
  if (!hasColumn(table, "updatedAt") || (data as Record<string, RowValue>).updatedAt !== undefined) return data;
  return { ...data, updatedAt: new Date() } as RowOf<T>;
}

/**
 * Rows written in one INSERT, their ids and times filled in here (filled); returns how many.
 * Columns left out of every row take the table's own defaults. `skipDuplicates`: a row a unique
 * key already holds is left out instead of failing the statement (ON CONFLICT DO NOTHING).
 */
export async function insertRows<T extends TableName>(
  tx: Sql,
  table: T,
  rows: RowOf<T>[],
  { skipDuplicates = false } = {},
): Promise<number> {
  if (rows.length === 0) return 0;
  const now = new Date();
  rows = rows.map((row) => filled(table, row, now));
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))] as ColumnOf<T>[];
  const values = rows.map((row) => Prisma.sql`(${Prisma.join(columns.map((column) => sqlValue(row[column])))})`);
  return tx.execute(
    Prisma.sql`INSERT INTO ${quoted(table)} (${Prisma.join(columns.map(quoted))}) VALUES ${Prisma.join(values)}${
      skipDuplicates ? Prisma.sql` ON CONFLICT DO NOTHING` : Prisma.empty
    }`,
  );
}

/** One row, written only if `when` holds as it runs (a write that depends on one issued before it goes with it). */
export async function insertRowWhen<T extends TableName>(
  tx: Sql,
  table: T,
  row: RowOf<T>,
  when: Prisma.Sql,
): Promise<boolean> {
  const full = filled(table, row, new Date());
  const columns = Object.keys(full) as ColumnOf<T>[];
  const changed = await tx.execute(
    Prisma.sql`INSERT INTO ${quoted(table)} (${Prisma.join(columns.map(quoted))})
      SELECT ${Prisma.join(columns.map((column) => sqlValue(full[column])))} WHERE ${when}`,
  );
  return changed === 1;
}

/** `"column" = value, ...` for an UPDATE; undefined values are left out, as the client leaves them. */
function assignments(data: Record<string, RowValue | undefined>): Prisma.Sql {
  const set = Object.entries(data).filter(([, value]) => value !== undefined);
  if (set.length === 0) throw new Error("an update needs at least one column");
  return Prisma.join(
    set.map(([column, value]) => Prisma.sql`${quoted(column)} = ${sqlValue(value)}`),
    ", ",
  );
}

/** The rows of a query on a model's table, in the shape the client returns them. */
export async function rowsOf<T>(tx: Sql, model: ModelName, query: Prisma.Sql): Promise<T[]> {
  return modelRows<T>(model, await tx.rows(query));
}

/** Updates the rows `where` picks and returns them as they now stand. */
export function updateRows<R, M extends ModelName = ModelName>(
  tx: Sql,
  model: M,
  where: Prisma.Sql,
  data: RowOf<M>,
): Promise<R[]> {
  return rowsOf<R>(
    tx,
    model,
    Prisma.sql`UPDATE ${quoted(model)} SET ${assignments(touched(model, data))} WHERE ${where} RETURNING *`,
  );
}

/** Updates one row by id and returns it as the client would, or null when it is gone. */
export async function updateRow<R, M extends ModelName = ModelName>(
  tx: Sql,
  model: M,
  id: string,
  data: RowOf<M>,
): Promise<R | null> {
  return (await updateRows<R, M>(tx, model, Prisma.sql`"id" = ${id}`, data))[0] ?? null;
}

/**
 * Inserts `row`, or, when a row with the same values in the `key` columns (a unique index) is
 * there, sets that row's `update` columns to `row`'s values; returns the row as it now stands.
 * One statement on both databases (ON CONFLICT), so two writers racing never both insert.
 */
export async function upsertRow<R, M extends ModelName = ModelName>(
  tx: Sql,
  model: M,
  key: readonly ColumnOf<M>[],
  row: RowOf<M>,
  update: readonly ColumnOf<M>[],
): Promise<R> {
  row = filled(model, row, new Date());
  const columns = Object.keys(row) as ColumnOf<M>[];
  const set = update.map((column) => Prisma.sql`${quoted(column)} = excluded.${quoted(column)}`);
  const [stored] = await rowsOf<R>(
    tx,
    model,
    Prisma.sql`INSERT INTO ${quoted(model)} (${Prisma.join(columns.map(quoted))})
      VALUES (${Prisma.join(columns.map((column) => sqlValue(row[column])))})
      ON CONFLICT (${Prisma.join(key.map(quoted))}) DO UPDATE SET ${Prisma.join(set, ", ")}
      RETURNING *`,
  );
  return stored!;
}

/** Updates the rows `where` picks; returns how many. */
export async function updateWhere<T extends TableName>(
  tx: Sql,
  table: T,
  where: Prisma.Sql,
  data: RowOf<T>,
): Promise<number> {
  return tx.execute(Prisma.sql`UPDATE ${quoted(table)} SET ${assignments(touched(table, data))} WHERE ${where}`);
}

/** Deletes the rows `where` picks; returns how many. */
export async function deleteWhere(tx: Sql, table: TableName, where: Prisma.Sql): Promise<number> {
  return tx.execute(Prisma.sql`DELETE FROM ${quoted(table)} WHERE ${where}`);
}

/** The model's row with this id, as the client would return it, or null. */
export async function rowById<T>(tx: Sql, model: Prisma.ModelName, id: string): Promise<T | null> {
  const rows = await tx.rows<Record<string, unknown>>(Prisma.sql`SELECT * FROM ${quoted(model)} WHERE "id" = ${id}`);
  return modelRows<T>(model, rows)[0] ?? null;
}

/**
 * `select` of the rows of `table` that match one of `keys` (column to value, all with the same
 * columns) and `where`: an OR of equalities, which the table's unique index answers.
 */
export async function rowsMatching<T extends TableName, S extends ColumnOf<T>>(
  tx: Sql,
  table: T,
  select: readonly S[],
  keys: { [C in ColumnOf<T>]?: string }[],
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
  return tx.rows<Record<S, string>>(Prisma.sql`
    SELECT ${Prisma.join(select.map(quoted))} FROM ${quoted(table)}
    WHERE (${Prisma.join(matches, " OR ")}) AND ${where}`);
}
