import { describe, expect, it } from "vitest";
import {
  afterCreate,
  afterDetails,
  ASK_AGAIN_FOR_MS,
  begin,
  itemChanges,
  type RunView,
} from "../../app/payouts/run-steps";

// A payout run's decisions, played without a database or PayPal: what each answer makes of the
// run, and what each reported item status makes of a line, in whatever order they come.

const now = new Date("2026-12-06T12:00:00Z");
const run = (over: Partial<RunView> = {}): RunView => ({
  id: "run-1",
  state: "intent",
  providerBatchId: null,
  createdAt: now,
  sentAt: null,
  lines: [{ payoutId: "p1", providerItemId: null, providerStatus: null, outcome: "waiting" }],
  ...over,
});

describe("a run's steps", () => {
  it("creates the batch first, and reads its details once it has an id", () => {
    expect(begin(run(), now).next).toEqual({ call: "create" });
    expect(begin(run({ state: "sent", providerBatchId: "B1" }), now).next).toEqual({ call: "details", batchId: "B1" });
    expect(begin(run({ state: "settled" }), now).next).toEqual({ to: "finish" });
  });

  it("asks again after a lost answer, and gives up asking before PayPal forgets the batch id", () => {
    const lost = afterCreate(run(), { ok: false, failure: { kind: "unavailable", sent: true, message: "503" } }, now);
    expect(lost.change.run.state).toBe("unknown");
    expect(lost.next).toMatchObject({ to: "retry" });
    const old = run({ state: "unknown", createdAt: new Date(now.getTime() - ASK_AGAIN_FOR_MS - 1) });
    expect(begin(old, now).next).toMatchObject({ to: "park" });
  });

  it("gives the lines back on a refusal only when no earlier attempt may have reached PayPal", () => {
    const refusal = { ok: false as const, failure: { kind: "refused" as const, status: 422, name: "X", message: "X" } };
    expect(afterCreate(run(), refusal, now).change).toMatchObject({ release: true, run: { state: "refused" } });
    expect(afterCreate(run({ state: "unknown" }), refusal, now)).toMatchObject({
      change: { release: false, run: { state: "check" } },
      next: { to: "park" },
    });
  });

  it("takes a duplicate's batch as its own, and parks when PayPal does not name it", () => {
    const named = afterCreate(
      run({ state: "unknown" }),
      { ok: false, failure: { kind: "duplicate", batchId: "B9", message: "" } },
      now,
    );
    expect(named.next).toEqual({ call: "details", batchId: "B9" });
    const unnamed = afterCreate(
      run({ state: "unknown" }),
      { ok: false, failure: { kind: "duplicate", batchId: null, message: "" } },
      now,
    );
    expect(unnamed.next).toMatchObject({ to: "park" });
  });

  it("weighs each status against the line as the last left it: late and repeated ones change nothing", () => {
    const lines = run().lines;
    const report = (status: string) => ({ senderItemId: "p1", status, itemId: "I1" });
    expect(
      itemChanges(lines, [report("UNCLAIMED"), report("RETURNED"), report("UNCLAIMED")]).changes.map((c) => [
        c.status,
        c.move,
      ]),
    ).toEqual([
      ["UNCLAIMED", "none"],
      ["RETURNED", "bounce"],
    ]);
    expect(
      itemChanges(lines, [report("SUCCESS"), report("SUCCESS"), report("PENDING"), report("REFUNDED")]).changes.map(
        (c) => c.move,
      ),
    ).toEqual(["settle", "bounce"]);
    expect(itemChanges(lines, [report("FAILED"), report("SUCCESS")]).changes.map((c) => c.move)).toEqual(["bounce"]);
    expect(itemChanges(lines, [{ senderItemId: "someone-else", status: "SUCCESS", itemId: null }]).changes).toEqual([]);
  });

  it("settles the run once every item has ended, and looks again later while one waits", () => {
    const sent = run({ state: "sent", providerBatchId: "B1", sentAt: now });
    const details = (status: string) => ({
      ok: true as const,
      value: {
        batchId: "B1",
        batchStatus: "SUCCESS",
        items: [{ payoutItemId: "I1", senderItemId: "p1", transactionStatus: status }],
      },
    });
    expect(afterDetails(sent, details("SUCCESS"), now)).toMatchObject({
      change: { run: { state: "settled" } },
      next: { to: "finish" },
    });
    expect(afterDetails(sent, details("UNCLAIMED"), now).next).toMatchObject({ to: "defer" });
    const denied = { ok: true as const, value: { batchId: "B1", batchStatus: "DENIED", items: [] } };
    expect(afterDetails(sent, denied, now).change.items).toMatchObject([{ payoutId: "p1", move: "bounce" }]);
  });
});
