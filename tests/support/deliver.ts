import { apiVersion } from "../../app/shopify-admin/api-version";
import { webhookHeaders } from "../../sandbox/shopify";

export const TEST_SECRET = "test-api-secret";
/** What Shopify puts in a delivery's version header: the version the app subscribes with. */
export const API_VERSION: string = apiVersion;

export interface Delivery {
  topic: string;
  shop: string;
  body: unknown;
  eventId?: string;
  webhookId?: string;
  secret?: string;
  /** Replaces the signature header (or removes it with null). */
  hmac?: string | null;
  triggeredAt?: Date | string;
  /** Headers set over Shopify's (a replayed body under another topic, say). */
  headers?: Record<string, string>;
}

/** POSTs a webhook the way Shopify does: exact body bytes, HMAC over them, Shopify's headers. */
export async function deliver(baseUrl: string, path: string, delivery: Delivery): Promise<Response> {
  const body = typeof delivery.body === "string" ? delivery.body : JSON.stringify(delivery.body);
  const headers = webhookHeaders({
    topic: delivery.topic,
    shop: delivery.shop,
    apiVersion: API_VERSION,
    body,
    secret: delivery.secret ?? TEST_SECRET,
    eventId: delivery.eventId,
    webhookId: delivery.webhookId,
    triggeredAt: delivery.triggeredAt,
  });
  Object.assign(headers, delivery.headers);
  if (delivery.hmac === null) delete headers["X-Shopify-Hmac-Sha256"];
  else if (delivery.hmac !== undefined) headers["X-Shopify-Hmac-Sha256"] = delivery.hmac;
  return fetch(`${baseUrl}${path}`, { method: "POST", headers, body });
}
