import { threadId, workerData } from "node:worker_threads";
import { beginImmediately, checkAdapter } from "./prisma-internals.server";

// One writer at a time across the threads of one process (decisions 019 and 020). The
// production server runs the worker on a thread of its own, with its own SQLite connection;
// SQLite lets one connection write at a time, and a connection that finds the file locked
// sleeps in SQLite's busy handler, blocking its thread for as long as SQLite likes. So every
// write transaction, and every write outside one, first takes its turn here: a lock in shared
// memory whose owner is a thread. Within a thread, writers take turns first come first served
// (transactions already ran one at a time on the thread's connection, and a statement outside
// one runs at once, inside the thread's open transaction if any, as it always did).
//
// The server's main thread (intake, the admin) goes first: while it waits, the worker's thread
// finishes the write it is in and starts no other. It takes a free lock at once, blocking for
// up to 20 ms, because a lock granted to a loop busy with requests would sit
// idle until that loop got round to it; the worker's thread waits without blocking
// (Atomics.waitAsync) and keeps the lock from one of its writes to the next while nobody else
// wants it.

const OWNER = 0;
const URGENT = 1;
const TURNS = 2;
const WAITING = 3;
const CELLS = 4;

/**
 * How long the urgent thread blocks for its turn before it waits without blocking. A worker's
 * write holds the lock for under a millisecond at the median and a few at the 99th percentile
 * (docs/lab/throughput-notes.md, "Intake first on the write lock (decision 020)"); a thread
 * descheduled in its turn holds it longer, and then the main loop must go on (the watchdog
 * lives there).
 */
export const URGENT_BLOCK_MS = 20;
/** A waiting thread looks again this often even if nothing woke it. */
const RECHECK_MS = 100;

/** The shared memory the lock lives in; a thread made by startWorkerThread is given its parent's. */
export type WriteLockMemory = SharedArrayBuffer;

export interface WriteLockOptions {
  memory?: WriteLockMemory;
  /** Whether this thread's writers go before the other threads' (the server's main thread). */
  urgent?: boolean;
  /** This lock's mark in OWNER: one per thread (never 0, which means nobody). */
  mark?: number;
  /** How long the urgent thread blocks before it waits without blocking. */
  blockMs?: number;
}

function givenMemory(): WriteLockMemory | null {
  const given = (workerData as { sqliteWriteLock?: unknown } | null)?.sqliteWriteLock;
  return given instanceof SharedArrayBuffer ? given : null;
}

type ThreadState = "free" | "taking" | "held";

export class WriteLock {
  readonly memory: WriteLockMemory;
  readonly urgent: boolean;
  readonly #cells: Int32Array;
  readonly #mark: number;
  readonly #blockMs: number;
  /** This thread's writers waiting for their turn, first come first served. */
  readonly #queue: (() => void)[] = [];
  #state: ThreadState = "free";

  constructor(options: WriteLockOptions = {}) {
    const given = givenMemory();
    this.memory = options.memory ?? given ?? new SharedArrayBuffer(CELLS * Int32Array.BYTES_PER_ELEMENT);
    // The thread that made the lock serves requests; a thread given it runs the worker.
    this.urgent = options.urgent ?? (options.memory === undefined && given === null);
    this.#mark = options.mark ?? threadId + 1;
    this.#blockMs = options.blockMs ?? URGENT_BLOCK_MS;
    this.#cells = new Int32Array(this.memory);
  }

