import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { LeaseLost, type ClaimedJob } from "../../app/queue/job-states";
import { fenced, settle } from "../../app/queue/queue.server";
import { insertRows, sql, updateWhere, type Sql } from "../../app/database/sql.server";
import { Prisma } from "@prisma/client";

const prisma = databaseClient();

// The lease fence on jobs' writes that run at once: on SQLite they share a commit
// (app/database/transaction-groups.server.ts), and the fence is still proved for each write on its own.

const NOW = new Date("2026-11-25T12:00:00.000Z");
const OWNER = "worker-fenced-writes";

async function runningJob(shop: string): Promise<ClaimedJob> {
  const id = randomUUID();
  await insertRows(sql, "Job", [
    {
      id,
      shop,
      kind: "verify-order",
      subject: randomUUID(),
      state: "running",
      attempts: 1,
      leaseOwner: OWNER,
      leaseExpiresAt: new Date(NOW.getTime() + 60_000),
      runAt: NOW,
      createdAt: NOW,
      updatedAt: NOW,
    },
  ]);
  return { id, shop, kind: "verify-order", subject: randomUUID(), attempts: 1, runAt: NOW, owner: OWNER };
}

/** A domain write to look for afterwards: a parked job row marked with the writer's id. */
function mark(job: ClaimedJob) {
  return (tx: Sql) =>
    insertRows(tx, "Job", [
      {
        id: randomUUID(),
        shop: job.shop,
        kind: "lookup-click",
        subject: `mark-${job.id}`,
        state: "parked",
        runAt: NOW,
        createdAt: NOW,
        updatedAt: NOW,
      },
    ]).then(() => job.id);
}

describe("fenced writes that run at once", () => {
  it("land for the jobs still held, and are refused, alone, for a job another worker took over", async () => {
    const shop = `fenced-${randomUUID()}.myshopify.com`;
    const [kept, takenOver, finished] = [await runningJob(shop), await runningJob(shop), await runningJob(shop)];
    await updateWhere(sql, "Job", Prisma.sql`"id" = ${takenOver.id}`, { leaseOwner: "worker-that-took-over" });

    const results = await Promise.allSettled([
      fenced(kept, NOW, mark(kept)),
      fenced(takenOver, NOW, mark(takenOver)),
      fenced(finished, NOW, mark(finished), { to: "finish" }),
      settle(takenOver, { to: "finish" }, NOW),
    ]);

    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "rejected"]);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(LeaseLost);
    expect((results[3] as PromiseRejectedResult).reason).toBeInstanceOf(LeaseLost);
    const marks = await prisma.job.findMany({ where: { shop, kind: "lookup-click" }, select: { subject: true } });
    expect(marks.map((m) => m.subject).sort()).toEqual([`mark-${kept.id}`, `mark-${finished.id}`].sort());
    const states = await prisma.job.findMany({
      where: { shop, kind: "verify-order" },
      select: { id: true, state: true, leaseOwner: true },
    });
    expect(new Map(states.map((s) => [s.id, [s.state, s.leaseOwner]]))).toEqual(
      new Map([
        [kept.id, ["running", OWNER]],
        [takenOver.id, ["running", "worker-that-took-over"]],
        [finished.id, ["done", null]],
      ]),
    );
  });

  it("reports a lost lease rather than the write's own failure, the fence being read after the write", async () => {
    const shop = `fenced-${randomUUID()}.myshopify.com`;
    const job = await runningJob(shop);
    await updateWhere(sql, "Job", Prisma.sql`"id" = ${job.id}`, { leaseOwner: "worker-that-took-over" });
    const failing = async (tx: Sql) => {
      await mark(job)(tx);
      await tx.rows(Prisma.sql`SELECT * FROM "NoSuchTable"`);
    };
    await expect(fenced(job, NOW, failing)).rejects.toBeInstanceOf(LeaseLost);
    await expect(fenced(job, NOW, mark(job))).rejects.toBeInstanceOf(LeaseLost);
    expect(await prisma.job.count({ where: { shop, kind: "lookup-click" } })).toBe(0);
  });
});
