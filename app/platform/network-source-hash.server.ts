import { createHmac } from "node:crypto";
import { env } from "./env.server";
import { shopperSource, sourceOf } from "./network-source";

// The shopper's network source as the app keeps it (docs/privacy.md, decision 047): the address
// Shopify's proxy vouches for (an IPv6 address by its /64) and the user agent, as an HMAC under a
// key of the app's own, with the shop in the message. So the same shopper is another value in
// another shop, nobody without the app's secret can test an address against it, and the address
// itself is never written anywhere. What it is for: linking a journey whose cart or visitor
// changed (a browser the attacker reset) to what the same browser did minutes before.

/** What the key is derived for: a new purpose never reuses it. */
const PURPOSE = "tag-guard network source v1";

let derived: { secret: string; key: Buffer } | null = null;

function key(): Buffer {
  const secret = env().SHOPIFY_API_SECRET;
  if (derived?.secret !== secret) derived = { secret, key: createHmac("sha256", secret).update(PURPOSE).digest() };
  return derived.key;
}

/** The keyed hash of a source (sourceOf's form) and user agent in a shop; null when no address is known. */
export function networkSourceHash(shop: string, source: string | null, userAgent: string | null): string | null {
  if (source === null) return null;
  return createHmac("sha256", key())
    .update(`${shop}\n${source}\n${(userAgent ?? "").slice(0, 512)}`)
    .digest("base64url")
    .slice(0, 32);
}

/** The network source of an app proxy call: the address Shopify's proxy appended, and the user agent. */
export function proxyCallSource(shop: string, headers: Headers): string | null {
  return networkSourceHash(
    shop,
    shopperSource(headers.get("x-forwarded-for"), env().TRUSTED_PROXY_HOPS),
    headers.get("user-agent"),
  );
}

/** The network source Shopify recorded for an order (browser_ip, client_details.user_agent). */
export function orderSource(shop: string, browserIp: string | null, userAgent: string | null): string | null {
  return browserIp ? networkSourceHash(shop, sourceOf(browserIp), userAgent) : null;
}
