import { DEFAULT_SETTINGS } from "./defaults";

// Which amount of an order its commission (and the order_value sent to the click service) is
// computed from. A merchant setting; the pipeline reads the matching amount from the order.
export const ORDER_VALUE_BASES = ["subtotal_after_discounts", "subtotal_before_discounts", "total_price"] as const;
export type OrderValueBasis = (typeof ORDER_VALUE_BASES)[number];

export function isOrderValueBasis(value: unknown): value is OrderValueBasis {
  return (ORDER_VALUE_BASES as readonly unknown[]).includes(value);
}

/** A stored basis as the code can use it: one that is not (a hand-edited row) reads as the default's. */
export function orderValueBasisOf(value: unknown): OrderValueBasis {
  return isOrderValueBasis(value) ? value : DEFAULT_SETTINGS.orderValueBasis;
}
