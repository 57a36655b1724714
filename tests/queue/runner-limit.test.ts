import { afterEach, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { sql } from "../../app/database/sql.server";
import type { Transition } from "../../app/queue/job-states";
import { enqueue } from "../../app/queue/queue.server";
import { startJobRunner, type JobHandler, type JobRunner } from "../../app/queue/runner.server";

const prisma = databaseClient();

// The runner's changing limit (intake first, app/queue/intake-first.ts) on real job rows: it
// never claims more jobs than the limit allows at that moment, and claims more once it rises.

const runners: JobRunner[] = [];
afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.stop()));
});

/** A handler whose jobs wait until the test lets each one finish. */
function heldJobs() {
  const waiting: (() => void)[] = [];
  const handler: JobHandler = {
    run: () =>
      new Promise<Transition>((resolve) => {
        waiting.push(() => resolve({ to: "finish" }));
      }),
    giveUp: async () => {},
  };
  return { handler, waiting };
}

const counts = async (shop: string) => {
  const jobs = await prisma.job.findMany({ where: { shop }, select: { state: true } });
  const count = (state: string) => jobs.filter((job) => job.state === state).length;
  return { queued: count("queued"), running: count("running"), done: count("done") };
};

/**
 * Six due jobs in a shop of their own and a runner of concurrency 4 over them, whose limit the
 * test sets (`setLimit`) and whose jobs wait until the test lets each one finish.
 */
async function sixJobsAndARunner(shop: string, firstLimit: number) {
  const now = new Date();
  await enqueue(
    sql,
    Array.from({ length: 6 }, (_, i) => ({ shop, kind: "verify-order" as const, subject: `${shop}-${i}`, runAt: now })),
    now,
  );
  const held = heldJobs();
  let limit = firstLimit;
  runners.push(
    startJobRunner({
      handlers: {
        "verify-order": held.handler,
        "lookup-click": held.handler,
        "reconcile-shop": held.handler,
        "payout-run": held.handler,
        "payout-schedule": held.handler,
      },
      concurrency: 4,
      limit: () => limit,
      pollIntervalMs: 3_600_000,
    }),
  );
  return { waiting: held.waiting, setLimit: (next: number) => (limit = next) };
}

describe("the runner's limit", () => {
  it("claims no more jobs than the limit allows now, and more once it rises", async () => {
    const shop = "runner-limit.myshopify.com";
    const held = await sixJobsAndARunner(shop, 1);

    // Every job a claim returns starts at once, so the first start shows the whole claim.
    await expect.poll(() => held.waiting.length).toBe(1);
    expect(await counts(shop)).toEqual({ queued: 5, running: 1, done: 0 });

    // The limit rises to 3 (past the concurrency of 4 it would be capped): the next claim,
    // made when a job ends, takes up to three at once.
    held.setLimit(3);
    held.waiting.shift()!();
    await expect.poll(() => held.waiting.length).toBe(3);
    expect(await counts(shop)).toEqual({ queued: 2, running: 3, done: 1 });

    held.setLimit(10);
    for (const finish of held.waiting.splice(0)) finish();
    await expect.poll(() => held.waiting.length).toBe(2);
    for (const finish of held.waiting.splice(0)) finish();
    await expect.poll(async () => (await counts(shop)).done).toBe(6);
  });

  it("drains everything due when the limit falls below what is running", async () => {
    const shop = "runner-limit-falls.myshopify.com";
    const held = await sixJobsAndARunner(shop, 4);
    await expect.poll(() => held.waiting.length).toBe(4);

    // Intake gets busy: one job at a time from now on. The four running end one by one; the
    // runner must not take "nothing claimed" (it had no room to ask) for "nothing due".
    held.setLimit(1);
    for (const finish of held.waiting.splice(0)) finish();
    await expect.poll(() => held.waiting.length).toBe(1);
    expect(await counts(shop)).toEqual({ queued: 1, running: 1, done: 4 });
    held.waiting.shift()!();
    await expect.poll(() => held.waiting.length).toBe(1);
    held.waiting.shift()!();
    await expect.poll(async () => (await counts(shop)).done).toBe(6);
  });

  it("at a limit of none starts nothing new, lets what runs finish, and goes on once it rises", async () => {
    const shop = "runner-limit-none.myshopify.com";
    const held = await sixJobsAndARunner(shop, 2);
    await expect.poll(() => held.waiting.length).toBe(2);

    // A flood intake cannot keep up with: no new job; the two running finish.
    held.setLimit(0);
    for (const finish of held.waiting.splice(0)) finish();
    await expect.poll(async () => (await counts(shop)).done).toBe(2);
    // Several of the runner's waits for room pass: still nothing is claimed.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(held.waiting.length).toBe(0);
    expect(await counts(shop)).toEqual({ queued: 4, running: 0, done: 2 });

    // The flood ends: the runner resumes on its own (its poll is an hour away, and no wake comes).
    held.setLimit(4);
    await expect.poll(() => held.waiting.length).toBe(4);
    for (const finish of held.waiting.splice(0)) finish();
    await expect.poll(async () => (await counts(shop)).done).toBe(6);
  });
});
