import { randomUUID } from "node:crypto";
import { Prisma } from "@prisma/client";
import { describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { insertRows, sql, type Sql } from "../../app/database/sql.server";
import { TransactionGroups, type Transact } from "../../app/database/transaction-groups.server";

const prisma = databaseClient();

// Group commit (app/database/transaction-groups.server.ts) on the test's database (SQLite, and PostgreSQL
// in the postgresql project): writes that come together share one transaction, each is still
// all or nothing, and nobody hears "done" before the COMMIT.

const AT = new Date("2026-11-25T10:00:00.000Z");

/** A job row of its own per call: something to write and to look for afterwards. */
function insertJob(tx: Sql, shop: string): Promise<string> {
  const id = randomUUID();
  return insertRows(tx, "Job", [
    { id, shop, kind: "verify-order", subject: id, state: "done", runAt: AT, createdAt: AT, updatedAt: AT },
  ]).then(() => id);
}

async function jobsOf(shop: string): Promise<string[]> {
  const rows = await prisma.job.findMany({ where: { shop }, select: { id: true } });
  return rows.map((row) => row.id).sort();
}

/** sql.transaction, counting the transactions it was asked for. */
function counted(): { transact: Transact; count(): number } {
  let count = 0;
  return {
    transact: (fn) => {
      count++;
      return sql.transaction(fn);
    },
    count: () => count,
  };
}

const newShop = () => `groups-${randomUUID()}.myshopify.com`;

describe("transaction groups", () => {
  it("commits writes that arrive together in one transaction, each with its own result", async () => {
    const shop = newShop();
    const transactions = counted();
    const groups = new TransactionGroups(transactions.transact, { least: 8, most: 8 });
    const ids = await Promise.all(Array.from({ length: 5 }, () => groups.run((tx) => insertJob(tx, shop))));
    expect(transactions.count()).toBe(1);
    expect(new Set(ids).size).toBe(5);
    expect(await jobsOf(shop)).toEqual([...ids].sort());
  });

  it("puts no more than its bound in one transaction", async () => {
    const shop = newShop();
    const transactions = counted();
    const groups = new TransactionGroups(transactions.transact, { least: 4, most: 4 });
    const ids = await Promise.all(Array.from({ length: 10 }, () => groups.run((tx) => insertJob(tx, shop))));
    expect(transactions.count()).toBe(3);
    expect(await jobsOf(shop)).toEqual([...ids].sort());
  });

  it("ends a group early when someone waits to write, once it has its least, and commits the rest in the next", async () => {
    const shop = newShop();
    const transactions = counted();
    // Someone always waits: every group stops at its least, two writes.
    const groups = new TransactionGroups(transactions.transact, { least: 2, most: 8 }, () => true);
    const ids = await Promise.all(Array.from({ length: 6 }, () => groups.run((tx) => insertJob(tx, shop))));
    expect(transactions.count()).toBe(3);
    expect(await jobsOf(shop)).toEqual([...ids].sort());
  });

  it("undoes a failing member's writes alone, and gives it its own error", async () => {
    const shop = newShop();
    const groups = new TransactionGroups(counted().transact, { least: 8, most: 8 });
    const failure = new Error("this member's write is refused");
    const results = await Promise.allSettled([
      groups.run((tx) => insertJob(tx, shop)),
      groups.run(async (tx) => {
        await insertJob(tx, shop);
        await insertJob(tx, shop);
        throw failure;
      }),
      groups.run((tx) => insertJob(tx, shop)),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toBe(failure);
    const kept = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    expect(await jobsOf(shop)).toEqual(kept.sort());
  });

  it("answers its members only after the COMMIT", async () => {
    const shop = newShop();
    const events: string[] = [];
    const groups = new TransactionGroups(
      async (fn) => {
        const result = await sql.transaction(fn);
        events.push("committed");
        return result;
      },
      { least: 8, most: 8 },
    );
    await Promise.all(
      [1, 2, 3].map((n) =>
        groups
          .run((tx) => insertJob(tx, shop))
          .then(() => {
            events.push(`member ${n} answered`);
          }),
      ),
    );
    expect(events).toEqual(["committed", "member 1 answered", "member 2 answered", "member 3 answered"]);
  });

  it("fails every member, and leaves nothing written, when the transaction itself fails", async () => {
    const shop = newShop();
    const lost = new Error("the disk is full");
    const groups = new TransactionGroups(
      (fn) =>
        sql.transaction(async (tx) => {
          await fn(tx);
          throw lost; // as a failing COMMIT would: the transaction rolls back
        }),
      { least: 8, most: 8 },
    );
    const results = await Promise.allSettled([1, 2, 3].map(() => groups.run((tx) => insertJob(tx, shop))));
    expect(results.map((r) => r.status === "rejected" && r.reason)).toEqual([lost, lost, lost]);
    expect(await jobsOf(shop)).toEqual([]);
  });

  it("fails the group a transaction could not begin for, then goes on with the next", async () => {
    const shop = newShop();
    let refuse = true;
    const groups = new TransactionGroups(
      (fn) => {
        if (refuse) return Promise.reject(new Error("database is locked"));
        return sql.transaction(fn);
      },
      { least: 8, most: 8 },
    );
    const refused = await Promise.allSettled([1, 2].map(() => groups.run((tx) => insertJob(tx, shop))));
    expect(refused.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    refuse = false;
    const id = await groups.run((tx) => insertJob(tx, shop));
    expect(await jobsOf(shop)).toEqual([id]);
  });

  it("takes into a group what arrived while it waited for the database's writer", async () => {
    const shop = newShop();
    const transactions = counted();
    let letIn!: () => void;
    const writerFree = new Promise<void>((resolve) => (letIn = resolve));
    const groups = new TransactionGroups(
      async (fn) => {
        await writerFree;
        return transactions.transact(fn);
      },
      { least: 8, most: 8 },
    );
    const first = groups.run((tx) => insertJob(tx, shop));
    await new Promise((resolve) => setTimeout(resolve, 20)); // the group has started and waits
    const later = [groups.run((tx) => insertJob(tx, shop)), groups.run((tx) => insertJob(tx, shop))];
    letIn();
    const ids = await Promise.all([first, ...later]);
    expect(transactions.count()).toBe(1);
    expect(await jobsOf(shop)).toEqual(ids.sort());
  });

  it("keeps a member's savepoint from leaking into the next: a failed statement undoes only its member", async () => {
    const shop = newShop();
    const groups = new TransactionGroups(counted().transact, { least: 8, most: 8 });
    const taken = randomUUID();
    const results = await Promise.allSettled([
      groups.run((tx) =>
        insertRows(tx, "Job", [
          {
            id: taken,
            shop,
            kind: "verify-order",
            subject: taken,
            state: "done",
            runAt: AT,
            createdAt: AT,
            updatedAt: AT,
          },
        ]),
      ),
      // The same subject again: the unique key refuses this member's second statement.
      groups.run(async (tx) => {
        await insertJob(tx, shop);
        await tx.execute(
          Prisma.sql`INSERT INTO "Job" ("id", "shop", "kind", "subject", "state", "runAt", "createdAt", "updatedAt")
                     SELECT ${randomUUID()}, "shop", "kind", "subject", "state", "runAt", "createdAt", "updatedAt"
                     FROM "Job" WHERE "id" = ${taken}`,
        );
      }),
      groups.run((tx) => insertJob(tx, shop)),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    const kept = [taken, (results[2] as PromiseFulfilledResult<string>).value].sort();
    expect(await jobsOf(shop)).toEqual(kept);
  });
});
