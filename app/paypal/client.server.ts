import { z } from "zod";
import { paypalError, paypalExchange, type PaypalWire } from "./wire.server";

// PayPal's REST API as the payout run needs it (v1): an OAuth token by client credentials, a
// payout batch created with the run's sender_batch_id, its details read back, and a webhook's
// signature checked by PayPal's verify-webhook-signature. It knows nothing of the ledger: it
// says what PayPal answered, in a shape the run's steps decide on (app/payouts/run-steps.ts).

export interface PaypalCredentials {
  clientId: string;
  secret: string;
}

export type PaypalFailure =
  /** The token endpoint refused the credentials: nothing else was sent. */
  | { kind: "credentials"; message: string }
  /** PayPal answered and refused the request (a 4xx other than a duplicate or a rate limit). */
  | { kind: "refused"; status: number; name: string; message: string }
  /** The sender_batch_id was used before: the batch exists (its id, when PayPal's links name it). */
  | { kind: "duplicate"; batchId: string | null; message: string }
  | { kind: "throttled"; retryAfterMs: number; message: string }
  /** A 5xx, a timeout or a broken connection; `sent`: the request may have reached PayPal. */
  | { kind: "unavailable"; sent: boolean; message: string };

export type PaypalResult<T> = { ok: true; value: T } | { ok: false; failure: PaypalFailure };

export interface BatchItem {
  senderItemId: string;
  receiver: string;
  /** Decimal text in the currency's minor unit ("12.50"); never a float. */
  value: string;
  currency: string;
  note: string;
}

export interface BatchDetails {
  batchId: string;
  batchStatus: string;
  items: { payoutItemId: string; senderItemId: string; transactionStatus: string }[];
}

export interface WebhookCheck {
  webhookId: string;
  /** PayPal's paypal-* transmission headers, as the delivery carried them. */
  headers: Record<string, string>;
  /** The event exactly as received, parsed. */
  event: unknown;
}

const Created = z.object({
  batch_header: z.object({ payout_batch_id: z.string().min(1).max(100), batch_status: z.string().max(40) }),
});

const Details = z.object({
  batch_header: z.object({ payout_batch_id: z.string().min(1).max(100), batch_status: z.string().max(40) }),
  items: z
    .array(
      z.object({
        payout_item_id: z.string().max(100),
        transaction_status: z.string().max(40),
        payout_item: z.object({ sender_item_id: z.string().max(100).optional() }).passthrough(),
      }),
    )
    .default([]),
});

const Token = z.object({ access_token: z.string().min(1), expires_in: z.number().optional() });

/** A rate limit's wait: Retry-After in seconds, else a minute; never more than an hour. */
function retryAfterMs(header: string | undefined): number {
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, 3_600) * 1_000 : 60_000;
}

