import { beforeAll, describe, expect, it } from "vitest";
import * as dashboard from "../../app/routes/app._index";
import { adminRequest, call } from "../admin/helpers";
import { placeOrder, useHarness, verificationOf, type Harness } from "../support/pipeline-harness";

// What a commission is computed from, end to end: the order-value basis the merchant chose,
// read from a real orders/create payload (lines, a discount, tax, shipping), sent to the service
// as order_value and credited exactly; and commissions in several currencies, each to its own
// minor unit, totalled per currency on the dashboard.

const suite = useHarness("value");
const { newShop, startWorker } = suite;
let h: Harness;
beforeAll(() => {
  h = suite.h;
});

// Lines 100.00 + 2 x 10.00 = 120.00 before the 20.00 discount, so 100.00 after it; 10.00 tax
// and 5.00 shipping make the total 115.00. Each basis names a different amount.
const DISCOUNTED_ORDER = {
  lineItems: [
    { title: "Jacket", price: "100.00" },
    { title: "Socks", price: "10.00", quantity: 2 },
  ],
  discount: "20.00",
  tax: "10.00",
  shipping: "5.00",
};

describe("the order-value basis", () => {
  it.each([
    ["subtotal_after_discounts", "100.00", "10.00"],
    ["subtotal_before_discounts", "120.00", "12.00"],
    ["total_price", "115.00", "11.50"],
  ] as const)("%s: the service is told %s and the creator is credited %s", async (basis, orderValue, amount) => {
    const shop = await newShop({ orderValueBasis: basis, commissionRate: "10" });
    const w = startWorker();
    const { payload, clickId } = await placeOrder(h, { shop, amounts: DISCOUNTED_ORDER });
    expect(payload).toMatchObject({
      total_line_items_price: "120.00",
      subtotal_price: "100.00",
      total_price: "115.00",
    });
    await w.runOnce();

    const v = await verificationOf(shop, payload.id);
    expect(v.outcome).toBe("matched");
    expect(v.orderValue).toBe(orderValue);
    expect(v.commission).toMatchObject({ orderValue, amount, currency: "USD", rate: "10" });
    const sent = h.clicks.verifications(clickId);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.rawBody).toContain(`"order_value":${orderValue}`);
  });
});

describe("several currencies", () => {
  it("credits each commission to its currency's minor unit and totals them per currency, exactly", async () => {
    const shop = await newShop({ commissionRate: "7.5" });
    const w = startWorker();
    const orders = [
      // 99.99 x 7.5% = 7.49925 -> 7.50; 0.10 x 7.5% = 0.0075 -> 0.01 (half up): 7.51 USD in all.
      { currency: "USD", subtotal: "99.99", amount: "7.50" },
      { currency: "USD", subtotal: "0.10", amount: "0.01" },
      // Yen have no minor unit: 1234 x 7.5% = 92.55 -> 93.
      { currency: "JPY", subtotal: "1234", amount: "93" },
      // Dinars have three digits: 123.45 x 7.5% = 9.25875 -> 9.259.
      { currency: "KWD", subtotal: "123.45", amount: "9.259" },
    ];
    const placed = [];
    for (const order of orders) {
      placed.push(await placeOrder(h, { shop, arrivedTag: "honey-77", ...order }));
    }
    // A matched order's commission is the creator's own: it is not "redirected".
    const matched = await placeOrder(h, { shop, currency: "EUR", subtotal: "50.00" });
    await w.runOnce();

    for (const [index, { payload }] of placed.entries()) {
      const v = await verificationOf(shop, payload.id);
      expect(v.outcome).toBe("hijacked");
      expect(v.commission).toMatchObject({
        currency: orders[index]!.currency,
        amount: orders[index]!.amount,
        redirected: true,
      });
    }
    expect((await verificationOf(shop, matched.payload.id)).commission).toMatchObject({
      currency: "EUR",
      amount: "3.75",
      redirected: false,
    });

    const response = await call(dashboard.loader as never, adminRequest("/app?days=7", shop));
    expect(response.status).toBe(200);
    const data = await response.json();
    expect(data.counts).toMatchObject({ hijacked: 4, matched: 1, verified: 5 });
    expect(data.redirected).toEqual([
      { currency: "JPY", total: "JPY 93", totalText: "¥93", orders: 1 },
      { currency: "KWD", total: "KWD 9.259", totalText: "KWD\u00a09.259", orders: 1 },
      { currency: "USD", total: "USD 7.51", totalText: "$7.51", orders: 2 },
    ]);
  });
});
