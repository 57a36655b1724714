import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startOtherInstance, type OtherInstance } from "../support/other-instance";
import {
  placeOrder,
  useHarness,
  tagsAddCalls,
  testDeps,
  verificationOf,
  type Harness,
} from "../support/pipeline-harness";

// How the worker learns of work and how a lease ends, with nothing asked for by hand: orders
// queued before it started, an order another instance recorded (its wake signal stays in that
// process), a worker process killed holding a lease that then runs out on the wall clock, and
// a worker that resumes after its lease was taken over.

const suite = useHarness("lifecycle");
const { newShop, startWorker } = suite;
let h: Harness;
beforeAll(() => {
  h = suite.h;
});
const others: OtherInstance[] = [];
afterEach(async () => {
  await Promise.all(others.splice(0).map((other) => other.kill()));
});

async function startOther(setup?: Parameters<typeof startOtherInstance>[0]) {
  const other = await startOtherInstance(setup);
  others.push(other);
  return other;
}

const jobState = async (shop: string, orderId: number) => (await verificationOf(shop, orderId)).job.state;
// Generous: two cores shared with other work, and a second process to start.
const SETTLES = { timeout: 30_000, interval: 100 };
const WITH_A_SECOND_PROCESS = { timeout: 180_000 };

describe("how the worker hears of work", () => {
  it("verifies orders queued before it started, without a wake signal or a poll", async () => {
    const shop = await newShop();
    // No worker yet: these deliveries' wake signals reach no one.
    const matched = await placeOrder(h, { shop, arrivedTag: "alice-20" });
    const hijacked = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    expect(await jobState(shop, matched.payload.id)).toBe("queued");

    startWorker(); // polls hourly; nothing calls runOnce
    await expect.poll(() => jobState(shop, matched.payload.id), SETTLES).toBe("done");
    await expect.poll(() => jobState(shop, hijacked.payload.id), SETTLES).toBe("done");
    expect((await verificationOf(shop, matched.payload.id)).outcome).toBe("matched");
    expect((await verificationOf(shop, hijacked.payload.id)).outcome).toBe("hijacked");
  });

  it(
    "finds an order another instance recorded at its next poll, though it never heard that wake signal",
    WITH_A_SECOND_PROCESS,
    async () => {
      const shop = await newShop();
      const w = startWorker({ pollIntervalMs: 200 });
      await w.runOnce(); // its start-up pass is over, with nothing due
      const other = await startOther();
      const { payload, statuses } = await placeOrder(h, { shop, appUrl: other.url });
      expect(statuses).toEqual([200]);

      await expect.poll(() => jobState(shop, payload.id), SETTLES).toBe("done");
      expect((await verificationOf(shop, payload.id)).outcome).toBe("matched");
    },
  );
});

describe("leases", () => {
  it(
    "a worker process killed mid-order: its lease runs out on the wall clock, then another finishes the order",
    WITH_A_SECOND_PROCESS,
    async () => {
      const shop = await newShop();
      const { payload, clickId } = await placeOrder(h, { shop, arrivedTag: "honey-77" });
      const doomed = await startOther({ owner: "doomed", leaseMs: 2_000 });
      expect(await doomed.stalled).toBe(shop);
      await doomed.kill();
      // What the dead worker left: the order claimed, its verdict stored, the lease still on the row.
      const left = await verificationOf(shop, payload.id);
      expect(left).toMatchObject({ hijacked: true, outcome: null });
      expect(left.job).toMatchObject({ state: "running", leaseOwner: "doomed", attempts: 1 });

      startWorker({ owner: "survivor", pollIntervalMs: 100 });
      await expect.poll(() => jobState(shop, payload.id), SETTLES).toBe("done");
      const v = await verificationOf(shop, payload.id);
      expect(v.outcome).toBe("hijacked");
      expect(v.job).toMatchObject({ attempts: 2, leaseOwner: null });
      // The survivor's attempt began only once the dead worker's lease had run out.
      const taken = v.attemptLog.filter((attempt) => attempt.number === 2);
      expect(taken.map((attempt) => [attempt.step, attempt.result])).toEqual([["tag-order", "ok"]]);
      expect(taken[0]!.startedAt.getTime()).toBeGreaterThanOrEqual(left.job.leaseExpiresAt!.getTime());
      expect(h.clicks.verifications(clickId)).toHaveLength(1);
      expect(tagsAddCalls(h, payload.admin_graphql_api_id)).toBe(1);
    },
  );

  it("a worker that resumes after its lease was taken over has its next write refused", async () => {
    const shop = await newShop();
    let reachedTagStep!: () => void;
    let resume!: () => void;
    const atTagStep = new Promise<void>((resolve) => (reachedTagStep = resolve));
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    // Paused (a long GC, a frozen VM) just before it would tag the order, then carries on.
    const paused = startWorker({
      owner: "paused",
      deps: {
        shopifyAdmin: async (s) => {
          reachedTagStep();
          await resumed;
          return testDeps().shopifyAdmin(s);
        },
      },
    });
    const { payload, clickId } = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    const pausedRun = paused.runOnce();
    await atTagStep;

    // Its two-minute lease runs out; another worker takes the order over and finishes it.
    h.clock.now = new Date(Date.now() + 3 * 60_000);
    await startWorker({ owner: "successor" }).runOnce();
    const finished = await verificationOf(shop, payload.id);
    expect(finished.outcome).toBe("hijacked");
    expect(finished.job).toMatchObject({ state: "done", attempts: 2 });
    expect(tagsAddCalls(h, payload.admin_graphql_api_id)).toBe(1);

    resume();
    await pausedRun;
    // Its next write (marking the tag as started) was refused: nothing it did after the
    // pause reached the database or Shopify.
    expect(await verificationOf(shop, payload.id)).toEqual(finished);
    expect(tagsAddCalls(h, payload.admin_graphql_api_id)).toBe(1);
    expect(h.clicks.verifications(clickId)).toHaveLength(1);
  });
});
