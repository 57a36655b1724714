// Builds `refunds/create` and `orders/cancelled` webhook payloads as Shopify delivers them for
// API 2026-07, with the field set of Shopify's documented samples
// (tests/fixtures/webhooks/refunds-create-2026-07.json; orders/cancelled is the order payload
// with cancelled_at and cancel_reason set). Money is exact: decimal strings in each `*_set`,
// and the bare amounts beside them as JSON numbers, as Shopify sends them.
import Decimal from "decimal.js";
import { shopTime, type OrderWebhookPayload } from "./order-payload";

export interface RefundLineDescription {
  /** The order's line item refunded (line_item_id and line_item.id); one of the builder's own otherwise. */
  lineItemId?: number;
  title?: string;
  /** The refunded line's unit price before discounts (the order line's price). */
  price: string;
  quantity?: number;
  /** What the refund gives back for the line after its discounts; price x quantity unless given. */
  subtotal?: string;
  tax?: string;
}

export interface RefundDescription {
  id?: number;
  /** The refunded order's id (a number, or digits beyond 2^53 as a string). */
  orderId: number | string;
  currency?: string;
  lines: RefundLineDescription[];
  /** Shipping refunded (refund_shipping_lines). */
  shipping?: string;
  createdAt?: Date;
  utcOffset?: string;
}

let sequence = 0;

export function buildRefundCreatePayload(description: RefundDescription): Record<string, unknown> {
  sequence += 1;
  const id = description.id ?? 890_000_000_000 + sequence;
  const currency = description.currency ?? "USD";
  const set = (amount: Decimal) => ({
    shop_money: { amount: amount.toFixed(2), currency_code: currency },
    presentment_money: { amount: amount.toFixed(2), currency_code: currency },
  });
  const at = shopTime(description.createdAt ?? new Date(), description.utcOffset ?? "-05:00");
  const orderId = Number(description.orderId);
  const lines = description.lines.map((line, index) => {
    const ownId = 487_000_000_000 + sequence * 100 + index;
    const lineId = line.lineItemId ?? ownId;
    const quantity = line.quantity ?? 1;
    const price = new Decimal(line.price);
    const subtotal = new Decimal(line.subtotal ?? price.times(quantity));
    const tax = new Decimal(line.tax ?? 0);
    return {
      id: ownId + 50,
      quantity,
      line_item_id: lineId,
      location_id: null,
      restock_type: "no_restock",
      subtotal: subtotal.toNumber(),
      total_tax: tax.toNumber(),
      subtotal_set: set(subtotal),
      total_tax_set: set(tax),
      line_item: {
        id: lineId,
        variant_id: null,
        title: line.title ?? "Refunded item",
        quantity,
        sku: "",
        variant_title: null,
        vendor: null,
        fulfillment_service: "manual",
        product_id: null,
        requires_shipping: true,
        taxable: true,
        gift_card: false,
        name: line.title ?? "Refunded item",
        variant_inventory_management: null,
        properties: [],
        product_exists: true,
        fulfillable_quantity: quantity,
        grams: 0,
        price: price.toFixed(2),
        total_discount: "0.00",
        fulfillment_status: null,
        price_set: set(price),
        total_discount_set: set(new Decimal(0)),
        discount_allocations: [],
        duties: [],
        admin_graphql_api_id: `gid://shopify/LineItem/${lineId}`,
        tax_lines: [],
      },
    };
  });
  const shipping = new Decimal(description.shipping ?? 0);
  return {
    id,
    order_id: orderId,
    created_at: at,
    note: null,
    user_id: null,
    processed_at: at,
    duties: [],
    total_duties_set: set(new Decimal(0)),
    return: null,
    refund_shipping_lines: shipping.isZero()
      ? []
      : [
          {
            id: id + 7,
            shipping_line_id: id + 8,
            subtotal_amount_set: set(shipping),
            tax_amount_set: set(new Decimal(0)),
          },
        ],
    restock: false,
    admin_graphql_api_id: `gid://shopify/Refund/${id}`,
    order_adjustments: [],
    refund_line_items: lines,
    transactions: [],
  };
}

/** The order as orders/cancelled delivers it: the order payload, cancelled. */
export function buildOrderCancelledPayload(
  order: OrderWebhookPayload,
  options: { at?: Date; reason?: string; utcOffset?: string } = {},
): OrderWebhookPayload {
  const at = shopTime(options.at ?? new Date(), options.utcOffset ?? "-05:00");
  return {
    ...order,
    cancelled_at: at,
    cancel_reason: options.reason ?? "customer",
    financial_status: "voided",
    updated_at: at,
  };
}
