import { describe, expect, it } from "vitest";
import { commissionFor, creditingStep, orderEventsStep } from "../../app/verification/crediting";
import { last, misrouted, play, state } from "../support/order-steps";

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

describe("a decided order with edits pending", () => {
  const decided = state({ outcome: "matched", hijacked: false });
  const amounts = { currency: "USD", subtotal: "80.0", total: "90.0", discounts: "0.0" };

  it("reads the order's amounts, then applies its events with the values each basis has after the edits", () => {
    const played = play(orderEventsStep, decided, [{ edits: ["e1"] }, { ok: true, amounts }]);
    expect(played[1]).toEqual({ kind: "call", call: { kind: "order-amounts", edits: ["e1"] } });
    expect(played[2]).toMatchObject({
      kind: "stop",
      stop: {
        to: "finish",
        change: {
          orderEvents: {
            outcome: "matched",
            reading: {
              edits: ["e1"],
              reading: { ok: true, currency: "USD", values: { subtotal_after_discounts: "80", total_price: "90" } },
            },
          },
        },
      },
    });
  });

  it("waits for the shop's bucket, retries a failed read while attempts last, and otherwise says why", () => {
    expect(
      last(orderEventsStep, decided, [{ edits: ["e1"] }, { ok: false, waitMs: 2000, reason: "bucket" }]),
    ).toMatchObject({
      stop: { to: "defer", at: new Date(decided.now.getTime() + 2000), reason: "bucket" },
    });
    expect(
      last(orderEventsStep, decided, [{ edits: ["e1"] }, { ok: false, retryable: true, message: "502" }]),
    ).toMatchObject({
      stop: { to: "retry", error: "read-order-amounts: 502" },
    });
    expect(
      last(orderEventsStep, { ...decided, attemptsLeft: false }, [
        { edits: ["e1"] },
        { ok: false, retryable: true, message: "502" },
      ]),
    ).toMatchObject({
      stop: {
        to: "finish",
        change: {
          orderEvents: {
            reading: { edits: ["e1"], reading: { ok: false, reason: "the order's amounts could not be read (502)" } },
          },
        },
      },
    });
  });

  it("says Shopify no longer has the order when the read finds none, and applies the edits as not read", () => {
    expect(last(orderEventsStep, decided, [{ edits: ["e1"] }, { ok: true, amounts: null }])).toMatchObject({
      stop: {
        to: "finish",
        change: {
          orderEvents: {
            reading: { edits: ["e1"], reading: { ok: false, reason: "Shopify no longer has the order" } },
          },
        },
      },
    });
  });
});
