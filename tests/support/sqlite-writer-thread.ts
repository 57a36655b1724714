import { parentPort, workerData } from "node:worker_threads";
import { createDatabaseClient } from "../../app/database/connect.server";
import { sqliteWriteLock } from "../../app/database/sqlite-write-lock.server";

// A thread with its own Prisma client on the test's SQLite file, as the production server's
// worker thread has: it shares the parent's write lock (workerData.sqliteWriteLock, which the
// lock module reads) and, once told to go, counts with read-then-write transactions.

export async function countUp(db: ReturnType<typeof createDatabaseClient>, times: number, who: string): Promise<void> {
  for (let i = 0; i < times; i++) {
    await db.$transaction(async (tx) => {
      const [row] = await tx.$queryRawUnsafe<{ n: bigint | number }[]>("SELECT n FROM counter");
      // Another thread's turn could come here, between this read and the write below.
      await new Promise((resolve) => setImmediate(resolve));
      await tx.$executeRawUnsafe("UPDATE counter SET n = ?", Number(row!.n) + 1);
    });
    // A write outside any transaction, between them.
    await db.$executeRawUnsafe("INSERT INTO writes (who) VALUES (?)", who);
  }
}

if (parentPort) {
  const port = parentPort;
  const { url, rounds } = workerData as { url: string; rounds: number; sqliteWriteLock: SharedArrayBuffer };
  const db = createDatabaseClient(url);
  // Connected and loaded before the count starts, so the two threads' counts overlap.
  void db.$connect().then(() => port.postMessage("ready"));
  port.once("message", () => {
    countUp(db, rounds, "thread")
      .then(() => db.$disconnect())
      .then(
        () => port.postMessage({ ok: true, heldAfter: sqliteWriteLock.heldHere() }),
        (error: unknown) => port.postMessage({ ok: false, error: String(error) }),
      );
  });
}
