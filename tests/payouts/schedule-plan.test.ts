import { describe, expect, it } from "vitest";
import { planRun, type BalanceIn, type PlanRules } from "../../app/payouts/schedule-plan";
import { formatMoney } from "../../app/units/money";

// Who a scheduled run pays: PayPal creators over the minimum in the schedule's currency; creators
// paid by hand listed; everyone else left out with the reason.

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
      { key: "USD:ana", creatorId: "ana", currency: "USD", amountMinor: "2500", amount: "USD 25.00" },
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
    const other = planRun([balance("ana", "USD", "9000")], rules({ methodOf: () => "store_credit" }), formatMoney);
    expect(reasons(other)).toEqual([["ana", "noMethod"]]);
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
