import { describe, expect, it } from "vitest";
import {
  cancellationPayloadFrom,
  orderPayloadFrom,
  refundPayloadFrom,
  type OrderNode,
  type RefundLineNode,
  type RefundNode,
} from "../../app/reconciliation/shopify-readings";

// What the sweep makes of the Admin API's order, refund and cancellation, field by field, on
// hand-made answers: the cases a stand-in order rarely has (several discounts, a shipping code,
// a percentage code, fields left out). tests/reconciliation/shopify-readings.test.ts holds the
// same readings to the webhook's through the real client.

const money = (amount: unknown, currencyCode = "USD") => ({ shopMoney: { amount, currencyCode } });

type Application = OrderNode["discountApplications"]["nodes"][number];
const code = (text: unknown, targetType = "LINE_ITEM", kind = "MoneyV2") =>
  ({ code: text, targetType, value: { __typename: kind } }) as unknown as Application;
const automatic = { targetType: "LINE_ITEM", value: { __typename: "MoneyV2" } } as unknown as Application;

function order(more: Partial<Record<keyof OrderNode, unknown>> = {}): OrderNode {
  return {
    id: "gid://shopify/Order/1001",
    legacyResourceId: "1001",
    name: "#1001",
    createdAt: "2026-11-27T10:00:00Z",
    currencyCode: "EUR",
    subtotalPriceSet: money("90.0", "EUR"),
    totalPriceSet: money("99.5", "EUR"),
    customAttributes: [
      { key: "_tag_guard_click", value: "clk_1" },
      { key: "gift", value: null },
    ],
    cartToken: "cart-1",
    checkoutToken: "checkout-1",
    customerJourneySummary: { lastVisit: { landingPage: "https://shop.example/?lb_click=clk_1" } },
    totalDiscountsSet: money("10.0", "EUR"),
    discountApplications: { nodes: [] },
    lineItems: { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } },
    ...more,
  } as unknown as OrderNode;
}

const codesOf = (node: OrderNode) => orderPayloadFrom(node, []).discount_codes;

describe("the sweep's orders/create payload", () => {
  it("names the order, its money and its cart as the webhook does", () => {
    expect(orderPayloadFrom(order(), ["19.99", "60.01", "10"])).toEqual({
      id: "1001",
      admin_graphql_api_id: "gid://shopify/Order/1001",
      name: "#1001",
      created_at: "2026-11-27T10:00:00Z",
      currency: "EUR",
      subtotal_price: "90.0",
      total_price: "99.5",
      total_line_items_price: "90",
      total_discounts: "10.0",
      note_attributes: [
        { name: "_tag_guard_click", value: "clk_1" },
        { name: "gift", value: null },
      ],
      landing_site: "https://shop.example/?lb_click=clk_1",
      cart_token: "cart-1",
      checkout_token: "checkout-1",
      discount_codes: [],
    });
  });

  it("leaves out what the order does not have, and amounts that are no decimal text", () => {
    const payload = orderPayloadFrom(
      order({
        subtotalPriceSet: null,
        totalPriceSet: money(99.5),
        cartToken: null,
        customerJourneySummary: null,
        totalDiscountsSet: null,
      }),
      [],
    );
    expect(payload).toMatchObject({
      subtotal_price: null,
      total_price: null,
      total_line_items_price: "0",
      total_discounts: null,
      landing_site: null,
      cart_token: null,
    });
    expect(orderPayloadFrom(order({ customerJourneySummary: { lastVisit: null } }), []).landing_site).toBeNull();
  });

  it("gives the one code on the order the order's whole discount", () => {
    expect(codesOf(order({ discountApplications: { nodes: [code("SPRING")] } }))).toEqual([
      { code: "SPRING", amount: "10.0", type: "fixed_amount" },
    ]);
    // No discount total to read: nothing given.
    expect(codesOf(order({ discountApplications: { nodes: [code("SPRING")] }, totalDiscountsSet: null }))).toEqual([
      { code: "SPRING", amount: "0", type: "fixed_amount" },
    ]);
  });

  it("records 0 for each code when the order has more than one discount, a code's share being unknown", () => {
    expect(codesOf(order({ discountApplications: { nodes: [code("SPRING"), automatic] } }))).toEqual([
      { code: "SPRING", amount: "0", type: "fixed_amount" },
    ]);
    expect(
      codesOf(
        order({
          discountApplications: { nodes: [code("SPRING"), code("VIP", "LINE_ITEM", "PricingPercentageValue")] },
        }),
      ),
    ).toEqual([
      { code: "SPRING", amount: "0", type: "fixed_amount" },
      { code: "VIP", amount: "0", type: "percentage" },
    ]);
    // An automatic discount alone is no code.
    expect(codesOf(order({ discountApplications: { nodes: [automatic] } }))).toEqual([]);
  });

  it("types a code as the webhook does: shipping, percentage, or a fixed amount", () => {
    const typeOf = (application: Application) => codesOf(order({ discountApplications: { nodes: [application] } }));
    expect(typeOf(code("FREESHIP", "SHIPPING_LINE", "PricingPercentageValue"))).toMatchObject([{ type: "shipping" }]);
    expect(typeOf(code("TENOFF", "LINE_ITEM", "PricingPercentageValue"))).toMatchObject([{ type: "percentage" }]);
    expect(typeOf(code("FIVE", "LINE_ITEM", "MoneyV2"))).toMatchObject([{ type: "fixed_amount" }]);
  });

  it("takes as a code only an application whose code is text", () => {
    expect(codesOf(order({ discountApplications: { nodes: [code(null)] } }))).toEqual([]);
    expect(codesOf(order({ discountApplications: { nodes: [code(42), code("REAL")] } }))).toEqual([
      { code: "REAL", amount: "0", type: "fixed_amount" },
    ]);
  });
});

