import { threadId, workerData } from "node:worker_threads";

// One writer at a time across the threads of one process (decision 019). The production server
// runs the worker on a thread of its own, with its own SQLite connection; SQLite lets one
// connection write at a time, and a connection that finds the file locked sleeps in SQLite's
// busy handler, blocking its thread: on the main thread that would stall every request. So every
// write transaction, and every write outside one, first waits here, without blocking: a ticket
// lock on shared memory, first come first served across the threads, awaited with
// Atomics.waitAsync. Within a thread it changes nothing that was not so before: transactions
// already ran one at a time on the connection, and a statement outside one ran at once (inside
// the thread's open transaction, if any), as it still does.

const NEXT_TICKET = 0;
const NOW_SERVING = 1;
const HOLDER = 2;
const CELLS = 3;

/** The shared memory the lock lives in; a thread made by startWorkerThread is given its parent's. */
export type WriteLockMemory = SharedArrayBuffer;

function ownMemory(): WriteLockMemory {
  const given = (workerData as { sqliteWriteLock?: unknown } | null)?.sqliteWriteLock;
  return given instanceof SharedArrayBuffer ? given : new SharedArrayBuffer(CELLS * Int32Array.BYTES_PER_ELEMENT);
}

export class WriteLock {
  readonly memory: WriteLockMemory;
  readonly #cells: Int32Array;
  /** This thread's mark in HOLDER (never 0, which means nobody). */
  readonly #mark = threadId + 1;

  constructor(memory: WriteLockMemory = ownMemory()) {
    this.memory = memory;
    this.#cells = new Int32Array(memory);
  }

  /** Waits for this thread's turn; the release given back is idempotent. */
  async acquire(): Promise<() => void> {
    const cells = this.#cells;
    // Tickets wrap around at 2^31 in both cells alike, so equality stays the test.
    const ticket = Atomics.add(cells, NEXT_TICKET, 1);
    await this.#turnOf(ticket);
    Atomics.store(cells, HOLDER, this.#mark);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      Atomics.store(cells, HOLDER, 0);
      Atomics.add(cells, NOW_SERVING, 1);
      Atomics.notify(cells, NOW_SERVING);
    };
  }

  async #turnOf(ticket: number): Promise<void> {
    let keepAlive: NodeJS.Timeout | undefined;
    try {
      for (;;) {
        const serving = Atomics.load(this.#cells, NOW_SERVING);
        if (serving === ticket) return;
        const wait = Atomics.waitAsync(this.#cells, NOW_SERVING, serving);
        if (!wait.async) continue;
        // A pending waitAsync does not keep Node's event loop alive: a thread with nothing
        // else to do would end, its ticket never used, and every later writer wait forever.
        keepAlive ??= setInterval(() => {}, 2 ** 30);
        await wait.value;
      }
    } finally {
      clearInterval(keepAlive);
    }
  }

  /**
   * Calls `onStuck` when one turn has lasted from one look to the next, `everyMs` apart, with
   * writers waiting both times: a holder that will never release (a thread that died in its
   * turn). A ticket cannot be skipped, so the process must end for the host to restart it.
   * Returns the stop.
   */
  watch(everyMs: number, onStuck: () => void): () => void {
    let suspect: number | null = null;
    const timer = setInterval(() => {
      const serving = Atomics.load(this.#cells, NOW_SERVING);
      const waiting = Atomics.load(this.#cells, NEXT_TICKET) - serving > 1;
      if (!waiting) suspect = null;
      else if (suspect === serving) onStuck();
      else suspect = serving;
    }, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Whether a transaction of this thread holds the lock now. */
  heldHere(): boolean {
    return Atomics.load(this.#cells, HOLDER) === this.#mark;
  }

  /**
   * Runs one statement: a read-only one at once, a write in its turn unless a transaction of
   * this thread holds the lock (then it joins that transaction, as it always did).
   */
  statement<T>(readOnly: boolean, run: () => T): T | Promise<T> {
    return readOnly ? run() : this.write(run);
  }

  /** Runs one write: at once if this thread holds the lock, else in its turn. */
  async write<T>(run: () => T): Promise<T> {
    if (this.heldHere()) return run();
    const release = await this.acquire();
    try {
      return run();
    } finally {
      release();
    }
  }
}

/** The lock of this thread's SQLite connections (one database per process). */
export const sqliteWriteLock = new WriteLock();

/** What takeWritesInTurn needs of Prisma's better-sqlite3 adapter. */
interface SqliteAdapter {
  client: { prepare(sql: string): { readonly: boolean } };
  queryRaw(query: { sql: string }): Promise<unknown>;
  executeRaw(query: { sql: string }): Promise<unknown>;
  startTransaction(...args: never[]): Promise<{ commit(): Promise<void>; rollback(): Promise<void> }>;
}

/** Statement texts whose read-only flag is remembered (the ORM's statements are a fixed set). */
const MAX_REMEMBERED = 500;

/**
 * Makes a connected adapter take its writes in turn with the other threads': a transaction
 * waits for the lock before its BEGIN and gives it back after its COMMIT or ROLLBACK; a write
 * outside one waits as statement() says. BEGIN becomes BEGIN IMMEDIATE, so a transaction holds
 * the file's write lock from its start: a deferred one that read first could otherwise find,
 * at its first write, that another connection wrote since, and fail (SQLITE_BUSY_SNAPSHOT)
 * instead of waiting.
 */
export function takeWritesInTurn<A extends SqliteAdapter>(adapter: A, lock: WriteLock = sqliteWriteLock): A {
  const client = adapter.client;
  const prepare = client.prepare.bind(client);
  client.prepare = (sql) => prepare(sql === "BEGIN" ? "BEGIN IMMEDIATE" : sql);

  const readOnly = new Map<string, boolean>();
  const isReadOnly = (sql: string): boolean => {
    let known = readOnly.get(sql);
    if (known === undefined) {
      try {
        known = prepare(sql).readonly;
      } catch {
        return false; // the adapter reports the statement's error in its own terms
      }
      if (readOnly.size >= MAX_REMEMBERED) readOnly.delete(readOnly.keys().next().value!);
      readOnly.set(sql, known);
    }
    return known;
  };
  for (const method of ["queryRaw", "executeRaw"] as const) {
    const run = adapter[method].bind(adapter);
    adapter[method] = (query) => lock.statement(isReadOnly(query.sql), () => run(query));
  }

  const start = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (...args) => {
    const release = await lock.acquire();
    try {
      const transaction = await start(...args);
      const commit = transaction.commit.bind(transaction);
      const rollback = transaction.rollback.bind(transaction);
      transaction.commit = () => commit().finally(release);
      transaction.rollback = () => rollback().finally(release);
      return transaction;
    } catch (error) {
      release();
      throw error;
    }
  };
  return adapter;
}
