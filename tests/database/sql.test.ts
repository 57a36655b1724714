import { randomUUID } from "node:crypto";
import { Prisma, type Job } from "@prisma/client";
import { describe, expect, it } from "vitest";
import { databaseClient, isUniqueViolation } from "../../app/database/db.server";
import {
  insertRowWhen,
  insertRows,
  modelRows,
  rowById,
  rowsMatching,
  sql,
  updateRow,
  updateWhere,
} from "../../app/database/sql.server";

const prisma = databaseClient();

// Raw SQL on the driver (app/database/sql.server.ts), on the test's database (SQLite, and PostgreSQL in
// the postgresql project): what it reads comes back as the client would return it, what it
// writes the client reads back, its transactions commit or leave nothing, and its unique
// violations are told apart from other failures.

const AT = new Date("2026-11-22T10:11:12.345Z");

function newJob(overrides: Partial<Job> = {}) {
  return {
    id: randomUUID(),
    shop: `sql-${randomUUID()}.myshopify.com`,
    kind: "verify-order",
    subject: randomUUID(),
    state: "queued",
    runAt: AT,
    createdAt: AT,
    updatedAt: AT,
    ...overrides,
  };
}

describe("raw SQL on the driver", () => {
  it("reads rows back in the client's shapes: times, booleans, integers, nulls", async () => {
    const job = newJob();
    await prisma.job.create({ data: { ...job, rerun: true, attempts: 3, leaseExpiresAt: null } });
    const viaClient = await prisma.job.findUniqueOrThrow({ where: { id: job.id } });
    const viaDriver = await rowById<Job>(sql, "Job", job.id);
    expect(viaDriver).toEqual(viaClient);
    expect(viaDriver).toMatchObject({ rerun: true, attempts: 3, runAt: AT, leaseExpiresAt: null });
    expect(await rowById(sql, "Job", randomUUID())).toBeNull();
  });

  it("reads the client's bigints and decimal strings as the client does", async () => {
    const verificationId = randomUUID();
    const shop = `sql-${randomUUID()}.myshopify.com`;
    await prisma.verification.create({
      data: {
        id: verificationId,
        shop,
        orderId: "1",
        orderGid: "gid://shopify/Order/1",
        orderCreatedAt: AT,
        orderFacts: "{}",
      },
    });
    const commission = await prisma.commission.create({
      data: {
        shop,
        verificationId,
        orderId: "1",
        creatorId: "cr_1",
        expectedTag: "alice-20",
        arrivedTag: "honey-77",
        orderValue: "100.00",
        currency: "USD",
        rate: "10",
        amount: "10.00",
        amountMinor: 9_007_199_254_740_993n,
        redirected: true,
        holdUntil: AT,
        createdAt: AT,
      },
    });
    const rows = await sql.rows(Prisma.sql`SELECT * FROM "Commission" WHERE "id" = ${commission.id}`);
    expect(modelRows("Commission", rows)).toEqual([commission]);
  });

  it("writes what the client reads back, and returns the row as it now stands", async () => {
    const job = newJob();
    await insertRows(sql, "Job", [job]);
    const later = new Date(AT.getTime() + 1_000);
    const updated = await updateRow<Job>(sql, "Job", job.id, {
      rerun: true,
      attempts: Prisma.sql`"attempts" + 2`,
      leaseOwner: "worker-1",
      leaseExpiresAt: later,
      updatedAt: later,
    });
    const viaClient = await prisma.job.findUniqueOrThrow({ where: { id: job.id } });
    expect(updated).toEqual(viaClient);
    expect(viaClient).toMatchObject({ rerun: true, attempts: 2, leaseOwner: "worker-1", leaseExpiresAt: later });
    expect(await updateRow(sql, "Job", randomUUID(), { updatedAt: later })).toBeNull();
    expect(await updateWhere(sql, "Job", Prisma.sql`"id" = ${job.id} AND "state" = 'done'`, { rerun: false })).toBe(0);
  });

  it("finds rows by any of several keys", async () => {
    const jobs = [newJob(), newJob(), newJob()];
    await insertRows(sql, "Job", jobs);
    const found = await rowsMatching(
      sql,
      "Job",
      ["id", "subject"],
      [jobs[0]!, jobs[2]!, newJob()].map(({ kind, subject }) => ({ kind, subject })),
    );
    expect(found.map((row) => row.id).sort()).toEqual([jobs[0]!.id, jobs[2]!.id].sort());
  });

  it("commits a transaction, or leaves nothing of it when it fails", async () => {
    const kept = newJob();
    await sql.transaction((tx) => insertRows(tx, "Job", [kept]));
    const dropped = newJob();
    await expect(
      sql.transaction(async (tx) => {
        await insertRows(tx, "Job", [dropped]);
        throw new Error("fails after its write");
      }),
    ).rejects.toThrow("fails after its write");
    expect(await prisma.job.count({ where: { id: { in: [kept.id, dropped.id] } } })).toBe(1);
    // The connection is free again for the client's own transactions.
    await prisma.$transaction((tx) => tx.job.update({ where: { id: kept.id }, data: { lastError: "seen" } }));
    expect((await rowById<Job>(sql, "Job", kept.id))?.lastError).toBe("seen");
  });

  it("a write made while another transaction is open is its own: that transaction's rollback leaves it", async () => {
    const inside = newJob();
    const outside = newJob();
    let opened!: () => void;
    const isOpen = new Promise<void>((resolve) => (opened = resolve));
    let carryOn!: () => void;
    const goOn = new Promise<void>((resolve) => (carryOn = resolve));
    const failing = sql
      .transaction(async (tx) => {
        await insertRows(tx, "Job", [inside]);
        opened();
        await goOn;
        throw new Error("the transaction fails after the other write was made");
      })
      .catch((error: unknown) => error);
    await isOpen;
    // Another caller's write (the worker claiming a job, say), not awaited by the transaction.
    const written = insertRows(sql, "Job", [outside]);
    carryOn();
    expect(await failing).toBeInstanceOf(Error);
    await written;
    expect(await rowById(sql, "Job", inside.id)).toBeNull();
    expect(await rowById(sql, "Job", outside.id)).toMatchObject({ id: outside.id });
  });

  it("skips a row a unique key already holds when asked to, and writes the others", async () => {
    const job = newJob();
    expect(await insertRows(sql, "Job", [job])).toBe(1);
    const other = newJob();
    const written = await insertRows(sql, "Job", [{ ...job, id: randomUUID(), lastError: "second" }, other], {
      skipDuplicates: true,
    });
    expect(written).toBe(1);
    expect(await rowById<Job>(sql, "Job", job.id)).toMatchObject({ lastError: null });
    expect(await rowById(sql, "Job", other.id)).toMatchObject({ id: other.id });
  });

  it("writes a row only when its condition holds as the statement runs, after what was issued before it", async () => {
    const first = newJob();
    const follower = newJob({ subject: first.id });
    const orphan = newJob();
    const after = (id: string) => Prisma.sql`EXISTS (SELECT 1 FROM "Job" WHERE "id" = ${id})`;
    const [, followed, orphaned] = await sql.transaction((tx) =>
      Promise.all([
        insertRows(tx, "Job", [first]),
        insertRowWhen(tx, "Job", follower, after(first.id)),
        insertRowWhen(tx, "Job", orphan, after(randomUUID())),
      ]),
    );
    expect([followed, orphaned]).toEqual([true, false]);
    expect(await rowById<Job>(sql, "Job", follower.id)).toMatchObject({ subject: first.id, runAt: AT });
    expect(await rowById(sql, "Job", orphan.id)).toBeNull();
  });

  it("runs statements together on one connection: a failing one fails alone, and the connection serves on", async () => {
    const job = newJob();
    await insertRows(sql, "Job", [job]);
    const [found, duplicate, missing] = await sql.together((db) =>
      Promise.all([
        rowById<Job>(db, "Job", job.id),
        insertRows(db, "Job", [job]).catch((error: unknown) => error),
        rowById<Job>(db, "Job", randomUUID()),
      ]),
    );
    expect(found).toMatchObject({ id: job.id });
    expect(isUniqueViolation(duplicate)).toBe(true);
    expect(missing).toBeNull();
    // Each statement committed on its own: the write after the failed one stays.
    const later = newJob();
    await sql.together(async (db) => {
      await insertRows(db, "Job", [job]).catch(() => {});
      await insertRows(db, "Job", [later]);
    });
    expect(await rowById(sql, "Job", later.id)).toMatchObject({ id: later.id });
  });

  it("tells a unique violation apart from other failures", async () => {
    const job = newJob();
    await insertRows(sql, "Job", [job]);
    const duplicate = await insertRows(sql, "Job", [{ ...job, id: randomUUID() }]).catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(Error);
    expect(isUniqueViolation(duplicate)).toBe(true);
    const missingColumn = await insertRows(sql, "Job", [{ id: randomUUID(), shop: "x" }]).catch(
      (error: unknown) => error,
    );
    expect(missingColumn).toBeInstanceOf(Error);
    expect(isUniqueViolation(missingColumn)).toBe(false);
  });
});