  /** Waits for a turn of this thread's; the release given back is idempotent. */
  async acquire(): Promise<() => void> {
    if (this.#state === "free") {
      await this.#takeForThisThread();
    } else {
      Atomics.add(this.#cells, WAITING, 1);
      await new Promise<void>((resolve) => this.#queue.push(resolve));
      Atomics.sub(this.#cells, WAITING, 1);
    }
    Atomics.add(this.#cells, TURNS, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#release();
    };
  }

  /**
   * The next writer of this thread goes at once while no urgent thread waits, or always on the
   * urgent thread: the lock changes threads only when the other one needs it, so a turn is
   * never handed to a thread whose loop is busy elsewhere and left idle until it looks.
   */
  #release(): void {
    const cells = this.#cells;
    const next = this.#queue.shift();
    if (next && (this.urgent || Atomics.load(cells, URGENT) === 0)) {
      next();
      return;
    }
    Atomics.store(cells, OWNER, 0);
    Atomics.notify(cells, OWNER);
    if (!next) {
      this.#state = "free";
      return;
    }
    void this.#takeForThisThread().then(next);
  }

  /** Takes the lock across threads; this thread's writers queue behind meanwhile. */
  async #takeForThisThread(): Promise<void> {
    this.#state = "taking";
    await this.#take();
    this.#state = "held";
  }

  /** Takes the lock for this thread: the urgent one first blocks briefly, the other yields to it. */
  async #take(): Promise<void> {
    const cells = this.#cells;
    if (this.urgent) {
      Atomics.add(cells, URGENT, 1);
      try {
        if (this.#tryTake() || this.#blockFor(this.#blockMs)) return;
        await this.#waitFor(() => this.#tryTake());
      } finally {
        Atomics.sub(cells, URGENT, 1);
      }
      return;
    }
    await this.#waitFor(() => Atomics.load(cells, URGENT) === 0 && this.#tryTake());
  }

  #tryTake(): boolean {
    return Atomics.compareExchange(this.#cells, OWNER, 0, this.#mark) === 0;
  }

  /** Blocks the thread until the lock is taken or `ms` have passed; whether it was taken. */
  #blockFor(ms: number): boolean {
    const cells = this.#cells;
    const until = performance.now() + ms;
    Atomics.add(cells, WAITING, 1);
    try {
      for (;;) {
        const owner = Atomics.load(cells, OWNER);
        if (owner === 0) {
          if (this.#tryTake()) return true;
          continue;
        }
        const left = until - performance.now();
        if (left <= 0) return false;
        Atomics.wait(cells, OWNER, owner, left);
      }
    } finally {
      Atomics.sub(cells, WAITING, 1);
    }
  }

  /** Waits without blocking until `took()` says the lock is this thread's. */
  async #waitFor(took: () => boolean): Promise<void> {
    const cells = this.#cells;
    if (took()) return;
    Atomics.add(cells, WAITING, 1);
    // A pending waitAsync does not keep Node's event loop alive: a thread with nothing else to
    // do would end, its writers never served.
    const keepAlive = setInterval(() => {}, 2 ** 30);
    try {
      while (!took()) {
        const wait = Atomics.waitAsync(cells, OWNER, Atomics.load(cells, OWNER), RECHECK_MS);
        if (wait.async) await wait.value;
      }
    } finally {
      clearInterval(keepAlive);
      Atomics.sub(cells, WAITING, 1);
    }
  }

  /**
   * Calls `onStuck` when no turn has begun from one look to the next, `everyMs` apart, with
   * writers waiting both times: a holder that will never release (a thread that died in its
   * turn). Its turn cannot be taken from it, so the process must end for the host to restart
   * it. Returns the stop.
   */
  watch(everyMs: number, onStuck: () => void): () => void {
    let suspect: number | null = null;
    const timer = setInterval(() => {
      const turns = Atomics.load(this.#cells, TURNS);
      const waiting = Atomics.load(this.#cells, WAITING) > 0;
      if (!waiting) suspect = null;
      else if (suspect === turns) onStuck();
      else suspect = turns;
    }, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Whether a thread that goes first (the main thread) waits for the lock while this one has it. */
  firstInLine(): boolean {
    return !this.urgent && Atomics.load(this.#cells, URGENT) > 0;
  }

  /** Whether a writer of this thread holds the lock now. */
  heldHere(): boolean {
    return this.#state === "held";
  }

  /**
   * Runs one statement outside any transaction: a read-only one at once, a write in its turn,
   * after any transaction of this thread. The thread has one connection, so a write that ran
   * while a transaction was open there would join it: undone with a savepoint or a rollback that
   * was never its own, after its caller had been told it was written (a job's claim lost, and the
   * job run twice).
   */
  statement<T>(readOnly: boolean, run: () => T): T | Promise<T> {
    return readOnly ? run() : this.write(run);
  }

  /** Runs one write in its turn. */
  async write<T>(run: () => T): Promise<T> {
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
  const { prepare, takeBeginFailure } = beginImmediately(checkAdapter(adapter));

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
      const beginFailure = takeBeginFailure();
      if (beginFailure !== null) {
        // No transaction is open; ending this one gives the adapter its mutex back.
        await transaction.rollback();
        throw beginFailure;
      }
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
