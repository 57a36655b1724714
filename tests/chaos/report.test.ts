import { describe, expect, it } from "vitest";
import { plannedCommission, type CommissionTerms, type LedgerRecord } from "../../sandbox/chaos/ledger";
import type { PlannedOrder } from "../../sandbox/chaos/orders";
import { passed, safetyFigures, type OrderObservation } from "../../sandbox/chaos/report";
import { buildOrderCancelledPayload, buildOrderCreatePayload } from "../../sandbox/shopify";

// The chaos report's safety figures, each shown to count the failure it names: a run that lost
// an order or one of its refunds or cancellations, double-tagged, credited twice or to the wrong
// amount, or left a hijack untagged must fail. And the ledger plan, shown to follow the rules of
// docs/commissions.md (half-up to the minor unit, pro-rated on the order-value basis).

const credited = (amountMinor: bigint, ...entries: LedgerRecord["entries"]): LedgerRecord => ({
  amountMinor,
  status: amountMinor === 0n ? "reversed" : "pending",
  entries: [{ kind: "credit", amountMinor: 1200n, source: null }, ...entries],
});

const fine: OrderObservation = {
  outcome: "matched",
  commissionRecords: 1,
  ledger: credited(1200n),
  plannedLedger: { amountMinor: 1200n, status: "pending" },
  eventsNotApplied: 0,
  tagsAddApplied: 0,
  hijackTagged: false,
  verifyCalls: 1,
};
const hijacked: OrderObservation = { ...fine, outcome: "hijacked", tagsAddApplied: 1, hijackTagged: true };
const refunded: OrderObservation = {
  ...fine,
  ledger: credited(900n, { kind: "refund", amountMinor: -300n, source: "refund 1" }),
  plannedLedger: { amountMinor: 900n, status: "pending" },
};
const cancelled: OrderObservation = {
  ...fine,
  ledger: credited(
    0n,
    { kind: "refund", amountMinor: -300n, source: "refund 1" },
    { kind: "reversal", amountMinor: -900n, source: "cancel 9" },
  ),
  plannedLedger: { amountMinor: 0n, status: "reversed" },
};
const unattributed: OrderObservation = {
  ...fine,
  outcome: "unattributed",
  commissionRecords: 0,
  ledger: null,
  verifyCalls: 0,
};

function figures(...observations: OrderObservation[]) {
  const result = safetyFigures(observations);
  return { ...result, passed: passed(result) };
}

describe("the chaos report's figures", () => {
  it("passes orders that each ended once, their refunds and cancellations applied once", () => {
    expect(figures(fine, hijacked, refunded, cancelled, unattributed)).toEqual({
      outcomes: { matched: 3, hijacked: 1, unattributed: 1 },
      lost: 0,
      doubleTagged: 0,
      doubleCredited: 0,
      hijackedWithoutTag: 0,
      serviceCallsPerOrderMax: 1,
      passed: true,
    });
  });

  it.each([
    ["lost", { ...fine, outcome: null, commissionRecords: 0, ledger: null }],
    ["lost", { ...refunded, eventsNotApplied: 1 }],
    ["lost", { ...unattributed, eventsNotApplied: 1 }],
    ["doubleTagged", { ...hijacked, tagsAddApplied: 2 }],
    ["doubleCredited", { ...fine, commissionRecords: 2 }],
    [
      "doubleCredited",
      {
        ...refunded,
        ledger: credited(
          600n,
          { kind: "refund", amountMinor: -300n, source: "refund 1" },
          { kind: "refund", amountMinor: -300n, source: "refund 1" },
        ),
      },
    ],
    ["doubleCredited", { ...refunded, ledger: credited(1200n) }],
    ["doubleCredited", { ...cancelled, ledger: { ...cancelled.ledger!, status: "pending" } }],
    ["hijackedWithoutTag", { ...hijacked, tagsAddApplied: 0, hijackTagged: false }],
  ] as const)("counts %s and fails the run (case %#)", (figure, bad) => {
    const result = figures(fine, bad, hijacked);
    expect(result[figure]).toBe(1);
    expect(result.passed).toBe(false);
  });

  // Each on a record whose amount is what the plan says: the check itself must catch it.
  it.each([
    [
      "a refund applied twice",
      credited(
        900n,
        { kind: "refund", amountMinor: -150n, source: "refund 1" },
        { kind: "refund", amountMinor: -150n, source: "refund 1" },
      ),
    ],
    [
      "two reversals",
      credited(
        900n,
        { kind: "reversal", amountMinor: -150n, source: "cancel 9" },
        { kind: "reversal", amountMinor: -150n, source: "refund 2" },
      ),
    ],
    ["entries that do not add up to the record", { ...credited(900n), amountMinor: 900n }],
    [
      "a second credit",
      credited(
        900n,
        { kind: "credit", amountMinor: 1200n, source: null },
        { kind: "refund", amountMinor: -1500n, source: "refund 1" },
      ),
    ],
  ] as const)("counts %s as credited twice", (_, ledger) => {
    expect(figures(fine, { ...refunded, ledger }).doubleCredited).toBe(1);
  });

  it("reports the most verify-click calls any one order's click received", () => {
    expect(figures(fine, { ...hijacked, verifyCalls: 3 }, fine).serviceCallsPerOrderMax).toBe(3);
  });
});

