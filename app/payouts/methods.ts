// How a creator is paid: by hand (the merchant pays outside the app and records it, as before),
// through PayPal Payouts, or in the shop itself, as Shopify store credit or a Shopify gift card,
// all three sent by the app. Each creator has the shop's default unless the merchant chose
// otherwise for them. A plain module: the Payouts page imports it to ask for the scopes.

export const PAYOUT_METHODS = ["manual", "paypal", "store_credit", "gift_card"] as const;
export type PayoutMethod = (typeof PAYOUT_METHODS)[number];

/** The methods Shopify pays, in the shop's currency, on the creator's customer account. */
export const SHOPIFY_METHODS = ["store_credit", "gift_card"] as const;
export type ShopifyMethod = (typeof SHOPIFY_METHODS)[number];

export function isPayoutMethod(value: unknown): value is PayoutMethod {
  return (PAYOUT_METHODS as readonly unknown[]).includes(value);
}

export function isShopifyMethod(value: unknown): value is ShopifyMethod {
  return (SHOPIFY_METHODS as readonly unknown[]).includes(value);
}

/**
 * The optional scopes (shopify.app.toml `optional_scopes`) a method needs, asked for when the
 * merchant turns it on. Finding the creator by email reads customers' protected data; a gift
 * card's recipient, and a customer created for a creator, need write_customers.
 */
export function scopesFor(method: PayoutMethod, createCustomers: boolean): string[] {
  if (method === "store_credit")
    return [
      "read_customers",
      ...(createCustomers ? ["write_customers"] : []),
      "read_store_credit_account_transactions",
      "write_store_credit_account_transactions",
    ];
  if (method === "gift_card") return ["read_customers", "write_customers", "read_gift_cards", "write_gift_cards"];
  return [];
}

/** The method a creator is paid by: their own, else the shop's default. */
export function methodOf(
  creatorId: string,
  chosen: Record<string, PayoutMethod>,
  shopDefault: PayoutMethod,
): PayoutMethod {
  return Object.hasOwn(chosen, creatorId) ? chosen[creatorId]! : shopDefault;
}
