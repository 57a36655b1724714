// Order edits as Shopify commits them for API 2026-07: the order's amounts move (a new version of
// the order), and `orders/edited` describes the edit with the field set of Shopify's documented
// sample (tests/fixtures/webhooks/orders-edited-2026-07.json): which edit of which order, when,
// and the lines it added and removed, with no amount. What the order is worth after it is read
// from the order (Order.subtotalPriceSet, totalPriceSet), which the stand-in serves from the
// order's payload as edited here.
import Decimal from "decimal.js";
import { shopTime } from "./order-payload";

type Payload = Record<string, any>;

/** The order-level amounts an edit of the line items moves, each with its `*_set`. */
const AFTER_DISCOUNTS = ["subtotal_price", "total_price", "current_subtotal_price", "current_total_price"] as const;
/** The lines' total before discounts: moved by the edit's subtotal and by the discounts it added. */
const BEFORE_DISCOUNTS = ["total_line_items_price"] as const;
/** What discounts took: moved by the line discounts the edit added. */
const DISCOUNTS = ["total_discounts", "current_total_discounts"] as const;

/**
 * The order's payload after an edit that sets its subtotal after discounts to `subtotal` and adds
 * `discount` of line discounts (as adding an item with a discount on it does): the lines' total
 * before discounts moves by the subtotal's difference plus that discount, the total by the
 * subtotal's difference (shipping and taxes unchanged), the order's discounts by the discount.
 */
export function editedOrderPayload(order: Payload, subtotal: string, discount = "0"): Payload {
  const delta = new Decimal(subtotal).minus(String(order.subtotal_price ?? order.current_subtotal_price ?? "0"));
  const next: Payload = { ...order };
  const move = (fields: readonly string[], by: Decimal) => {
    for (const field of fields) {
      if (order[field] === undefined || order[field] === null) continue;
      const moved = (value: unknown) => {
        const text = String(value);
        const digits = text.includes(".") ? text.length - text.indexOf(".") - 1 : 0;
        return new Decimal(text).plus(by).toFixed(digits);
      };
      next[field] = moved(order[field]);
      const set = order[`${field}_set`] as Payload | undefined;
      if (set?.shop_money)
        next[`${field}_set`] = {
          shop_money: { ...set.shop_money, amount: moved(set.shop_money.amount) },
          presentment_money: set.presentment_money && {
            ...set.presentment_money,
            amount: moved(set.presentment_money.amount),
          },
        };
    }
  };
  move(AFTER_DISCOUNTS, delta);
  move(BEFORE_DISCOUNTS, delta.plus(discount));
  move(DISCOUNTS, new Decimal(discount));
  return next;
}

let sequence = 0;

export interface EditDescription {
  /** The edited order's id (a number, or digits beyond 2^53 as a string). */
  orderId: number | string;
  id?: number;
  committedAt?: Date;
  utcOffset?: string;
  /** Line items the edit added to and removed from, each by a quantity. */
  additions?: { id: number; delta: number }[];
  removals?: { id: number; delta: number }[];
}

/** orders/edited's payload for one committed edit. */
export function buildOrderEditedPayload(description: EditDescription): Record<string, unknown> {
  sequence += 1;
  const at = shopTime(description.committedAt ?? new Date(), description.utcOffset ?? "-05:00");
  return {
    order_edit: {
      id: description.id ?? 78_000_000_000 + sequence,
      app_id: null,
      created_at: at,
      committed_at: at,
      notify_customer: false,
      order_id: description.orderId,
      staff_note: "",
      user_id: null,
      line_items: { additions: description.additions ?? [], removals: description.removals ?? [] },
      discounts: { line_item: { additions: [], removals: [] } },
      shipping_lines: { additions: [], removals: [] },
    },
  };
}