export function createPaypalClient(origin: string, credentials: PaypalCredentials, signal?: AbortSignal) {
  const basic = Buffer.from(`${credentials.clientId}:${credentials.secret}`).toString("base64");
  const secrets = [credentials.secret, basic];
  let token: string | null = null;

  const failed = (wire: PaypalWire, what: string): PaypalFailure => {
    if (wire.kind === "response") {
      const { name, message } = paypalError(wire.json, secrets);
      if (wire.status === 429) return { kind: "throttled", retryAfterMs: retryAfterMs(wire.retryAfter), message: name };
      if (wire.status >= 500)
        return { kind: "unavailable", sent: true, message: `PayPal answered ${wire.status} to ${what}` };
      return {
        kind: "refused",
        status: wire.status,
        name,
        message: `${name || wire.status}: ${message}`.slice(0, 400),
      };
    }
    const sent = (wire.kind === "timeout" || wire.kind === "connection") && wire.sent;
    return { kind: "unavailable", sent, message: `${what}: ${wire.detail}` };
  };

  async function bearer(): Promise<PaypalResult<string>> {
    if (token) return { ok: true, value: token };
    const wire = await paypalExchange(
      origin,
      {
        method: "POST",
        path: "/v1/oauth2/token",
        headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials",
        signal,
      },
      secrets,
    );
    if (wire.kind === "response" && wire.status === 401)
      return { ok: false, failure: { kind: "credentials", message: "PayPal refused the client id and secret" } };
    // A token request that failed sent no payment: whatever happened, it is safe to ask again.
    if (wire.kind !== "response" || wire.status !== 200) {
      const failure = failed(wire, "the token request");
      return { ok: false, failure: failure.kind === "unavailable" ? { ...failure, sent: false } : failure };
    }
    const parsed = Token.safeParse(wire.json);
    if (!parsed.success)
      return {
        ok: false,
        failure: { kind: "unavailable", sent: false, message: "PayPal's token answer was unreadable" },
      };
    token = parsed.data.access_token;
    secrets.push(token);
    return { ok: true, value: token };
  }

  async function call(method: "GET" | "POST", path: string, body?: unknown, extra: Record<string, string> = {}) {
    const auth = await bearer();
    if (!auth.ok) return auth;
    const wire = await paypalExchange(
      origin,
      {
        method,
        path,
        headers: {
          authorization: `Bearer ${auth.value}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...extra,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      },
      secrets,
    );
    return { ok: true as const, value: wire };
  }

  return {
    /** POST /v1/payments/payouts: one batch, asynchronous, its sender_batch_id the idempotency key. */
    async createBatch(senderBatchId: string, subject: string, items: BatchItem[]): Promise<PaypalResult<BatchDetails>> {
      const sent = await call(
        "POST",
        "/v1/payments/payouts",
        {
          sender_batch_header: { sender_batch_id: senderBatchId, email_subject: subject, recipient_type: "EMAIL" },
          items: items.map((item) => ({
            recipient_type: "EMAIL",
            amount: { value: item.value, currency: item.currency },
            receiver: item.receiver,
            note: item.note,
            sender_item_id: item.senderItemId,
          })),
        },
        { "paypal-request-id": senderBatchId },
      );
      if (!sent.ok) return sent;
      const wire = sent.value;
      if (wire.kind === "response" && (wire.status === 201 || wire.status === 200)) {
        const parsed = Created.safeParse(wire.json);
        // Accepted, but the answer cannot be read: as good as lost; asking again finds the batch.
        if (!parsed.success)
          return { ok: false, failure: { kind: "unavailable", sent: true, message: "PayPal's answer was unreadable" } };
        const header = parsed.data.batch_header;
        return { ok: true, value: { batchId: header.payout_batch_id, batchStatus: header.batch_status, items: [] } };
      }
      if (wire.kind === "response" && wire.status === 400 && isDuplicate(wire.json))
        return {
          ok: false,
          failure: { kind: "duplicate", batchId: linkedBatch(wire.json), message: "the batch was created before" },
        };
      return { ok: false, failure: failed(wire, "the payout request") };
    },

    /** GET /v1/payments/payouts/{id}: the batch and its items (a run has at most 1,000). */
    async batchDetails(batchId: string): Promise<PaypalResult<BatchDetails>> {
      const sent = await call("GET", `/v1/payments/payouts/${encodeURIComponent(batchId)}?page=1&page_size=1000`);
      if (!sent.ok) return sent;
      const wire = sent.value;
      if (wire.kind !== "response" || wire.status !== 200)
        return { ok: false, failure: failed(wire, "the batch's details") };
      const parsed = Details.safeParse(wire.json);
      if (!parsed.success)
        return {
          ok: false,
          failure: { kind: "unavailable", sent: false, message: "PayPal's batch details were unreadable" },
        };
      return {
        ok: true,
        value: {
          batchId: parsed.data.batch_header.payout_batch_id,
          batchStatus: parsed.data.batch_header.batch_status,
          items: parsed.data.items.map((item) => ({
            payoutItemId: item.payout_item_id,
            senderItemId: item.payout_item.sender_item_id ?? "",
            transactionStatus: item.transaction_status,
          })),
        },
      };
    },

    /** POST /v1/notifications/verify-webhook-signature: whether PayPal signed this delivery. */
    async verifyWebhook(check: WebhookCheck): Promise<PaypalResult<boolean>> {
      const h = (name: string) => check.headers[name] ?? "";
      const sent = await call("POST", "/v1/notifications/verify-webhook-signature", {
        auth_algo: h("paypal-auth-algo"),
        cert_url: h("paypal-cert-url"),
        transmission_id: h("paypal-transmission-id"),
        transmission_sig: h("paypal-transmission-sig"),
        transmission_time: h("paypal-transmission-time"),
        webhook_id: check.webhookId,
        webhook_event: check.event,
      });
      if (!sent.ok) return sent;
      const wire = sent.value;
      if (wire.kind !== "response" || wire.status !== 200)
        return { ok: false, failure: failed(wire, "the signature check") };
      const status = (wire.json as { verification_status?: unknown } | null)?.verification_status;
      return { ok: true, value: status === "SUCCESS" };
    },
  };
}

export type PaypalClient = ReturnType<typeof createPaypalClient>;

/** PayPal's refusal of a sender_batch_id used before: USER_BUSINESS_ERROR naming the batch id. */
function isDuplicate(json: unknown): boolean {
  const body = (json ?? {}) as { name?: unknown; details?: unknown };
  if (body.name !== "USER_BUSINESS_ERROR" || !Array.isArray(body.details)) return false;
  return body.details.some(
    (detail: { field?: unknown; issue?: unknown }) =>
      String(detail.field ?? "").toUpperCase() === "SENDER_BATCH_ID" && /duplicate|already/i.test(String(detail.issue)),
  );
}

/** The original batch's id, from the HATEOAS link PayPal puts on a duplicate's refusal. */
function linkedBatch(json: unknown): string | null {
  const links = (json as { links?: unknown } | null)?.links;
  if (!Array.isArray(links)) return null;
  for (const link of links as { href?: unknown }[]) {
    const match =
      typeof link.href === "string"
        ? /\/v1\/payments\/payouts\/([A-Za-z0-9_-]{1,100})(?:[?#]|$)/.exec(link.href)
        : null;
    if (match) return match[1]!;
  }
  return null;
}
