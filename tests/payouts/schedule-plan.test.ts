import { describe, expect, it } from "vitest";
import { planRun, type BalanceIn, type PlanRules } from "../../app/payouts/schedule-plan";
import { formatMoney } from "../../app/units/money";

// Who a scheduled run pays: creators paid by PayPal, store credit or gift card over the minimum in
// the schedule's currency, each by their method; creators paid by hand listed; everyone else left
// out with the reason.

const balance = (creatorId: string, currency: string, minor: string, over: Partial<BalanceIn> = {}): BalanceIn => ({
  key: `${currency}:${creatorId}`,
  creatorId,
  currency,
  balanceMinor: minor,
  payable: BigInt(minor) > 0n,
  held: null,
  ...over,
});
const rules = (over: Partial<PlanRules> = {}): PlanRules => ({
  currency: "USD",
  minimumMinor: 2500n,
  methodOf: (creatorId) => (creatorId.startsWith("hand") ? "manual" : "paypal"),
  paypalReady: true,
  shopCurrency: "USD",
  hasEmail: (creatorId) => creatorId !== "no_email",
  ...over,
});
const reasons = (plan: ReturnType<typeof planRun>) => plan.excluded.map((e) => [e.creatorId, e.reason]);

describe("a scheduled run's plan", () => {
  it("pays PayPal creators at or over the minimum, lists those paid by hand, and says why it leaves out the rest", () => {
    const plan = planRun(
      [
        balance("ana", "USD", "2500"),
        balance("ben", "USD", "2499"),
        balance("hand_cy", "USD", "9000"),
        balance("dee", "EUR", "9000"),
        balance("eve", "USD", "9000", { payable: false, held: "suspected" }),
        balance("no_email", "USD", "9000"),
        balance("gus", "USD", "-100", { payable: false }),
        balance("hal", "USD", "0", { payable: false }),
      ],
      rules(),
      formatMoney,
    );
    expect(plan.pay).toEqual([
      { key: "USD:ana", creatorId: "ana", currency: "USD", amountMinor: "2500", amount: "USD 25.00", method: "paypal" },
    ]);
    expect(plan.byHand.map((l) => [l.creatorId, l.amount])).toEqual([["hand_cy", "USD 90.00"]]);
    expect(reasons(plan)).toEqual([
      ["ben", "underMinimum"],
      ["dee", "otherCurrency"],
      ["eve", "held"],
      ["no_email", "noEmail"],
    ]);
  });

  it("leaves PayPal creators out when no PayPal account is saved, and any method a schedule cannot send", () => {
    expect(reasons(planRun([balance("ana", "USD", "9000")], rules({ paypalReady: false }), formatMoney))).toEqual([
      ["ana", "noMethod"],
    ]);
    const unknown = planRun([balance("ana", "USD", "9000")], rules({ methodOf: () => "cheque" }), formatMoney);
    expect(reasons(unknown)).toEqual([["ana", "noMethod"]]);
  });

  it("pays store credit and gift card creators in the shop's currency only, each by their own method", () => {
    const methods: Record<string, string> = { sc: "store_credit", gc: "gift_card", pp: "paypal", nm: "store_credit" };
    const shopify = rules({ methodOf: (creatorId) => methods[creatorId] ?? "manual" });
    const plan = planRun(
      [
        balance("sc", "USD", "3000"),
        balance("gc", "USD", "4000"),
        balance("pp", "USD", "5000"),
        balance("nm", "USD", "2000"),
      ],
      shopify,
      formatMoney,
    );
    expect(plan.pay.map((l) => [l.creatorId, l.method])).toEqual([
      ["sc", "store_credit"],
      ["gc", "gift_card"],
      ["pp", "paypal"],
    ]);
    expect(reasons(plan)).toEqual([["nm", "underMinimum"]]);
    // The shop's currency not known yet: store credit and gift cards cannot be sent; PayPal still is.
    const unknown = planRun(
      [balance("sc", "USD", "3000"), balance("pp", "USD", "5000")],
      { ...shopify, shopCurrency: null },
      formatMoney,
    );
    expect(unknown.pay.map((l) => l.creatorId)).toEqual(["pp"]);
    expect(reasons(unknown)).toEqual([["sc", "noMethod"]]);
    // A schedule in dollars for a shop in euros: its store credit creators are in another currency.
    const euroShop = planRun(
      [balance("gc", "USD", "4000"), balance("pp", "USD", "5000")],
      { ...shopify, shopCurrency: "EUR" },
      formatMoney,
    );
    expect(euroShop.pay.map((l) => l.creatorId)).toEqual(["pp"]);
    expect(reasons(euroShop)).toEqual([["gc", "otherCurrency"]]);
    // Each method needs the creator's email (the customer account is found by it).
    const noEmail = planRun([balance("sc", "USD", "3000")], { ...shopify, hasEmail: () => false }, formatMoney);
    expect(reasons(noEmail)).toEqual([["sc", "noEmail"]]);
  });

  it("compares the minimum exactly, beyond any float's precision", () => {
    const big = "9007199254740993";
    const plan = planRun(
      [balance("ana", "USD", big), balance("ben", "USD", "9007199254740992")],
      rules({ minimumMinor: BigInt(big) }),
      formatMoney,
    );
    expect(plan.pay.map((l) => l.creatorId)).toEqual(["ana"]);
    expect(reasons(plan)).toEqual([["ben", "underMinimum"]]);
  });
});
