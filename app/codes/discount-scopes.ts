// The optional scopes switching a code off needs (shopify.app.toml `optional_scopes`): asked for
// in the browser through App Bridge on first use, so a plain module the page can import.
export const DISCOUNT_SCOPES = ["read_discounts", "write_discounts"] as const;
