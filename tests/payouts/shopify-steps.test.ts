import { describe, expect, it } from "vitest";
import {
  afterLook,
  afterSend,
  creditsAfterMark,
  LOOK_AFTER_MS,
  lineNext,
  sameAmount,
  type ShopifyLine,
} from "../../app/payouts/shopify-steps";

// A store credit or gift card line's decisions, as values: nothing is sent while an earlier
// attempt may have landed, and what Shopify's listing shows decides between paid, again and parked.

const now = new Date("2026-12-06T12:00:00Z");
const line = (over: Partial<ShopifyLine> = {}): ShopifyLine => ({
  payoutId: "p1",
  outcome: "waiting",
  status: null,
  itemId: null,
  customerId: "gid://shopify/Customer/1",
  mark: "",
  attemptedAt: null,
  ...over,
});
const credit = (id: string, amount: string, credit = true) => ({ id, credit, amount, currency: "USD" });

describe("a Shopify payout line", () => {
  it("writes its attempt before sending, and looks (not sends) once an attempt may have landed", () => {
    expect(lineNext("store_credit", line(), now)).toEqual({
      change: { payoutId: "p1", attemptedAt: now, status: "SENDING", move: "none" },
      next: { call: "send" },
    });
    expect(lineNext("store_credit", line({ mark: null }), now).next).toEqual({ call: "read-mark" });
    expect(lineNext("gift_card", line({ mark: null }), now).next).toEqual({ call: "send" });
    expect(lineNext("gift_card", line({ customerId: null }), now).next).toEqual({ call: "find-customer" });
    const attempted = line({ attemptedAt: new Date(now.getTime() - 1000), status: "SENDING" });
    expect(lineNext("store_credit", attempted, now).next).toMatchObject({ to: "defer" });
    const later = new Date(now.getTime() + LOOK_AFTER_MS);
    expect(lineNext("store_credit", attempted, later).next).toEqual({ call: "look" });
    // PAYOUT_LOOK_AFTER_MS, when set, is the wait instead.
    expect(lineNext("store_credit", attempted, new Date(now.getTime() + 3_000), 5_000).next).toEqual({
      to: "defer",
      at: new Date(attempted.attemptedAt!.getTime() + 5_000),
      reason: "Shopify's answer was lost",
    });
    expect(lineNext("store_credit", attempted, new Date(now.getTime() + 5_000), 5_000).next).toEqual({ call: "look" });
    expect(lineNext("store_credit", line({ status: "CHECK" }), now).next).toMatchObject({ to: "park" });
    expect(lineNext("store_credit", line({ outcome: "paid" }), now).next).toEqual({ to: "done" });
  });

  it("is paid by Shopify's id, given back on a refusal, and kept attempted when the answer is lost", () => {
    expect(afterSend(line(), { ok: true, value: { id: "gid://shopify/GiftCard/9" } }).change).toMatchObject({
      move: "settle",
      itemId: "gid://shopify/GiftCard/9",
    });
    expect(afterSend(line(), { ok: true, value: { refused: "nope" } }).change).toMatchObject({ move: "bounce" });
    expect(afterSend(line(), { ok: false, retryable: false, message: "access denied" }).change).toMatchObject({
      move: "bounce",
    });
    expect(afterSend(line(), { ok: false, retryable: true, message: "server: HTTP 502" })).toEqual({
      change: null,
      next: { to: "retry", error: "server: HTTP 502" },
    });
  });

  it("after a look: one match pays, none in a whole listing sends again, anything else waits for the merchant", () => {
    const attempted = line({ attemptedAt: now, status: "SENDING" });
    expect(
      afterLook("gift_card", attempted, { ok: true, value: { ids: ["g1"], whole: false } }, now).change,
    ).toMatchObject({ move: "settle", itemId: "g1" });
    const again = afterLook("store_credit", attempted, { ok: true, value: { ids: [], whole: true } }, now);
    expect(again.next).toEqual({ call: "send" });
    expect(again.change).toMatchObject({ attemptedAt: now, status: "SENDING" });
    expect(
      afterLook("store_credit", attempted, { ok: true, value: { ids: [], whole: false } }, now).next,
    ).toMatchObject({
      to: "park",
    });
    expect(
      afterLook("store_credit", attempted, { ok: true, value: { ids: ["a", "b"], whole: true } }, now).next,
    ).toMatchObject({
      to: "park",
    });
    expect(
      afterLook("store_credit", attempted, { ok: false, retryable: false, message: "denied" }, now).next,
    ).toMatchObject({
      to: "park",
    });
  });

  it("counts the credits of exactly the amount after the mark, newest first", () => {
    const list = [credit("t4", "15.5"), credit("t3", "15.50", false), credit("t2", "15.5"), credit("t1", "2")];
    expect(creditsAfterMark(list, "t2", "15.50", "USD", false)).toEqual({ ids: ["t4"], whole: true });
    expect(creditsAfterMark(list, "t1", "15.50", "USD", false)).toEqual({ ids: ["t4", "t2"], whole: true });
    expect(creditsAfterMark(list, "t0", "15.50", "USD", false).whole).toBe(false);
    expect(creditsAfterMark(list, "", "2.00", "USD", false)).toEqual({ ids: ["t1"], whole: true });
    expect(creditsAfterMark(list, "", "2.00", "USD", true).whole).toBe(false);
    expect(creditsAfterMark([{ ...credit("t9", "15.5"), currency: "EUR" }], "", "15.5", "USD", false).ids).toEqual([]);
  });

  it("compares amounts as decimals written out, never as floats", () => {
    expect(sameAmount("15.5", "15.50")).toBe(true);
    expect(sameAmount("015.500", "15.5")).toBe(true);
    expect(sameAmount("0.00", "0")).toBe(true);
    expect(sameAmount("15.5", "15.05")).toBe(false);
    expect(sameAmount("0.30000000000000004", "0.3")).toBe(false);
    expect(sameAmount("abc", "abc")).toBe(false);
  });
});
