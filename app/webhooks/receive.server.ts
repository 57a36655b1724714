import { WebhookValidationErrorReason } from "@shopify/shopify-api";
import { storableText } from "../database-values";
import { env } from "../env.server";
import { validateWebhook } from "../shopify.server";
import { readCapped } from "./read-capped";
import { refusalFor, type WebhookTopic } from "./topics";

// Every webhook route starts here. It checks what the library's own authenticate.webhook checks
// (POST only, Shopify's HMAC over the raw body), through the library's validator, without its
// session work: that belongs to the worker, and a failing token refresh must never cost an
// order its delivery. And it checks what the HMAC does not cover, since it signs the body
// alone: the topic header must be the route's, the shop a payload names must be the header's,
// and a destructive delivery must be fresh. Bodies are capped before they are read.

export interface VerifiedDelivery {
  shop: string;
  topic: WebhookTopic;
  apiVersion: string;
  webhookId: string;
  /** Shopify's event id: the same across retries of one event (falls back to the webhook id). */
  eventId: string;
  /** The parsed body, undefined when it was not JSON. */
  payload: unknown;
  /** Set when the signature was valid but the body was not JSON: the parser's complaint. */
  notJson?: string;
  /** The start of the raw body: what is kept of a delivery that turns out not to be usable. */
  bodySlice: string;
  /** The whole raw body (capped): ids beyond 2^53 are exact only in its text. */
  rawBody: string;
}

/** How much of a raw body is kept as evidence with a delivery that cannot be used. */
const BODY_SLICE = 2_000;

const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]{0,60}\.myshopify\.com$/;

/** Verifies a delivery for `topic`; anything else is thrown as the Response to answer with. */
export async function receiveWebhook(
  request: Request,
  topic: WebhookTopic,
  now = new Date(),
): Promise<VerifiedDelivery> {
  if (request.method !== "POST") throw new Response(null, { status: 405, headers: { allow: "POST" } });
  const rawBody = await readCapped(request, env().WEBHOOK_MAX_BODY_BYTES);
  if (rawBody === null) throw new Response("body too large", { status: 413 });

  const check = await validateWebhook({ rawBody, rawRequest: request });
  if (!check.valid) {
    const forged = check.reason === WebhookValidationErrorReason.InvalidHmac;
    const empty = check.reason === WebhookValidationErrorReason.MissingBody;
    throw new Response(forged ? null : empty ? "empty body" : "missing webhook headers", {
      status: forged ? 401 : 400,
    });
  }
  const shop = check.domain.toLowerCase();
  if (!SHOP_DOMAIN.test(shop)) throw new Response("not a shop domain", { status: 400 });

  let payload: unknown;
  let notJson: string | undefined;
  try {
    payload = JSON.parse(rawBody);
  } catch (error) {
    notJson = storableText(error instanceof Error ? error.message : String(error));
  }
  const refusal = refusalFor(topic, {
    headerTopic: check.topic,
    shop,
    payload,
    triggeredAt: check.triggeredAt,
    now,
  });
  if (refusal) throw new Response(refusal, { status: 400 });

  return {
    shop,
    topic,
    apiVersion: check.apiVersion,
    webhookId: check.webhookId,
    eventId: check.eventId || check.webhookId,
    payload,
    bodySlice: storableText(rawBody.slice(0, BODY_SLICE)),
    rawBody,
    ...(notJson !== undefined && { notJson }),
  };
}
