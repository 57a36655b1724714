// The single definition of what the storefront writes to the cart and reports through the app
// proxy, and of what the order pipeline reads back from the order's note_attributes. The theme
// extension's script is built from a source that imports this file, so the two can never drift
// apart.
//
// What cart attributes are: checkout does not display them, the merchant sees them on the order
// (Shopify copies them to note_attributes), and any script on the storefront can read and
// rewrite them. The leading "_" only marks ours as app plumbing (Shopify's convention of hiding
// "_" keys is documented for line-item properties, not for cart attributes), so the values are
// a convenience copy; the touches the script reports through the app proxy are the record a
// storefront script cannot rewrite.

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

/**
 * The app proxy, as declared in shopify.app.toml's [app_proxy]: Shopify forwards
 * https://{shop}/{prefix}/{subpath}/* to the app's {APP_PROXY_APP_PATH}/*, signed.
 */
export const APP_PROXY_PREFIX = "apps";
export const APP_PROXY_SUBPATH = "tag-guard";
export const APP_PROXY_APP_PATH = "/proxy";

/** Where the storefront reports a touch, relative to Shopify.routes.root (so, same origin). */
export const TOUCH_PATH = `${APP_PROXY_PREFIX}/${APP_PROXY_SUBPATH}/touch`;

/**
 * The JSON body of POST {root}apps/tag-guard/touch: the click and the tag the cart now carries
 * (null when the click came without one), and the cart token bare, without the `?key=` suffix
 * the `cart` cookie carries, as orders/create's cart_token has it. A null cart token is a click's
 * arrival from a shopper who declined tracking: the click the landing page's address carried,
 * and nothing of the browser's (decision 049).
 */
export interface TouchRequest {
  clickId: string;
  tag: string | null;
  cartToken: string | null;
}
