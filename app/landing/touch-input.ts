import { z } from "zod";
import { MAX_CLICK_ID_LENGTH } from "../attribution/click-claims";
import { MAX_ATTRIBUTE_LENGTH, type TouchRequest } from "../attribution/cart-attributes";

// What the storefront may report through the app proxy. The proxy is public, so anything that
// cannot be a real click id, tag or cart token is refused before it costs a write, and so is a
// forwarded query that Shopify's proxy could not have sent.

/** Longest body the touch route reads. A real touch is a few hundred bytes. */
export const MAX_TOUCH_BODY_BYTES = 4 * 1024;

/**
 * How far a proxied call's `timestamp` (Unix seconds, under Shopify's signature) may be from
 * the app's clock, either way: a signed query is good for this long, and never without one.
 * The same tolerance as the library's own check (shopify-api's HMAC validator).
 */
export const PROXY_TIMESTAMP_WINDOW_SECONDS = 90;

/** The shop Shopify's proxy names: its permanent myshopify.com domain, lower case. */
const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]{0,60}\.myshopify\.com$/;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** Half of a UTF-16 surrogate pair on its own: not text, and no database stores it. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Printable text without control characters (C0, DEL, C1), lone surrogates or surrounding space. */
export const printable = (max: number, what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .min(1, `${what} is empty`)
    .max(max, `${what} is longer than ${max} characters`)
    .refine((value) => !CONTROL.test(value), `${what} contains control characters`)
    .refine((value) => !LONE_SURROGATE.test(value), `${what} is not well-formed text (a lone surrogate)`)
    .refine((value) => value.trim() === value, `${what} has surrounding spaces`);

const TouchBody = z.object({
  clickId: printable(MAX_CLICK_ID_LENGTH, "clickId"),
  tag: printable(MAX_ATTRIBUTE_LENGTH, "tag").nullable(),
  // Shopify's cart tokens are letters, digits, "-" and "_" (the cookie's "?key=" suffix is cut).
  // null: a click's arrival from a shopper who declined tracking, reported without the cart.
  cartToken: z
    .string({ error: "cartToken must be a string (the bare cart token) or null" })
    .regex(/^[A-Za-z0-9_-]{1,128}$/, "cartToken is not a cart token")
    .nullable(),
});

export type TouchInput = { ok: true; touch: TouchRequest } | { ok: false; error: string };

export function readTouch(body: unknown): TouchInput {
  const parsed = TouchBody.safeParse(body);
  if (parsed.success) return { ok: true, touch: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, error: issue?.message ?? "not a touch" };
}

export type ProxyQuery = { ok: true; shop: string } | { ok: false; error: string };

/**
 * The query Shopify's proxy forwards, read before its signature is checked: one shop, a
 * myshopify.com domain; one timestamp, whole Unix seconds within the window of the app's clock;
 * no control characters anywhere. Whatever fails here Shopify never sends, and the library
 * would answer some of it with a 500 (a shop that is not a shop domain) or not at all.
 */
export function readProxyQuery(url: URL, nowMs: number): ProxyQuery {
  const query = url.searchParams;
  // Shopify sends one shop. The library refuses a repeated shop too; refused here first, with a
  // reason, so the shop a touch is for is never in doubt.
  const shops = query.getAll("shop");
  if (shops.length !== 1) return { ok: false, error: "the query must name exactly one shop" };
  const shop = shops[0]!;
  if (!SHOP_DOMAIN.test(shop)) return { ok: false, error: "shop is not a myshopify.com domain" };
  for (const [name, value] of query) {
    if (CONTROL.test(name) || CONTROL.test(value)) return { ok: false, error: "the query contains control characters" };
  }
  const timestamps = query.getAll("timestamp");
  if (timestamps.length !== 1 || !/^\d{1,12}$/.test(timestamps[0]!))
    return { ok: false, error: "the query must carry one timestamp in Unix seconds" };
  const skewSeconds = Math.abs(nowMs / 1000 - Number(timestamps[0]));
  if (skewSeconds > PROXY_TIMESTAMP_WINDOW_SECONDS)
    return { ok: false, error: `the timestamp is more than ${PROXY_TIMESTAMP_WINDOW_SECONDS} seconds from now` };
  return { ok: true, shop };
}

/**
 * readProxyQuery, then Shopify's signature over the query (`signed`: the library's check,
 * shopify.server's hasAppProxySignature): what every app proxy route accepts before reading a body.
 */
export async function readSignedProxyQuery(
  url: URL,
  nowMs: number,
  signed: (query: URLSearchParams) => Promise<boolean>,
): Promise<ProxyQuery> {
  const query = readProxyQuery(url, nowMs);
  if (!query.ok) return query;
  if (!(await signed(url.searchParams))) return { ok: false, error: "the query is not signed by Shopify's app proxy" };
  return query;
}
