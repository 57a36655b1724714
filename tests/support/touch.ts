import type { TouchRequest } from "../../app/attribution/cart-attributes";
import { signedProxyQuery } from "../../sandbox/storefront/app-proxy";
import { TEST_SECRET } from "./deliver";

export interface TouchOptions {
  secret?: string;
  /** Unix seconds of Shopify's signature; now when omitted. */
  timestamp?: number;
  /** Sent as X-Forwarded-For, as Shopify's proxy forwards the shopper's address. */
  address?: string;
  /** No signed query at all. */
  unsigned?: boolean;
}

/** POSTs a touch to the app's /proxy/touch the way Shopify's app proxy forwards it: signed query, JSON body. */
export async function sendTouch(
  appUrl: string,
  shop: string,
  body: TouchRequest | string,
  options: TouchOptions = {},
): Promise<Response> {
  const query = options.unsigned
    ? ""
    : `?${signedProxyQuery("", { shop, apiSecret: options.secret ?? TEST_SECRET, timestamp: options.timestamp }).toString()}`;
  return fetch(`${appUrl}/proxy/touch${query}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(options.address && { "x-forwarded-for": options.address }),
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