describe("the chaos run's ledger plan", () => {
  const terms: CommissionTerms = { commissionRate: "10", orderValueBasis: "subtotal_after_discounts", holdDays: 30 };

  function order(spec: {
    currency?: string;
    lines: [price: string, quantity: number][];
    shipping?: string;
    refunds?: { lines: [price: string, quantity: number][]; shipping?: string }[];
    cancelled?: boolean;
    /** The lines' total after an edit. */
    edited?: string;
  }): PlannedOrder {
    const lines = spec.lines.map(([price, quantity], i) => ({ lineItemId: i + 1, price, quantity }));
    const payload = buildOrderCreatePayload({
      currency: spec.currency ?? "USD",
      lineItems: lines.map(({ price, quantity }) => ({ title: "Widget", price, quantity })),
      shipping: spec.shipping ?? "0",
    });
    return {
      index: 0,
      shop: "plan.myshopify.com",
      kind: "matched",
      expected: "matched",
      clickId: null,
      payload,
      lines,
      shipping: spec.shipping ?? "0",
      refunds: (spec.refunds ?? []).map((refund, k) => ({
        id: k + 1,
        lines: refund.lines.map(([price, quantity], i) => ({ lineItemId: i + 1, price, quantity })),
        shipping: refund.shipping ?? "0",
        payload: {},
      })),
      cancellation: spec.cancelled ? buildOrderCancelledPayload(payload) : null,
      edit: spec.edited ? { id: 1, linesTotal: spec.edited, payload: {} } : null,
    };
  }

  it("takes an edited order at its value after the edit, refunds pro-rated on it", () => {
    // 10% of 80.00; then 30.00 of it refunded: 8.00 x 50 / 80 = 5.00.
    expect(plannedCommission(order({ lines: [["100.00", 1]], edited: "80.00" }), terms).amountMinor).toBe(800n);
    expect(
      plannedCommission(order({ lines: [["50.00", 2]], edited: "80.00", refunds: [{ lines: [["30.00", 1]] }] }), terms)
        .amountMinor,
    ).toBe(500n);
    expect(plannedCommission(order({ lines: [["100.00", 1]], edited: "150.00", cancelled: true }), terms)).toEqual({
      amountMinor: 0n,
      status: "reversed",
    });
  });

  it("credits the rate of the order value, half-up to the currency's minor unit", () => {
    expect(plannedCommission(order({ lines: [["0.05", 1]] }), terms)).toEqual({ amountMinor: 1n, status: "pending" });
    expect(plannedCommission(order({ currency: "JPY", lines: [["1235", 1]] }), terms).amountMinor).toBe(124n);
    expect(plannedCommission(order({ lines: [["120.00", 1]] }), { ...terms, holdDays: 0 })).toEqual({
      amountMinor: 1200n,
      status: "approved",
    });
  });

  it("pro-rates refunds on the basis from their running total, half-up", () => {
    // Credit 12.25; half the value refunded leaves 6.125, half-up 6.13.
    const half = order({ lines: [["61.25", 2]], refunds: [{ lines: [["61.25", 1]] }] });
    expect(plannedCommission(half, terms)).toEqual({ amountMinor: 613n, status: "pending" });
    // Refunds that add up to the whole order reverse it to exactly zero.
    const whole = order({ lines: [["10.01", 3]], refunds: [{ lines: [["10.01", 1]] }, { lines: [["10.01", 2]] }] });
    expect(plannedCommission(whole, terms)).toEqual({ amountMinor: 0n, status: "reversed" });
  });

  it("moves only the total-price basis with refunded shipping", () => {
    const shipped = order({ lines: [["90.00", 1]], shipping: "10.00", refunds: [{ lines: [], shipping: "10.00" }] });
    expect(plannedCommission(shipped, terms).amountMinor).toBe(900n);
    expect(plannedCommission(shipped, { ...terms, orderValueBasis: "total_price" }).amountMinor).toBe(900n);
    expect(
      plannedCommission(order({ lines: [["90.00", 1]], shipping: "10.00" }), {
        ...terms,
        orderValueBasis: "total_price",
      }).amountMinor,
    ).toBe(1000n);
  });

  it("takes a cancelled order's commission to zero, reversed", () => {
    expect(plannedCommission(order({ lines: [["50.00", 2]], cancelled: true }), terms)).toEqual({
      amountMinor: 0n,
      status: "reversed",
    });
  });
});
