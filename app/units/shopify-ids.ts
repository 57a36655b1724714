// Shopify's numeric ids (orders, refunds) as text. They pass 2^53, so they stay digits and
// never become a JavaScript number; 20 digits hold any unsigned 64-bit id. A leaf module, so
// that the verification and the ledger (which imports nothing of verification) share one rule.

/** The digits of an id, for building larger patterns (a gid, a field of a raw body). */
export const SHOPIFY_ID_DIGITS = String.raw`\d{1,20}`;

/** A whole string that is a numeric id. */
export const SHOPIFY_ID = new RegExp(`^${SHOPIFY_ID_DIGITS}$`);

/** gid://shopify/{type}/{id}, capturing the id. */
export function shopifyGid(type: string): RegExp {
  return new RegExp(`^gid://shopify/${type}/(${SHOPIFY_ID_DIGITS})$`);
}

/** The order in Shopify admin, as App Bridge opens it from inside the app. */
export function adminOrderUrl(orderId: string): string {
  return `shopify://admin/orders/${orderId}`;
}
