import { describe, expect, it } from "vitest";
import { decideEdit, editedValues, editMoves } from "../../app/commissions/order-edits";

// What an edit does to a record, decided without a database (app/commissions/order-edits.ts).

const record = {
  status: "pending",
  orderValue: "100.00",
  refunded: "0",
  rate: "10",
  currency: "USD",
  amountMinor: 1000n,
  basis: "subtotal_after_discounts",
};
const reading = (subtotal: string) => ({
  ok: true as const,
  currency: "USD",
  values: { subtotal_after_discounts: subtotal },
});

const amounts = (subtotal: string | null, total: string | null, discounts: string | null) => ({
  currency: "USD",
  subtotal,
  total,
  discounts,
});

describe("the order's value after its edits", () => {
  const placed = { amounts: { subtotal_after_discounts: "90.00", subtotal_before_discounts: "100.00" } };

  it("takes the subtotal and total as Shopify gives them, and moves the subtotal before discounts by what the subtotal moved", () => {
    expect(editedValues(amounts("80.0", "95.5", "4.0"), placed)).toEqual({
      subtotal_after_discounts: "80",
      subtotal_before_discounts: "90",
      total_price: "95.5",
    });
  });

  it("moves the subtotal before discounts by what the order's discounts moved too, when orders/create said what they were", () => {
    // Placed at 100.00 before a 10.00 discount. The edit adds a 30.00 item with 10.00 off it:
    // after discounts 90.00 -> 110.00, discounts 10.00 -> 20.00, before discounts 130.00.
    const withDiscounts = { ...placed, discounts: "10.00" };
    expect(editedValues(amounts("110.00", null, "20.00"), withDiscounts)).toMatchObject({
      subtotal_before_discounts: "130",
    });
    // Removing a discounted unit (25.00 with 5.00 off) takes its discount with it: before discounts 75.00.
    expect(editedValues(amounts("70.00", null, "5.00"), withDiscounts)).toMatchObject({
      subtotal_before_discounts: "75",
    });
    // A shipping discount no edit touches is in both discounts and cancels out.
    expect(editedValues(amounts("70.00", null, "12.00"), { ...placed, discounts: "17.00" })).toMatchObject({
      subtotal_before_discounts: "75",
    });
    // Without what Shopify says the discounts are now, only the subtotal moves it.
    expect(editedValues(amounts("70.00", null, null), withDiscounts)).toMatchObject({
      subtotal_before_discounts: "80",
    });
  });

  it("without the amounts the order was placed with, adds the order's discounts back; leaves out what Shopify did not give", () => {
    expect(editedValues(amounts("80", null, "5.0"), { amounts: {} })).toEqual({
      subtotal_after_discounts: "80",
      subtotal_before_discounts: "85",
    });
    expect(editedValues(amounts("80.0", null, "5.0"), { amounts: { subtotal_after_discounts: "90.00" } })).toEqual({
      subtotal_after_discounts: "80",
      subtotal_before_discounts: "85",
    });
    expect(editedValues(amounts(null, "abc", null), { amounts: {} })).toEqual({});
  });

  it("reads only whole decimal amounts, and none below zero or beyond the largest order value", () => {
    for (const garbled of ["x80.00", "80.00x", "80.", "1e3"])
      expect(editedValues(amounts(garbled, garbled, null), placed)).toEqual({});
    expect(editedValues(amounts("-0.01", "1000000000000.01", null), { amounts: {} })).toEqual({});
    expect(editedValues(amounts("0", "1000000000000", null), { amounts: {} })).toEqual({
      subtotal_after_discounts: "0",
      total_price: "1000000000000",
    });
  });
});

describe("an edit applied to a record", () => {
  it("moves an unpaid record by the difference, half-up at the currency's unit", () => {
    expect(decideEdit(record, reading("80.05"), false)).toEqual({
      change: true,
      kind: "edit",
      orderValue: "80.05",
      amountMinor: 801n,
      delta: -199n,
      result: "edit -1.99 USD (order value 100.00 -> 80.05, commission 10.00 -> 8.01)",
    });
  });

  it("pays rate x (edited value - refunded): refunds before the edit still count", () => {
    const refunded = { ...record, refunded: "30", amountMinor: 700n };
    expect(decideEdit(refunded, reading("80.00"), false)).toMatchObject({ amountMinor: 500n, delta: -200n });
    // Refunds beyond the edited value leave nothing.
    expect(decideEdit(refunded, reading("20.00"), false)).toMatchObject({ amountMinor: 0n, delta: -700n });
  });

  it("after payment: a clawback down, a top-up up", () => {
    const paid = { ...record, status: "paid" };
    expect(decideEdit(paid, reading("50.00"), false)).toMatchObject({ kind: "clawback", delta: -500n });
    expect(decideEdit(paid, reading("150.00"), false)).toMatchObject({ kind: "top_up", delta: 500n });
  });

  it("moves nothing on a reversed record or a cancelled order, a reading of another currency, or the same value", () => {
    expect(decideEdit({ ...record, status: "reversed" }, reading("150.00"), false)).toMatchObject({ change: false });
    expect(decideEdit(record, reading("150.00"), true)).toEqual({
      change: false,
      result: "nothing to adjust: the commission is already reversed",
    });
    expect(decideEdit(record, { ...reading("150.00"), currency: "EUR" }, false)).toMatchObject({
      change: false,
      result: "not applied: the order is in EUR, the commission is in USD",
    });
    expect(decideEdit(record, reading("100.0"), false)).toEqual({
      change: false,
      orderValue: "100.00",
      result: "nothing to adjust (order value 100.00 -> 100.00)",
    });
    expect(decideEdit(record, { ok: false, reason: "it failed" }, false)).toMatchObject({
      result: "not applied: it failed",
    });
    expect(decideEdit(record, { ok: true, currency: "USD", values: { total_price: "150.00" } }, false)).toEqual({
      change: false,
      result: "not applied: Shopify gave no subtotal_after_discounts for the order",
    });
  });
});

describe("what an applied edit's result says it moved", () => {
  it("reads back the value and commission decideEdit wrote, and nothing from any other result", () => {
    const decision = decideEdit({ ...record, status: "paid" }, reading("150.05"), false);
    expect(editMoves(decision.result)).toEqual({
      valueBefore: "100.00",
      valueAfter: "150.05",
      commissionBefore: "10.00",
      commissionAfter: "15.01",
    });
    for (const other of [
      "nothing to adjust (order value 100.00 -> 100.00)",
      "refund -1.00 USD (order value 100.00 -> 80.00, commission 10.00 -> 8.00) and more",
      "edit -2.00 USD (order value 1O0.00 -> 80.00, commission 10.00 -> 8.00)",
    ])
      expect(editMoves(other)).toBeNull();
  });
});
