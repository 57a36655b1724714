import { describe, expect, it } from "vitest";
import { commissionFor, creditingStep, orderEventsStep } from "../../app/verification/crediting";
import { misrouted, play, state } from "../support/order-steps";

// The order's last steps on their own: the credit that ends a verified order, and a decided
// order's refunds and cancellation applied when it runs again (tests/support/order-steps.ts).

describe("crediting", () => {
  it("ends the order with its verdict and its commission, and the order's events applied with it", () => {
    const matched = state({ hijacked: false, creatorId: "cr_alice", expectedTag: "alice-20", reason: "matched" });
    expect(creditingStep.begin(matched)).toEqual({
      kind: "stop",
      stop: {
        to: "end",
        outcome: "matched",
        reason: "matched",
        change: { credit: commissionFor(matched), orderEvents: { outcome: "matched" } },
      },
    });
  });

  it("asks for nothing, and refuses an answer handed to it, naming the call", () => {
    expect(() => creditingStep.after(state(), misrouted("witnesses"))).toThrow("crediting asked for no witnesses");
  });
});

describe("a decided order run again", () => {
  const decided = state({ outcome: "hijacked", hijacked: true });

  it("with refunds or a cancellation pending: applies them as the job finishes, saying the order's outcome", () => {
    expect(play(orderEventsStep, decided, [true])).toEqual([
      { kind: "call", call: { kind: "pending-events" } },
      { kind: "stop", stop: { to: "finish", change: { orderEvents: { outcome: "hijacked" } } } },
    ]);
  });

  it("with nothing pending: finishes, writing nothing", () => {
    expect(play(orderEventsStep, decided, [false])[1]).toEqual({ kind: "stop", stop: { to: "finish" } });
  });

  it("refuses an answer to a call it never made, naming the call, rather than finishing the job", () => {
    expect(() => orderEventsStep.after(decided, misrouted("tag-slot"))).toThrow("order events asked for no tag-slot");
  });
});
