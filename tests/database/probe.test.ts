import { Prisma } from "@prisma/client";
import { describe, expect, it } from "vitest";
import { dialect } from "../../app/database/db.server";
import { databaseProbeTotals, statementKind } from "../../app/database/probe.server";
import { sql } from "../../app/database/sql.server";
import { Job } from "../../app/database/tables";

// The database probe (app/database/probe.server.ts) on the test's database: every statement the
// app sends is counted by kind, transactions with their BEGIN and COMMIT, and round trips only
// where a server answers them (PostgreSQL), where a BEGIN makes none of its own.

function since(before: ReturnType<typeof databaseProbeTotals>) {
  const after = databaseProbeTotals();
  return {
    read: after.statements.read - before.statements.read,
    write: after.statements.write - before.statements.write,
    control: after.statements.control - before.statements.control,
    roundTrips: after.roundTrips - before.roundTrips,
    transactions: after.transactions - before.transactions,
    waited: after.statementSeconds - before.statementSeconds,
  };
}

describe("the database probe", () => {
  it("names a statement's kind by its first word", () => {
    expect(statementKind("  SELECT 1")).toBe("read");
    expect(statementKind("select 1")).toBe("read");
    expect(statementKind("WITH picked AS (SELECT 1) UPDATE x SET y = 1")).toBe("write");
    expect(statementKind("UPDATE x SET y = 1 RETURNING y")).toBe("write");
    expect(statementKind("\n  INSERT INTO x VALUES (1)")).toBe("write");
    expect(statementKind("COMMIT")).toBe("control");
    expect(statementKind(`SAVEPOINT "member"`)).toBe("control");
    expect(statementKind(`RELEASE "member"`)).toBe("control");
    expect(statementKind("SELECTED")).toBe("write");
  });

  it("counts statements by kind, and round trips where a server answers", async () => {
    const before = databaseProbeTotals();
    await sql.rows(Prisma.sql`SELECT ${Job.id} FROM ${Job} WHERE ${Job.id} = ${"none"}`);
    await sql.execute(Prisma.sql`UPDATE ${Job} SET ${Job.attempts} = 0 WHERE ${Job.id} = ${"none"}`);
    const counted = since(before);
    expect(counted).toMatchObject({ read: 1, write: 1, control: 0, transactions: 0 });
    expect(counted.roundTrips).toBe(dialect === "postgresql" ? 2 : 0);
    expect(counted.waited).toBeGreaterThan(0);
  });

  it("counts a transaction with its BEGIN and COMMIT, and a ROLLBACK when it fails", async () => {
    const before = databaseProbeTotals();
    await sql.transaction((tx) => tx.rows(Prisma.sql`SELECT 1 AS one`));
    await expect(
      sql.transaction(async (tx) => {
        await tx.rows(Prisma.sql`SELECT 1 AS one`);
        throw new Error("the caller's");
      }),
    ).rejects.toThrow("the caller's");
    const counted = since(before);
    // Two BEGINs, a COMMIT and a ROLLBACK. On PostgreSQL a BEGIN travels with the transaction's
    // first statement (pipeline mode): two round trips each, not three.
    expect(counted).toMatchObject({ read: 2, write: 0, control: 4, transactions: 2 });
    expect(counted.roundTrips).toBe(dialect === "postgresql" ? 4 : 0);
  });

  it("counts statements issued together in a transaction as one round trip with its BEGIN", async () => {
    const before = databaseProbeTotals();
    const [one, two] = await sql.transaction((tx) =>
      Promise.all([
        tx.rows<{ n: number }>(Prisma.sql`SELECT 1 AS n`),
        tx.rows<{ n: number }>(Prisma.sql`SELECT 2 AS n`),
      ]),
    );
    expect([one, two].map((rows) => rows.map((row) => Number(row.n)))).toEqual([[1], [2]]);
    const counted = since(before);
    expect(counted).toMatchObject({ read: 2, control: 2, transactions: 1 });
    // BEGIN and both statements in one write, then the COMMIT.
    expect(counted.roundTrips).toBe(dialect === "postgresql" ? 2 : 0);
  });

  it("counts statements issued together outside a transaction as one round trip, and each awaited one as its own", async () => {
    const before = databaseProbeTotals();
    const [one, two, three] = await sql.together(async (db) => {
      const [a, b] = await Promise.all([
        db.rows<{ n: number }>(Prisma.sql`SELECT 1 AS n`),
        db.rows<{ n: number }>(Prisma.sql`SELECT 2 AS n`),
      ]);
      return [a, b, await db.rows<{ n: number }>(Prisma.sql`SELECT 3 AS n`)];
    });
    expect([one, two, three].map((rows) => rows.map((row) => Number(row.n)))).toEqual([[1], [2], [3]]);
    const counted = since(before);
    expect(counted).toMatchObject({ read: 3, control: 0, transactions: 0 });
    expect(counted.roundTrips).toBe(dialect === "postgresql" ? 2 : 0);
  });
});
