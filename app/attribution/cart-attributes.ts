// The single definition of what the storefront writes to the cart and the order pipeline
// reads back from the order's note_attributes. The theme extension's script is built from
// a source that imports this file, so the two can never drift apart.
//
// Names start with "_" because Shopify keeps underscore-prefixed cart attributes out of the
// customer's checkout and order status pages: they are plumbing, not something to show.

/** URL query parameter that carries the click id from the creator's tracked link. */
export const CLICK_ID_PARAM = "lb_click";

/** Affiliate tag parameter names used when the merchant has not chosen their own. */
export const DEFAULT_TAG_PARAMS: readonly string[] = ["tag"];

export const CART_ATTRIBUTES = {
  /** The click id from `lb_click`; kept until a new one arrives. */
  clickId: "_lb_click",
  /** The affiliate tag that arrived last (last touch: a replaced tag is the hijack). */
  arrivedTag: "_lb_tag",
  /** ISO 8601 time at which the storefront first saw the current click id. */
  capturedAt: "_lb_click_at",
  /** JSON array of [tag, ISO time] pairs, oldest first, at most TAG_HISTORY_LIMIT long. */
  tagHistory: "_lb_tags",
} as const;

export const TAG_HISTORY_LIMIT = 5;

/** Longest value the storefront writes into any one attribute; longer input is cut. */
export const MAX_ATTRIBUTE_LENGTH = 512;

/** App-owned metafield through which settings reach the storefront (namespace/key). */
export const STOREFRONT_CONFIG_METAFIELD = { namespace: "tag_guard", key: "storefront_config" } as const;
