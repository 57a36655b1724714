import type { AppLoadContext } from "@remix-run/node";
import { WebhookValidationErrorReason } from "@shopify/shopify-api";
import { storableText } from "../database/storable";
import { measureWebhookBodyBytesHeld } from "../metrics/registry.server";
import { env } from "../platform/env.server";
import { peerSource } from "../platform/network-source";
import { BodyBudget, BodyBudgetExhausted, SOURCE_SHARE, type BodyHold } from "./body-budget";
import { BodyTimedOut, readCapped } from "./read-capped";
import { refusalFor, type WebhookTopic } from "./topics";
import { validateWebhook } from "./validate.server";
import { optionalHeaders, validatorHeaders, type HeaderOf } from "./validator-headers";

// Every webhook route starts here. It checks what the library's own authenticate.webhook checks
// (POST only, Shopify's HMAC over the raw body), through the library's validator, without its
// session work: that belongs to the worker, and a failing token refresh must never cost an
// order its delivery. And it checks what the HMAC does not cover, since it signs the body
// alone: the topic header must be the route's, the shop a payload names must be the header's,
// and a destructive delivery must be fresh. Bodies are capped before they are read, each on its
// own and all of them together until their signatures are checked, their bytes counted as they
// arrive, each source to its share, and each body given a few seconds to arrive (body-budget.ts).

export interface VerifiedDelivery {
  shop: string;
  topic: WebhookTopic;
  apiVersion: string;
  webhookId: string;
  /** Shopify's event id: the same across retries of one event (falls back to the webhook id). */
  eventId: string;
  /** X-Shopify-Triggered-At: when the event happened (the same across retries), if readable. */
  triggeredAt: Date | null;
  /** The parsed body, undefined when it was not JSON. */
  payload: unknown;
  /** Set when the signature was valid but the body was not JSON: the parser's complaint. */
  notJson?: string;
  /** The start of the raw body: what is kept of a delivery that turns out not to be usable. */
  bodySlice: string;
  /** The whole raw body (capped): ids beyond 2^53 are exact only in its text. */
  rawBody: string;
  /** Set when no webhook brought it: the reconciliation sweep read it from the Admin API. */
  source?: "reconciled";
}

/** How much of a raw body is kept as evidence with a delivery that cannot be used. */
const BODY_SLICE = 2_000;

const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]{0,60}\.myshopify\.com$/;

/** Why a delivery is refused: the status and text to answer it with. */
export class WebhookRefusal {
  constructor(
    readonly status: number,
    readonly text: string | null = null,
    readonly headers: Record<string, string> = {},
    /** Refused before its body was read whole (too large, no room in the budget, too slow). */
    readonly bodyUnread = false,
  ) {}

  /** A refusal sent before the body is read: the connection cannot carry another request. */
  static unread(status: number, text: string, headers: Record<string, string> = {}): WebhookRefusal {
    return new WebhookRefusal(status, text, headers, true);
  }
}

/**
 * A delivery as any HTTP server hands it over: Remix's Fetch Request (receiveWebhook) or
 * Node's own request (node-lane.server.ts), so both answer through the same checks.
 */
export interface IncomingDelivery {
  method: string;
  url: string;
  header: HeaderOf;
  /** Who sends it, as the budget counts it: its connection's peer (sourceOf, app/platform/network-source.ts). */
  source: string;
  /**
   * The body as text, or null when it is longer than `maxBytes` (then none of it is kept); its
   * bytes are held in `hold` as they arrive (BodyBudgetExhausted when they do not fit), and it
   * must arrive whole within the hold's deadline (BodyTimedOut).
   */
  readBody(maxBytes: number, hold: BodyHold): Promise<string | null>;
}

let bodyBudget: BodyBudget | undefined;

/**
 * The process's budget of webhook body bytes not yet vouched for by a signature: a source may
 * hold a quarter of it, or one body at the cap if that is more.
 */
export function webhookBodyBudget(): BodyBudget {
  if (!bodyBudget) {
    bodyBudget = newWebhookBodyBudget();
    measureWebhookBodyBytesHeld(() => bodyBudget?.held ?? 0);
  }
  return bodyBudget;
}

/**
 * A budget on the app's settings (WEBHOOK_BODY_BYTES_IN_FLIGHT, WEBHOOK_MAX_BODY_BYTES,
 * WEBHOOK_BODY_DEADLINE_MS), or on `deadlineMs` when given one.
 */
export function newWebhookBodyBudget(deadlineMs?: number): BodyBudget {
  const settings = env();
  const { WEBHOOK_BODY_BYTES_IN_FLIGHT: capacity, WEBHOOK_MAX_BODY_BYTES: maxBody } = settings;
  const deadline = deadlineMs ?? settings.WEBHOOK_BODY_DEADLINE_MS;
  return new BodyBudget(capacity, {
    sourceShare: Math.max(maxBody, Math.floor(capacity * SOURCE_SHARE)),
    ...(deadline !== undefined && { deadlineMs: deadline }),
  });
}

