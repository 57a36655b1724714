import { Prisma } from "@prisma/client";
import { afterEach, describe, expect, it } from "vitest";
import { createDatabaseClient } from "../../app/database/connect.server";
import { dialect, poolShare } from "../../app/database/db.server";

// DATABASE_POOL_SIZE bounds the PostgreSQL connections a process opens (several instances share
// one server and its max_connections): the whole of it on one thread, half each when the worker
// runs on a thread of its own.

describe("the pool's size", () => {
  const threaded = { WORKER_THREAD: true, WORKER_ENABLED: true };

  it("splits the process's connections between intake's thread and the worker's", () => {
    expect(poolShare({ ...threaded, DATABASE_POOL_SIZE: 10 }, true)).toBe(5);
    expect(poolShare({ ...threaded, DATABASE_POOL_SIZE: 10 }, false)).toBe(5);
    expect(poolShare({ ...threaded, DATABASE_POOL_SIZE: 7 }, true)).toBe(4);
    expect(poolShare({ ...threaded, DATABASE_POOL_SIZE: 7 }, false)).toBe(3);
    expect(poolShare({ ...threaded, DATABASE_POOL_SIZE: 1 }, false)).toBe(1);
  });

  it("gives one thread the whole of it, and leaves the driver's default when unset", () => {
    expect(poolShare({ WORKER_THREAD: false, WORKER_ENABLED: true, DATABASE_POOL_SIZE: 7 }, true)).toBe(7);
    expect(poolShare({ WORKER_THREAD: true, WORKER_ENABLED: false, DATABASE_POOL_SIZE: 7 }, true)).toBe(7);
    expect(poolShare({ ...threaded, DATABASE_POOL_SIZE: undefined }, true)).toBeUndefined();
  });
});

describe.runIf(dialect === "postgresql")("a client's pool on PostgreSQL", () => {
  const clients: { $disconnect(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.$disconnect();
  });

  /** The server processes that answered `queries` statements sent at once, each held 200 ms. */
  async function backendsAnswering(poolSize: number | undefined, queries: number): Promise<number> {
    const client = createDatabaseClient(process.env.DATABASE_URL!, { poolSize });
    clients.push(client);
    const rows = await Promise.all(
      Array.from({ length: queries }, () =>
        client.$queryRaw<{ pid: number }[]>(Prisma.sql`SELECT pg_backend_pid() AS pid, pg_sleep(0.2)::text AS slept`),
      ),
    );
    return new Set(rows.map(([row]) => row!.pid)).size;
  }

  it("opens no more connections than its size, however many statements wait", async () => {
    expect(await backendsAnswering(2, 6)).toBe(2);
  });

  it("opens more when it may (the bound above is the size's doing)", async () => {
    expect(await backendsAnswering(undefined, 6)).toBe(6);
  });
});
