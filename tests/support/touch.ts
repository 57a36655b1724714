import type { TouchRequest } from "../../app/attribution/cart-attributes";
import { signedProxyQuery } from "../../sandbox/storefront/app-proxy";
import { TEST_SECRET } from "./deliver";

export interface TouchOptions {
  secret?: string;
  /** Unix seconds of Shopify's signature; now when omitted. */
  timestamp?: number;
  /** Sent as X-Forwarded-For, as Shopify's proxy forwards the shopper's address. */
  address?: string;
  /** The shopper's browser, as Shopify's proxy forwards its User-Agent. */
  userAgent?: string;
  /** No signed query at all. */
  unsigned?: boolean;
}

/** The query Shopify's app proxy forwards to the app, signed (unless `unsigned`), with its leading "?". */
export function proxyQuery(shop: string, options: TouchOptions = {}): string {
  if (options.unsigned) return "";
  return `?${signedProxyQuery("", { shop, apiSecret: options.secret ?? TEST_SECRET, timestamp: options.timestamp }).toString()}`;
}

/** POSTs a touch to the app's /proxy/touch the way Shopify's app proxy forwards it: signed query, JSON body. */
export async function sendTouch(
  appUrl: string,
  shop: string,
  body: TouchRequest | string,
  options: TouchOptions = {},
): Promise<Response> {
  return fetch(`${appUrl}/proxy/touch${proxyQuery(shop, options)}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(options.address && { "x-forwarded-for": options.address }),
      ...(options.userAgent && { "user-agent": options.userAgent }),
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
