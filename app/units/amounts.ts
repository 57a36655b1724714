// The bounds every amount read from Shopify is held to: an order's (orders/create) and what a
// refund gives back (refunds/create) alike.

/** Largest order value the app accepts, in the currency's major unit (a trillion). Commissions
 * stay exact integers of minor units far below 2^63, even summed over a day's orders. */
export const MAX_ORDER_VALUE = "1000000000000";
