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
