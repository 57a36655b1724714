// Which amount of an order its commission (and the order_value sent to the click service) is
// computed from. A merchant setting; the pipeline reads the matching amount from the order.
export const ORDER_VALUE_BASES = ["subtotal_after_discounts", "subtotal_before_discounts", "total_price"] as const;
export type OrderValueBasis = (typeof ORDER_VALUE_BASES)[number];
/** The basis of a shop that has not chosen one (DEFAULT_SETTINGS in defaults.ts names it). */
export const DEFAULT_ORDER_VALUE_BASIS: OrderValueBasis = "subtotal_after_discounts";

export function isOrderValueBasis(value: unknown): value is OrderValueBasis {
  return (ORDER_VALUE_BASES as readonly unknown[]).includes(value);
}

/** A stored basis as the code can use it: one that is not (a hand-edited row) reads as the default's. */
export function orderValueBasisOf(value: unknown): OrderValueBasis {
  return isOrderValueBasis(value) ? value : DEFAULT_ORDER_VALUE_BASIS;
}

/**
 * The order's value on the merchant's basis, or on the first basis its payload has when that
 * one is missing (nothing, for no amount at all), with the basis it was read on: refunds are
 * pro-rated on that one.
 */
export function orderValueOn(
  amounts: Partial<Record<OrderValueBasis, string>>,
  preferred: OrderValueBasis,
): { value: string; basis: OrderValueBasis } {
  for (const basis of [preferred, "subtotal_after_discounts", "total_price"] as const) {
    const value = amounts[basis];
    if (value !== undefined) return { value, basis };
  }
  return { value: "0", basis: preferred };
}
