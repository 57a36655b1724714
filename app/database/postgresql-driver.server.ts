import type { Prisma } from "@prisma/client";
import { createHash } from "node:crypto";
import pg from "pg";

// The app's statements on PostgreSQL, sent to node-postgres directly, on the pool Prisma's
// adapter connects (the same connections, the same limit), as SQLite's go to better-sqlite3
// (decision 016). Measured with the bench's probe (docs/lab/postgresql-time.md): through the
// adapter every statement was parsed and planned again by the server, its type parsers were
// looked up per row and field, and a transaction's BEGIN cost a round trip of its own. Here:
// - each statement text is prepared once per connection (a named statement), up to a bound;
// - the pool's clients run in node-postgres's pipeline mode, and a transaction's connection
//   holds what is written to it until the statements issued together (in one turn of the event
//   loop) are all written: its BEGIN goes out with its first statement, and statements a caller
//   issues before awaiting any (the job's fence and its write) share one write and one answer;
// - values are read as the adapter reads them (timestamps as UTC ISO text, JSON and numerics as
//   text), so every reader of rows (modelRows, readDate) sees what it saw before.

const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;
const TIMESTAMP_ARRAY = 1115;
const DATE = 1082;
const JSON_TYPE = 114;
const JSONB = 3802;
const TEXT_ARRAY = 1009;

/** A timestamp without zone, kept in UTC (decision 001): ISO text with its offset, as the adapter gives it. */
const utcTimestamp = (text: string) => `${text.replace(" ", "T")}+00:00`;
const asText = (text: string) => text;

const parsers: Record<number, (text: string) => unknown> = {
  [TIMESTAMP]: utcTimestamp,
  [TIMESTAMPTZ]: (text) => new Date(text.replace(" ", "T")).toISOString(),
  [TIMESTAMP_ARRAY]: (text) =>
    (pg.types.getTypeParser(TEXT_ARRAY as never, "text")(text) as string[]).map(utcTimestamp),
  [DATE]: asText,
  [JSON_TYPE]: asText,
  [JSONB]: asText,
};

const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    parsers[oid] ?? pg.types.getTypeParser(oid, format ?? "text")) as typeof pg.types.getTypeParser,
};

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** A Date as a timestamp without zone in UTC, to the millisecond (what the adapter sends). */
function utcText(at: Date): string {
  return (
    `${pad(at.getUTCFullYear(), 4)}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())} ` +
    `${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())}.${pad(at.getUTCMilliseconds(), 3)}`
  );
}

function parameter(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return utcText(value);
  // node-postgres has no bigint parameters: the decimal text, as the adapter sends it.
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(parameter);
  return value;
}

/**
 * Texts vary with the number of rows a statement writes, so names are bounded: past the bound a
 * text runs unnamed (parsed each time), and the server keeps at most this many statements per
 * connection. A name is the text's digest, not a count: a module loaded again (development,
 * tests) names a text as before on connections that already prepared it.
 */
const MAX_NAMED = 500;
const names = new Map<string, string>();

function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED)
    names.set(text, (name = `tg_${createHash("sha256").update(text).digest("base64url").slice(0, 24)}`));
  return name;
}

type Queryable = pg.Pool | pg.PoolClient;

/** The socket under a pooled connection (node-postgres's own `connection.stream`). */
function socketOf(client: pg.PoolClient): { cork(): void; uncork(): void } | null {
  const stream = (client as unknown as { connection?: { stream?: { cork?: unknown; uncork?: unknown } } }).connection
    ?.stream;
  return typeof stream?.cork === "function" && typeof stream.uncork === "function"
    ? (stream as { cork(): void; uncork(): void })
    : null;
}

const corked = new WeakSet<object>();

/**
 * Holds the connection's writes until the statements issued in this turn are queued: Node's cork
 * nests, so node-postgres's own cork per statement no longer sends each one on its own.
 */
function gather(client: pg.PoolClient): boolean {
  const socket = socketOf(client);
  if (!socket) return true;
  if (corked.has(socket)) return false;
  corked.add(socket);
  socket.cork();
  process.nextTick(() => {
    corked.delete(socket);
    socket.uncork();
  });
  return true;
}

/**
 * One statement's rows and count of changed rows, and whether it made a round trip of its own
 * (false when it went out in the same write as a statement before it, and came back with it).
 */
export async function runStatement<T>(
  on: Queryable,
  query: Prisma.Sql,
): Promise<{ rows: T[]; changed: number; roundTrip: boolean }> {
  const roundTrip = on instanceof pg.Pool || gather(on);
  const result = await on.query({
    name: nameOf(query.text),
    text: query.text,
    values: query.values.map(parameter),
    types,
  } as pg.QueryConfig);
  return { rows: result.rows as T[], changed: result.rowCount ?? 0, roundTrip };
}

/** A connection's error while it is out of the pool (the server gone): the statement waiting on it fails instead. */
const ignoreWhileOut = () => {};

/**
 * Runs `fn` on one pooled connection, outside any transaction: statements it issues together go
 * out in one write and come back in one answer, each committing on its own. The connection goes
 * back to the pool when `fn` ends (dropped when it failed under it).
 */
export async function onOneConnection<T>(pool: pg.Pool, fn: (connection: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => (broken = error);
  client.on("error", onError);
  try {
    return await fn(client);
  } finally {
    client.removeListener("error", onError);
    client.release(broken);
  }
}

/** A pooled connection in a transaction, its BEGIN sent but not waited for: the first statement goes out with it. */
export async function beginTransaction(pool: pg.Pool): Promise<{
  connection: pg.PoolClient;
  /** COMMIT, after the BEGIN's own answer. */
  commit(): Promise<void>;
  /** ROLLBACK, then the connection back to the pool (dropped when it failed). */
  rollback(): Promise<void>;
}> {
  const client = await pool.connect();
  client.on("error", ignoreWhileOut);
  gather(client);
  const begun = client.query("BEGIN");
  // Its failure is the transaction's, reported at COMMIT; until then, not an unhandled rejection.
  begun.catch(() => {});
  const release = (error?: Error) => {
    client.removeListener("error", ignoreWhileOut);
    client.release(error);
  };
  return {
    connection: client,
    async commit() {
      try {
        await begun;
        await client.query("COMMIT");
      } catch (error) {
        release(error instanceof Error ? error : new Error(String(error)));
        throw error;
      }
      release();
    },
    async rollback() {
      try {
        await client.query("ROLLBACK");
      } catch (error) {
        release(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      release();
    },
  };
}
