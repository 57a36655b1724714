import { createHmac } from "node:crypto";
import { APP_PROXY_PREFIX, APP_PROXY_SUBPATH } from "../../app/attribution/cart-attributes";

// What Shopify adds to every request it forwards through an app proxy, per shopify.dev's
// "Authenticate app proxies": the storefront's own query, plus shop, logged_in_customer_id
// (empty when no customer is logged in), path_prefix and timestamp (Unix seconds), and a
// signature: the parameters as "key=value" strings (a repeated key's values joined with ","),
// sorted, concatenated with no separator, HMAC-SHA256 under the app's secret, hex. The app's
// side (authenticate.public.appProxy) recomputes it and allows 90 seconds of clock skew.

/** The proxy's prefix on the storefront, as Shopify sends it in path_prefix. */
export const APP_PROXY_PATH_PREFIX = `/${APP_PROXY_PREFIX}/${APP_PROXY_SUBPATH}`;

export interface AppProxySigning {
  shop: string;
  apiSecret: string;
  /** Empty: no customer logged in. */
  loggedInCustomerId?: string;
  /** Unix seconds; now when omitted. */
  timestamp?: number;
}

/** The signature over a forwarded query (without its `signature` parameter). */
export function appProxySignature(query: URLSearchParams, apiSecret: string): string {
  const values = new Map<string, string[]>();
  for (const [key, value] of query) if (key !== "signature") values.set(key, [...(values.get(key) ?? []), value]);
  const message = [...values]
    .map(([key, list]) => `${key}=${list.join(",")}`)
    .sort()
    .join("");
  return createHmac("sha256", apiSecret).update(message).digest("hex");
}

/** The query Shopify forwards: the storefront's own parameters, then its signed ones. */
export function signedProxyQuery(storefrontQuery: string, signing: AppProxySigning): URLSearchParams {
  const query = new URLSearchParams(storefrontQuery);
  query.delete("signature");
  query.set("shop", signing.shop);
  query.set("logged_in_customer_id", signing.loggedInCustomerId ?? "");
  query.set("path_prefix", APP_PROXY_PATH_PREFIX);
  query.set("timestamp", String(signing.timestamp ?? Math.trunc(Date.now() / 1000)));
  query.set("signature", appProxySignature(query, signing.apiSecret));
  return query;
}
