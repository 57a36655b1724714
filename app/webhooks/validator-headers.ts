import { WEBHOOK_HEADER_NAMES, WebhookType, type WebhookTypeValue } from "@shopify/shopify-api";

// The library's webhook validator canonicalises the name of every header it is given at each of
// its dozen lookups: with the seven headers an orders/create delivery carries, about a quarter
// of intake's CPU (docs/lab/throughput-notes.md, "A drain that stopped early, and sessions
// without the ORM"). So it is given only the headers it requires for the kind of delivery,
// told apart as it tells them (Shopify-* for events, X-Shopify-* for webhooks), and the app
// reads the optional ones it uses (the event id, when the event was triggered) itself. None of
// them is signed either way: the HMAC covers the body alone.

/** A request's header by name, whatever its case; null when absent. */
export type HeaderOf = (name: string) => string | null;

type HeaderKey = "hmac" | "topic" | "domain" | "apiVersion" | "webhookId" | "eventId" | "triggeredAt";

/** What the validator refuses a delivery without (validate.mjs, checkWebhooksHeaders and checkEventsHeaders). */
const REQUIRED: Record<WebhookTypeValue, readonly HeaderKey[]> = {
  [WebhookType.Webhooks]: ["hmac", "topic", "domain", "apiVersion", "webhookId"],
  [WebhookType.Events]: ["hmac", "topic", "domain", "apiVersion", "webhookId"],
};

/** The header's name for this kind of delivery; events have no event id of their own (their webhook id is the key). */
function nameOf(kind: WebhookTypeValue, key: HeaderKey): string | undefined {
  return (WEBHOOK_HEADER_NAMES[kind] as Partial<Record<HeaderKey, string>>)[key];
}

function optional(header: HeaderOf, kind: WebhookTypeValue, key: HeaderKey): string | null {
  const name = nameOf(kind, key);
  return name === undefined ? null : header(name);
}

/** The kind of delivery, as the library tells it: an events HMAC header makes it an event. */
function deliveryKind(header: HeaderOf): WebhookTypeValue {
  return optional(header, WebhookType.Events, "hmac") !== null ? WebhookType.Events : WebhookType.Webhooks;
}

/** The headers the validator is given. Throws TypeError on a value the Fetch standard refuses. */
export function validatorHeaders(header: HeaderOf): Headers {
  const kind = deliveryKind(header);
  const headers = new Headers();
  for (const key of REQUIRED[kind]) {
    const value = optional(header, kind, key);
    if (value !== null) headers.set(nameOf(kind, key)!, value);
  }
  return headers;
}

/** The optional headers the app reads, by the kind the validator found. */
export function optionalHeaders(
  header: HeaderOf,
  kind: WebhookTypeValue,
): { eventId: string | null; triggeredAt: string | null } {
  return { eventId: optional(header, kind, "eventId"), triggeredAt: optional(header, kind, "triggeredAt") };
}