describe("the sweep's refunds/create payload", () => {
  it("carries every line and shipping line with its money, and the order it belongs to", () => {
    const refund = {
      id: "gid://shopify/Refund/77",
      legacyResourceId: "77",
      order: { id: "gid://shopify/Order/1001", legacyResourceId: "1001" },
      refundLineItems: { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } },
      refundShippingLines: {
        nodes: [{ subtotalAmountSet: money("5.0"), taxAmountSet: money(0.4, undefined) }],
      },
    } as unknown as RefundNode;
    const line = {
      quantity: 2,
      subtotalSet: money("36.0"),
      totalTaxSet: { shopMoney: { amount: "2.88" } },
      lineItem: { originalUnitPriceSet: money("20.0") },
    } as unknown as RefundLineNode;
    expect(refundPayloadFrom(refund, [line])).toEqual({
      id: "77",
      admin_graphql_api_id: "gid://shopify/Refund/77",
      order_id: "1001",
      refund_line_items: [
        {
          quantity: 2,
          subtotal_set: { shop_money: { amount: "36.0", currency_code: "USD" } },
          total_tax_set: { shop_money: { amount: "2.88", currency_code: null } },
          line_item: { price_set: { shop_money: { amount: "20.0", currency_code: "USD" } } },
        },
      ],
      refund_shipping_lines: [
        {
          subtotal_amount_set: { shop_money: { amount: "5.0", currency_code: "USD" } },
          tax_amount_set: { shop_money: { amount: null, currency_code: "USD" } },
        },
      ],
    });
  });
});

describe("the sweep's orders/cancelled payload", () => {
  it("says when the order was cancelled, when Shopify says so in text", () => {
    const base = { id: "gid://shopify/Order/1001", legacyResourceId: 1001 };
    expect(cancellationPayloadFrom({ ...base, cancelledAt: "2026-11-27T11:00:00Z" })).toEqual({
      id: "1001",
      admin_graphql_api_id: "gid://shopify/Order/1001",
      cancelled_at: "2026-11-27T11:00:00Z",
    });
    expect(cancellationPayloadFrom(base).cancelled_at).toBeNull();
    expect(cancellationPayloadFrom({ ...base, cancelledAt: 1764241200 }).cancelled_at).toBeNull();
  });
});