/**
 * Makes `budget` the process's budget from now on (tests: other limits, a shorter deadline)
 * and returns the one it replaces. Holds already open stay in the budget they came from.
 */
export function replaceWebhookBodyBudget(budget: BodyBudget): BodyBudget {
  const before = webhookBodyBudget();
  bodyBudget = budget;
  return before;
}

/**
 * Verifies a delivery for `topic`, in Remix: a refusal is thrown as the Response to answer with.
 * Its body counts against its connection's peer, from the route's load context (peerSource), as
 * an intake lane counts it: a peer stalling bodies on one route holds its own share and no other's.
 */
export async function receiveWebhook(
  request: Request,
  topic: WebhookTopic,
  context: AppLoadContext,
  now = new Date(),
): Promise<VerifiedDelivery> {
  const incoming: IncomingDelivery = {
    method: request.method,
    url: request.url,
    header: (name) => request.headers.get(name),
    source: peerSource(context),
    readBody: (maxBytes, hold) => readCapped(request, maxBytes, hold),
  };
  try {
    return await verifyDelivery(incoming, topic, now);
  } catch (error) {
    if (!(error instanceof WebhookRefusal)) throw error;
    // A body refused unread is left unread (cancelling it would destroy the socket before the
    // answer is written): the connection ends with the answer.
    const headers = error.bodyUnread ? { ...error.headers, connection: "close" } : error.headers;
    throw new Response(error.text, { status: error.status, headers });
  }
}

/** The body and the library's check of its signature, with the body's bytes held in the budget meanwhile. */
async function readSigned(incoming: IncomingDelivery) {
  const hold = webhookBodyBudget().hold(incoming.source);
  try {
    const rawBody = await incoming.readBody(env().WEBHOOK_MAX_BODY_BYTES, hold).catch((error: unknown) => {
      // Shopify delivers it again (with backoff), by when bodies in flight have been read.
      if (error instanceof BodyBudgetExhausted)
        throw WebhookRefusal.unread(429, "too many webhook bodies are being read at once; deliver again shortly", {
          "retry-after": "1",
        });
      // Shopify sends a body at once: one still arriving is not Shopify's, or Shopify has given up on it.
      if (error instanceof BodyTimedOut)
        throw WebhookRefusal.unread(408, `the body did not arrive within ${error.deadlineMs / 1000} s`);
      throw error;
    });
    if (rawBody === null) throw WebhookRefusal.unread(413, "body too large");
    let headers: Headers;
    try {
      headers = validatorHeaders(incoming.header);
    } catch {
      // Node's parser lets through a few bytes the Fetch standard refuses in a header.
      throw new WebhookRefusal(400, "malformed headers");
    }
    const check = await validateWebhook({
      rawBody,
      rawRequest: { method: incoming.method, url: incoming.url, headers },
    });
    if (!check.valid) {
      const forged = check.reason === WebhookValidationErrorReason.InvalidHmac;
      const empty = check.reason === WebhookValidationErrorReason.MissingBody;
      throw new WebhookRefusal(forged ? 401 : 400, forged ? null : empty ? "empty body" : "missing webhook headers");
    }
    return { rawBody, check };
  } finally {
    hold.release();
  }
}

/** Verifies a delivery for `topic`; a WebhookRefusal is thrown for anything else. */
export async function verifyDelivery(
  incoming: IncomingDelivery,
  topic: WebhookTopic,
  now = new Date(),
): Promise<VerifiedDelivery> {
  if (incoming.method !== "POST") throw new WebhookRefusal(405, null, { allow: "POST" });
  const { rawBody, check } = await readSigned(incoming);
  const shop = check.domain.toLowerCase();
  if (!SHOP_DOMAIN.test(shop)) throw new WebhookRefusal(400, "not a shop domain");
  const optional = optionalHeaders(incoming.header, check.webhookType);

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
    triggeredAt: optional.triggeredAt ?? undefined,
    now,
  });
  if (refusal) throw new WebhookRefusal(400, refusal);

  return {
    shop,
    topic,
    apiVersion: check.apiVersion,
    webhookId: check.webhookId,
    eventId: optional.eventId || check.webhookId,
    triggeredAt: readTime(optional.triggeredAt),
    payload,
    bodySlice: storableText(rawBody.slice(0, BODY_SLICE)),
    rawBody,
    ...(notJson !== undefined && { notJson }),
  };
}

function readTime(text: string | null): Date | null {
  const at = text ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? null : new Date(at);
}
