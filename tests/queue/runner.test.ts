import { afterEach, describe, expect, it } from "vitest";
import prisma from "../../app/db.server";
import type { Transition } from "../../app/queue/job-states";
import { enqueue } from "../../app/queue/queue.server";
import { startJobRunner, type JobHandler, type JobRunner } from "../../app/queue/runner.server";

// The runner's drain on real job rows: it stops only once a claim has come back short, never
// because jobs that ended together left it with nothing running and nothing claimed. Its poll
// is an hour away and nothing wakes it, so whatever is due must run without either.

const runners: JobRunner[] = [];
afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.stop()));
});

describe("the runner's drain", () => {
  it("goes on claiming after jobs that end together, although it had no room to ask before", async () => {
    const shop = "runner-drain.myshopify.com";
    const now = new Date();
    await enqueue(
      prisma,
      Array.from({ length: 10 }, (_, i) => ({
        shop,
        kind: "verify-order" as const,
        subject: `${shop}-${i}`,
        runAt: now,
      })),
      now,
    );
    const waiting: (() => void)[] = [];
    const handler: JobHandler = {
      run: () => new Promise<Transition>((resolve) => waiting.push(() => resolve({ to: "finish" }))),
      giveUp: async () => {},
    };
    // Concurrency 8: the runner claims again once a quarter of its slots (2) are free.
    runners.push(
      startJobRunner({
        handlers: { "verify-order": handler, "lookup-click": handler },
        concurrency: 8,
        pollIntervalMs: 3_600_000,
        takeTurns: false,
      }),
    );
    await expect.poll(() => waiting.length).toBe(8);

    // One ends: one slot is free, too few to claim for.
    waiting.shift()!();
    await expect.poll(async () => prisma.job.count({ where: { shop, state: "done" } })).toBe(1);
    // The other seven end in the same turn, as the members of one group commit do.
    for (const finish of waiting.splice(0)) finish();

    await expect.poll(() => waiting.length).toBe(2);
    for (const finish of waiting.splice(0)) finish();
    await expect.poll(async () => prisma.job.count({ where: { shop, state: "done" } })).toBe(10);
  });
});
