// Shopify webhook delivery helpers: the HMAC and the headers Shopify sends with every delivery.
import { createHmac, randomUUID } from "node:crypto";

/** X-Shopify-Hmac-Sha256: base64 HMAC-SHA256 of the raw body with the app's client secret. */
export function signWebhook(body: string | Buffer, secret: string): string {
  return createHmac("sha256", secret).update(body).digest("base64");
}

export interface WebhookHeaderOptions {
  topic: string; // e.g. "orders/create"
  shop: string; // e.g. "demo.myshopify.com"
  apiVersion: string; // e.g. "2026-10"
  body: string | Buffer; // the exact bytes that will be sent
  secret: string;
  webhookId?: string;
  eventId?: string;
  triggeredAt?: string | Date;
}

export function webhookHeaders(options: WebhookHeaderOptions): Record<string, string> {
  const triggeredAt =
    options.triggeredAt instanceof Date
      ? options.triggeredAt.toISOString()
      : (options.triggeredAt ?? new Date().toISOString());
  return {
    "Content-Type": "application/json",
    "X-Shopify-Topic": options.topic,
    "X-Shopify-Hmac-Sha256": signWebhook(options.body, options.secret),
    "X-Shopify-Shop-Domain": options.shop,
    "X-Shopify-API-Version": options.apiVersion,
    "X-Shopify-Webhook-Id": options.webhookId ?? randomUUID(),
    "X-Shopify-Event-Id": options.eventId ?? randomUUID(),
    "X-Shopify-Triggered-At": triggeredAt,
  };
}
