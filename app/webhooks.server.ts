import { authenticate } from "./shopify.server";

export interface VerifiedDelivery {
  shop: string;
  topic: string;
  apiVersion: string;
  webhookId: string;
  /** Shopify's event id: the same across retries of one event (falls back to the webhook id). */
  eventId: string;
  payload: unknown;
  /** Set when the signature was valid but the body was not JSON. */
  unreadable?: string;
}

/**
 * HMAC-verifies a webhook with the library (forged -> 401, unsigned -> 400, thrown as
 * Responses). A correctly signed body that is not JSON makes the library's own parse throw;
 * since the signature already passed, we hand it back as an unreadable delivery to record
 * rather than answer 500 and have Shopify retry something that can never succeed.
 */
export async function receiveWebhook(request: Request): Promise<VerifiedDelivery> {
  const copy = request.clone();
  try {
    const context = await authenticate.webhook(request);
    return {
      shop: context.shop,
      topic: String(context.topic),
      apiVersion: context.apiVersion,
      webhookId: context.webhookId,
      eventId: context.eventId || context.webhookId,
      payload: context.payload,
    };
  } catch (error) {
    if (error instanceof Response || !(error instanceof SyntaxError)) throw error;
    const header = (name: string) => copy.headers.get(name) ?? "";
    const webhookId = header("x-shopify-webhook-id");
    return {
      shop: header("x-shopify-shop-domain"),
      topic: header("x-shopify-topic"),
      apiVersion: header("x-shopify-api-version"),
      webhookId,
      eventId: header("x-shopify-event-id") || webhookId,
      payload: undefined,
      unreadable: `${error.message}: ${(await copy.text()).slice(0, 2_000)}`,
    };
  }
}
