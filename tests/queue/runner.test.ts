import { afterEach, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { sql } from "../../app/database/sql.server";
import type { Transition } from "../../app/queue/job-states";
import { enqueue, reopen } from "../../app/queue/queue.server";
import { startJobRunner, type JobHandler, type JobRunner, type RunnerOptions } from "../../app/queue/runner.server";

const prisma = databaseClient();

// The runner's drain on real job rows: it stops only once a claim has come back short, never
// because jobs that ended together left it with nothing running and nothing claimed; and what
// falls due after it stopped runs at its time. Its poll is an hour away and nothing wakes it,
// so whatever is due must run without either.

const runners: JobRunner[] = [];
afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.stop()));
});

describe("the runner's drain", () => {
  it("goes on claiming after jobs that end together, although it had no room to ask before", async () => {
    const shop = "runner-drain.myshopify.com";
    const now = new Date();
    await enqueue(
      sql,
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
        handlers: {
          "verify-order": handler,
          "lookup-click": handler,
          "reconcile-shop": handler,
          "payout-run": handler,
          "payout-schedule": handler,
        },
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

  it("runs a job it deferred once the job's time comes, not at the next poll", async () => {
    const shop = "runner-deferred.myshopify.com";
    const now = new Date();
    await enqueue(sql, [{ shop, kind: "verify-order", subject: `${shop}-1`, runAt: now }], now);
    const runs: Date[] = [];
    const handler: JobHandler = {
      run: async () => {
        runs.push(new Date());
        // The first run waits for the shop's bucket, as a throttled tag write does.
        return runs.length === 1 ? { to: "defer", at: new Date(Date.now() + 200), reason: "bucket" } : { to: "finish" };
      },
      giveUp: async () => {},
    };
    runners.push(startRunner(handler));

    await expect
      .poll(async () => (await prisma.job.findFirst({ where: { shop } }))?.state, { timeout: 10_000 })
      .toBe("done");
    expect(runs).toHaveLength(2);
  });

  it("runs a job again when something arrived for it while it ran, without a wake-up", async () => {
    const shop = "runner-rerun.myshopify.com";
    const subject = `${shop}-1`;
    const now = new Date();
    await enqueue(sql, [{ shop, kind: "verify-order", subject, runAt: now }], now);
    const finishes: (() => void)[] = [];
    const handler: JobHandler = {
      run: () => new Promise<Transition>((resolve) => finishes.push(() => resolve({ to: "finish" }))),
      giveUp: async () => {},
    };
    runners.push(startRunner(handler));
    await expect.poll(() => finishes.length).toBe(1);

    // A refund for the order, recorded while its job runs (intake's reopen, without its wake-up).
    await reopen(sql, "verify-order", subject, new Date());
    finishes[0]!();

    await expect.poll(() => finishes.length, { timeout: 10_000 }).toBe(2);
    finishes[1]!();
    await expect
      .poll(async () => (await prisma.job.findFirst({ where: { shop } }))?.state, { timeout: 10_000 })
      .toBe("done");
  });
});

describe("the lease", () => {
  it("stops a job whose lease has run out since its last renewal, whatever the renewals answered", async () => {
    const shop = "runner-lease.myshopify.com";
    let clockMs = Date.now();
    await enqueue(
      sql,
      [{ shop, kind: "verify-order", subject: `${shop}-1`, runAt: new Date(clockMs) }],
      new Date(clockMs),
    );
    let started!: () => void;
    const isRunning = new Promise<void>((resolve) => (started = resolve));
    let stoppedBy: unknown = null;
    const handler: JobHandler = {
      // An outside call that would go on for as long as it is let: it ends when its signal does.
      run: async (ctx) => {
        started();
        await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
        stoppedBy = ctx.signal.reason;
        return { to: "finish" };
      },
      giveUp: async () => {},
    };
    runners.push(startRunner(handler, { concurrency: 1, leaseMs: 300, now: () => new Date(clockMs) }));
    await isRunning;
    // The process stood still past the lease (a frozen host, say): no renewal went through in it.
    clockMs += 10_000;
    await expect.poll(() => stoppedBy, { timeout: 5_000 }).toBeInstanceOf(Error);
    expect((stoppedBy as Error).name).toBe("LeaseLost");
  });
});

function startRunner(handler: JobHandler, options: Partial<RunnerOptions> = {}): JobRunner {
  return startJobRunner({
    handlers: {
      "verify-order": handler,
      "lookup-click": handler,
      "reconcile-shop": handler,
      "payout-run": handler,
      "payout-schedule": handler,
    },
    concurrency: 4,
    pollIntervalMs: 3_600_000,
    takeTurns: false,
    ...options,
  });
}
