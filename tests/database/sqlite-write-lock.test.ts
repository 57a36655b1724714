import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createDatabaseClient } from "../../app/database/connect.server";
import { sqliteWriteLock, WriteLock } from "../../app/database/sqlite-write-lock.server";
import { countUp } from "../support/sqlite-writer-thread";

const THREAD = new URL("../support/sqlite-writer-thread.ts", import.meta.url).href;
// TypeScript on a thread: tsx's loader, registered from inside the thread for that module (a
// thread's own --import was not honoured on Node 20). The tests run from the project's root.
const LOADER = `import("tsx/esm/api").then(({ tsImport }) => tsImport(${JSON.stringify(THREAD)}, ${JSON.stringify(THREAD)}))`;

/** A writer thread, loaded and connected; `go` starts its count and resolves with its result. */
async function startWriterThread(url: string, rounds: number, memory: SharedArrayBuffer) {
  const thread = new Worker(LOADER, { eval: true, workerData: { url, rounds, sqliteWriteLock: memory } });
  const failed = new Promise<never>((_, reject) => {
    thread.once("error", reject);
    thread.once("exit", (code) => reject(new Error(`the writer thread ended (${code}) before it answered`)));
  });
  await Promise.race([new Promise((resolve) => thread.once("message", resolve)), failed]);
  return {
    go: () => {
      const result = new Promise<{ ok: boolean; error?: string; heldAfter?: boolean }>((resolve) =>
        thread.once("message", resolve),
      );
      thread.postMessage("go");
      return Promise.race([result, failed]).finally(() => thread.terminate());
    },
  };
}

describe("one SQLite writer at a time across threads", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function scratchDatabase(): string {
    const dir = mkdtempSync(path.join(tmpdir(), "write-lock-"));
    dirs.push(dir);
    const file = path.join(dir, "app.sqlite");
    const setup = new Database(file);
    setup.pragma("journal_mode = WAL");
    setup.exec("CREATE TABLE counter (n INTEGER NOT NULL); INSERT INTO counter VALUES (0);");
    setup.exec("CREATE TABLE writes (who TEXT NOT NULL)");
    setup.close();
    return `file:${file}`;
  }

  it("lets read-then-write transactions on two threads' connections interleave without a failure or a lost update", async () => {
    const url = scratchDatabase();
    const rounds = 200;
    const db = createDatabaseClient(url);
    try {
      await db.$connect();
      const writer = await startWriterThread(url, rounds, sqliteWriteLock.memory);
      const [thread, here] = await Promise.all([writer.go(), countUp(db, rounds, "main").then(() => "done")]);
      expect(thread).toEqual({ ok: true, heldAfter: false });
      expect(here).toBe("done");
      const [counter] = await db.$queryRawUnsafe<{ n: bigint }[]>("SELECT n FROM counter");
      expect(Number(counter!.n)).toBe(2 * rounds);
      const writes = await db.$queryRawUnsafe<{ who: string; count: bigint }[]>(
        "SELECT who, COUNT(*) AS count FROM writes GROUP BY who ORDER BY who",
      );
      expect(writes.map((row) => [row.who, Number(row.count)])).toEqual([
        ["main", rounds],
        ["thread", rounds],
      ]);
      expect(sqliteWriteLock.heldHere()).toBe(false);
    } finally {
      await db.$disconnect();
    }
  });

  // Two locks on one memory stand for two threads' (each thread has one); the urgent one does
  // not block here, where the holder it would wait for runs on the same thread.
  function pair() {
    const main = new WriteLock({ urgent: true, mark: 1, blockMs: 0 });
    const worker = new WriteLock({ memory: main.memory, urgent: false, mark: 2 });
    return { main, worker };
  }

  it("serves a thread's writers first come, first served, and gives a turn back once however often it is released", async () => {
    const { worker: lock } = pair();
    const order: string[] = [];
    const first = await lock.acquire();
    const waiting = ["b", "c", "d"].map((name) =>
      lock.acquire().then((release) => {
        order.push(name);
        release();
        release();
      }),
    );
    expect(lock.heldHere()).toBe(true);
    first();
    first();
    await Promise.all(waiting);
    expect(order).toEqual(["b", "c", "d"]);
    expect(lock.heldHere()).toBe(false);
  });

  it("serves the main thread before the worker's next writers, and the worker once the main thread is done", async () => {
    const { main, worker } = pair();
    const order: string[] = [];
    const inTurn = (lock: WriteLock, name: string) =>
      lock.acquire().then((release) => {
        order.push(name);
        release();
      });
    const first = await worker.acquire();
    const workers = [inTurn(worker, "worker 2"), inTurn(worker, "worker 3")];
    const intake = inTurn(main, "main");
    expect(main.heldHere()).toBe(false);
    first();
    await Promise.all([...workers, intake]);
    expect(order).toEqual(["main", "worker 2", "worker 3"]);
    expect(main.heldHere() || worker.heldHere()).toBe(false);
  });

  it("tells the worker's thread, while it holds the lock, that the main thread waits for it", async () => {
    const { main, worker } = pair();
    const release = await worker.acquire();
    expect(worker.firstInLine()).toBe(false);
    const intake = main.acquire();
    expect(worker.firstInLine()).toBe(true);
    expect(main.firstInLine()).toBe(false); // the main thread never gives way to the worker's
    release();
    (await intake)();
    expect(worker.firstInLine()).toBe(false);
  });

  it("keeps the lock on the main thread from one of its writers to the next while the worker waits", async () => {
    const { main, worker } = pair();
    const order: string[] = [];
    const first = await main.acquire();
    const waiting = worker.acquire().then((release) => {
      order.push("worker");
      release();
    });
    const next = main.acquire().then((release) => {
      order.push("main 2");
      release();
    });
    first();
    await Promise.all([waiting, next]);
    expect(order).toEqual(["main 2", "worker"]);
  });

  it("says so when writers wait and no turn begins, and not while turns go round", async () => {
    const { main, worker } = pair();
    let stuck = 0;
    const unwatch = main.watch(20, () => stuck++);
    try {
      const release = await worker.acquire();
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(stuck).toBe(0); // held, but nobody waits
      const waiter = main.acquire();
      await vi.waitFor(() => expect(stuck).toBeGreaterThan(0));
      release();
      (await waiter)();
      const seen = stuck;
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(stuck).toBe(seen);
    } finally {
      unwatch();
    }
  });

  it("runs a write outside a transaction after this thread's transaction, never inside it", async () => {
    const { main: lock } = pair();
    const release = await lock.acquire();
    const order: string[] = [];
    // On the thread's one connection it would join the open transaction, and share its fate.
    const outside = lock.write(() => order.push("outside"));
    // The transaction's own statement runs at once (sql.server.ts does not queue it).
    order.push("the transaction's own");
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(["the transaction's own"]);
    release();
    await outside;
    expect(order).toEqual(["the transaction's own", "outside"]);
    expect(lock.heldHere()).toBe(false);
  });
});
