/** The fields that name a seeded order in a Verification row: its ids and its time, as Shopify's orders/create gives them. */
export function orderRow(shop: string, orderId: string, at: Date) {
  return {
    shop,
    orderId,
    orderGid: `gid://shopify/Order/${orderId}`,
    orderName: `#${orderId}`,
    orderCreatedAt: at,
    createdAt: at,
  };
}

/** A matched order's Verification row: its click read from the cart's attributes, the creator's tag arrived as sent. */
export function matchedOrderRow(shop: string, orderId: string, at: Date, creator: { creatorId: string; tag: string }) {
  return {
    ...orderRow(shop, orderId, at),
    outcome: "matched",
    captureSource: "cart_attributes",
    clickId: `clk-${orderId}`,
    arrivedTag: creator.tag,
    expectedTag: creator.tag,
    creatorId: creator.creatorId,
    orderFacts: "{}",
  };
}

/**
 * What a matched order's Commission takes from its Verification row (matchedOrderRow's), held
 * 30 days from the order; the caller adds the amounts, the status and the entries.
 */
export function commissionOfMatched(order: {
  shop: string;
  id: string;
  orderId: string;
  orderName: string | null;
  creatorId: string | null;
  expectedTag: string | null;
  createdAt: Date;
}) {
  const tag = order.expectedTag ?? "";
  return {
    shop: order.shop,
    verificationId: order.id,
    orderId: order.orderId,
    orderName: order.orderName,
    creatorId: order.creatorId ?? "",
    expectedTag: tag,
    arrivedTag: tag,
    holdUntil: new Date(order.createdAt.getTime() + 30 * 86_400_000),
    createdAt: order.createdAt,
  };
}
