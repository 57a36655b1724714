import { describe, expect, it } from "vitest";
import { clientMessages, stringsIn } from "../../app/i18n/client-messages";

// What the browser's language chunk keeps of a locale file (app/i18n/client-messages.ts). The
// built chunks themselves are checked against the built code in tests/deploy/bundle-budget.test.ts.

const MESSAGES = {
  dashboard: { title: "Dashboard", csvHeader: "Order" },
  outcome: { matched: "Matched", hijacked: "Hijacked" },
  orders: { count: { one: "{count} order", other: "{count} orders" } },
  payouts: { methods: { paypal: "PayPal", manual: "Manual" }, emailSubject: "Your payout" },
};

describe("the strings in code", () => {
  it("reads string literals in either quote and template heads", () => {
    const strings = stringsIn(
      `t(\`outcome.\${key}\`); t("dashboard.title"); t('a.b'); x = \`plain\`; y = "with \\" quote";`,
    );
    expect([...strings].sort()).toEqual(["a.b", "dashboard.title", "outcome.", "plain", 'with " quote']);
  });
});

describe("the browser's messages", () => {
  it("keeps a key named whole, under a template's head, or under its named parent", () => {
    const kept = clientMessages(MESSAGES, new Set(["dashboard.title", "outcome.", "orders.count", "payouts.methods"]));
    expect(kept).toEqual({
      dashboard: { title: "Dashboard" },
      outcome: MESSAGES.outcome,
      orders: MESSAGES.orders,
      payouts: { methods: MESSAGES.payouts.methods },
    });
  });

  it("leaves out what no string names, and a top-level name keeps its whole tree", () => {
    expect(clientMessages(MESSAGES, new Set(["elsewhere"]))).toEqual({});
    expect(clientMessages(MESSAGES, new Set(["outcome"]))).toEqual({ outcome: MESSAGES.outcome });
  });
});
