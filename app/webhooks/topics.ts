// The webhook topics the app subscribes to (shopify.app.toml), and what the HMAC cannot vouch
// for. Shopify signs the body only, so a captured, correctly signed body could be replayed to
// another route, under another shop's header, or long after the event.

export const WEBHOOK_TOPICS = [
  "orders/create",
  "orders/cancelled",
  "orders/edited",
  "refunds/create",
  "app/uninstalled",
  "app/scopes_update",
  "customers/data_request",
  "customers/redact",
  "shop/redact",
] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];

/** Where a topic's payload names its shop, for the topics whose payload does. */
const SHOP_FIELDS: Partial<Record<WebhookTopic, readonly string[]>> = {
  "shop/redact": ["shop_domain"],
  "customers/redact": ["shop_domain"],
  "customers/data_request": ["shop_domain"],
  "app/uninstalled": ["myshopify_domain", "domain"],
};

/** Topics that delete or end something: they must also be fresh. */
const DESTRUCTIVE = new Set<WebhookTopic>(["shop/redact", "customers/redact", "app/uninstalled"]);

/** Shopify documents that a delivery can be retried for up to a day after its event. */
export const MAX_DESTRUCTIVE_AGE_MS = 24 * 60 * 60 * 1000;
/** Clock skew allowed the other way. */
const MAX_FUTURE_SKEW_MS = 5 * 60 * 1000;

/** The library's spelling of a topic in its validation result ("orders/create" -> "ORDERS_CREATE"). */
export function headerTopicOf(topic: string): string {
  return topic.toUpperCase().replace(/[/.]/g, "_");
}

export interface DeliveryClaims {
  /** X-Shopify-Topic, as the library reports it. */
  headerTopic: string;
  /** X-Shopify-Shop-Domain, lowercased. */
  shop: string;
  payload: unknown;
  /** X-Shopify-Triggered-At, when present. */
  triggeredAt: string | undefined;
  now: Date;
}

/** Why a correctly signed delivery is still refused, or null when it stands. */
export function refusalFor(topic: WebhookTopic, claims: DeliveryClaims): string | null {
  if (claims.headerTopic !== headerTopicOf(topic)) return `the topic header does not match this route (${topic})`;
  const fields = SHOP_FIELDS[topic];
  if (fields) {
    const named = payloadShop(claims.payload, fields);
    if (named === null) return `the payload does not name its shop (${fields.join(" or ")})`;
    if (named !== claims.shop) return "the payload's shop is not the shop in the header";
  }
  if (DESTRUCTIVE.has(topic)) {
    const at = claims.triggeredAt ? Date.parse(claims.triggeredAt) : Number.NaN;
    if (Number.isNaN(at)) return "X-Shopify-Triggered-At is missing or unreadable";
    const age = claims.now.getTime() - at;
    if (age > MAX_DESTRUCTIVE_AGE_MS) return "the delivery is more than a day old";
    if (age < -MAX_FUTURE_SKEW_MS) return "the delivery is dated in the future";
  }
  return null;
}

function payloadShop(payload: unknown, fields: readonly string[]): string | null {
  if (!payload || typeof payload !== "object") return null;
  const record = payload as Record<string, unknown>;
  for (const field of fields) {
    const value = record[field];
    if (typeof value === "string" && value.endsWith(".myshopify.com")) return value.toLowerCase();
  }
  return null;
}
