import Decimal from "decimal.js";
import type { AdminData } from "../shopify-admin/admin-client.server";
import type { RECONCILE_ORDER, RECONCILE_REFUND } from "../shopify-admin/documents";

// What the sweep reads of an order through the Admin GraphQL API, put in the shape its webhook
// payload has (orders/create, refunds/create, orders/cancelled), so that the one reader of each
// (app/verification/order-facts.ts, app/commissions/order-events.ts) decides what the app keeps.
// A reconciled order is then held to every rule a delivered one is: bounds, our cart attributes
// only, exact amounts. Only the fields those readers use are filled in.

export type OrderNode = NonNullable<AdminData<typeof RECONCILE_ORDER>["order"]>;
export type RefundNode = NonNullable<AdminData<typeof RECONCILE_REFUND>["refund"]>;
export type RefundLineNode = RefundNode["refundLineItems"]["nodes"][number];

const ZERO = new Decimal(0);
/** A MoneyV2 amount is a decimal string; anything else is left for the reader to refuse. */
const amount = (value: unknown): string | null => (typeof value === "string" ? value : null);

/**
 * The orders/create payload of an order. `lineTotals`: every line's price before discounts
 * (all pages of its lines), whose sum is the webhook's total_line_items_price.
 */
export function orderPayloadFrom(order: OrderNode, lineTotals: readonly string[]): Record<string, unknown> {
  const codeApplications = order.discountApplications.nodes.flatMap((application) =>
    // Stryker disable next-line ConditionalExpression: "code" in it only narrows the type, the typeof test alone decides
    "code" in application && typeof application.code === "string" ? [application] : [],
  );
  // The amount each code took is not a field of the order: with one discount on the order, the
  // order's total discount is that code's; with several, a code's share would need every line's
  // allocations, so its amount is recorded as 0 (decision 034).
  const onlyCode =
    order.discountApplications.nodes.length === 1 &&
    // Stryker disable next-line ConditionalExpression: with one discount on the order, no code among them means no code's amount to read
    codeApplications.length === 1;
  return {
    id: String(order.legacyResourceId),
    admin_graphql_api_id: order.id,
    name: order.name,
    created_at: order.createdAt,
    currency: order.currencyCode,
    subtotal_price: amount(order.subtotalPriceSet?.shopMoney.amount),
    total_price: amount(order.totalPriceSet.shopMoney.amount),
    total_line_items_price: lineTotals.reduce((sum, total) => sum.plus(total), ZERO).toFixed(),
    total_discounts: amount(order.totalDiscountsSet?.shopMoney.amount),
    note_attributes: order.customAttributes.map(({ key, value }) => ({ name: key, value: value ?? null })),
    landing_site: order.customerJourneySummary?.lastVisit?.landingPage ?? null,
    cart_token: order.cartToken ?? null,
    checkout_token: order.checkoutToken ?? null,
    discount_codes: codeApplications.map((application) => ({
      code: application.code,
      amount: onlyCode ? (amount(order.totalDiscountsSet?.shopMoney.amount) ?? "0") : "0",
      type:
        application.targetType === "SHIPPING_LINE"
          ? "shipping"
          : application.value.__typename === "PricingPercentageValue"
            ? "percentage"
            : "fixed_amount",
    })),
  };
}

/** The refunds/create payload of a refund; `lines`: all its refund lines (every page). */
export function refundPayloadFrom(refund: RefundNode, lines: readonly RefundLineNode[]): Record<string, unknown> {
  const money = (set: { shopMoney: { amount: unknown; currencyCode?: unknown } }) => ({
    shop_money: { amount: amount(set.shopMoney.amount), currency_code: set.shopMoney.currencyCode ?? null },
  });
  return {
    id: String(refund.legacyResourceId),
    admin_graphql_api_id: refund.id,
    order_id: String(refund.order.legacyResourceId),
    refund_line_items: lines.map((line) => ({
      quantity: line.quantity,
      subtotal_set: money(line.subtotalSet),
      total_tax_set: money(line.totalTaxSet),
      line_item: { price_set: money(line.lineItem.originalUnitPriceSet) },
    })),
    refund_shipping_lines: refund.refundShippingLines.nodes.map((line) => ({
      subtotal_amount_set: money(line.subtotalAmountSet),
      tax_amount_set: money(line.taxAmountSet),
    })),
  };
}

/** The orders/cancelled payload: what the ledger reads of it is the order and when. */
export function cancellationPayloadFrom(order: {
  id: string;
  legacyResourceId: unknown;
  cancelledAt?: unknown;
}): Record<string, unknown> {
  return {
    id: String(order.legacyResourceId),
    admin_graphql_api_id: order.id,
    cancelled_at: typeof order.cancelledAt === "string" ? order.cancelledAt : null,
  };
}
