// A PayPal REST stand-in (Payouts v1) for development and tests, as strict as the Shopify one:
// OAuth client credentials, batches refused on a reused sender_batch_id, body validation, a
// rate limit, signed webhooks PayPal's verify-webhook-signature checks, and a fault plan.
// Documented in docs/paypal-standin.md. Plain node:http, in memory, lost on close().
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { listen } from "../listen";
import { readBody, send } from "../shopify/http";
import { ITEM_EVENTS, PaypalLedger, type ItemStatus, type StandinBatch } from "./ledger";
import { validatePayout } from "./validate";

export interface PaypalFaults {
  /** The next n payout requests answer 500 and create nothing. */
  serverErrors?: number;
  /** The next n payout requests create the batch, then the connection is cut before the answer. */
  dropAfterAccept?: number;
  /** Every webhook is delivered twice. */
  duplicateWebhooks?: boolean;
  /** Each advance's webhooks are delivered newest first. */
  reorderWebhooks?: boolean;
}

export interface PaypalRequest {
  method: string;
  path: string;
  /** The Authorization header as received (tests check which credentials reached which origin). */
  authorization: string;
  body: string;
}

export interface PaypalStandinOptions {
  port?: number;
  /** Requests a client may make per window before 429 RATE_LIMIT_REACHED. */
  rateLimit?: { limit: number; windowMs: number };
  clock?: () => number;
}

function paypalError(
  res: ServerResponse,
  status: number,
  name: string,
  message: string,
  extra: object = {},
  headers: Record<string, string> = {},
) {
  const link = "https://developer.paypal.com/docs/api/payments.payouts-batch/#errors";
  send(res, status, { name, message, debug_id: randomUUID().slice(0, 13), information_link: link, ...extra }, headers);
}

/** A payout item as PayPal describes it, in a batch's details and as a webhook's resource. */
function itemBody(batch: StandinBatch, item: StandinBatch["items"][number], status: ItemStatus) {
  return {
    payout_item_id: item.payoutItemId,
    transaction_status: status,
    payout_batch_id: batch.batchId,
    payout_item: {
      recipient_type: "EMAIL",
      amount: { value: item.value, currency: item.currency },
      receiver: item.receiver,
      sender_item_id: item.senderItemId,
    },
  };
}

function batchBody(origin: string, batch: StandinBatch, withItems: boolean) {
  const total = batch.items.reduce((sum, item) => sum + Number(item.value), 0);
  return {
    batch_header: {
      payout_batch_id: batch.batchId,
      batch_status: batch.status,
      time_created: batch.createdAt,
      sender_batch_header: { sender_batch_id: batch.senderBatchId },
      ...(withItems && { amount: { value: total.toFixed(2), currency: batch.items[0]?.currency ?? "USD" } }),
    },
    ...(withItems && { items: batch.items.map((item) => itemBody(batch, item, item.status)) }),
    links: [{ href: `${origin}/v1/payments/payouts/${batch.batchId}`, rel: "self", method: "GET" }],
  };
}

export async function startPaypalStandin(options: PaypalStandinOptions = {}) {
  const clock = options.clock ?? Date.now;
  const ledger = new PaypalLedger();
  const requests: PaypalRequest[] = [];
  const faults: Required<PaypalFaults> = {
    serverErrors: 0,
    dropAfterAccept: 0,
    duplicateWebhooks: false,
    reorderWebhooks: false,
  };
  /** What the fault plan did, by kind: for a chaos run's report. */
  const injected = {
    "paypal-5xx": 0,
    "paypal-answer-lost": 0,
    "paypal-webhook-repeated": 0,
    "paypal-webhooks-reordered": 0,
  };
  const windows = new Map<string, { start: number; count: number }>();
  let origin = "";

  const limited = (key: string): number => {
    if (!options.rateLimit) return 0;
    const now = clock();
    const window = windows.get(key);
    if (!window || now - window.start >= options.rateLimit.windowMs) {
      windows.set(key, { start: now, count: 1 });
      return 0;
    }
    window.count += 1;
    return window.count > options.rateLimit.limit
      ? Math.ceil((window.start + options.rateLimit.windowMs - now) / 1000)
      : 0;
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", origin);
    const body = (await readBody(req)).toString("utf8");
    const authorization = req.headers.authorization ?? "";
    requests.push({ method: req.method ?? "", path: url.pathname + url.search, authorization, body });
    if (req.method === "POST" && url.pathname === "/v1/oauth2/token") {
      const [clientId, secret] = Buffer.from(authorization.replace(/^Basic /, ""), "base64")
        .toString()
        .split(":");
      if (!clientId || ledger.clients.get(clientId) !== secret)
        return send(res, 401, { error: "invalid_client", error_description: "Client Authentication failed" });
      if (new URLSearchParams(body).get("grant_type") !== "client_credentials")
        return send(res, 400, { error: "unsupported_grant_type", error_description: "Grant Type is NULL" });
      const { token, expiresIn } = ledger.issueToken(clientId, clock());
      return send(res, 200, {
        scope: "https://uri.paypal.com/payments/payouts",
        access_token: token,
        token_type: "Bearer",
        app_id: "APP-STANDIN",
        expires_in: expiresIn,
        nonce: randomUUID(),
      });
    }
    const clientId = ledger.bearer(authorization, clock());
    if (!clientId)
      return send(res, 401, { error: "invalid_token", error_description: "Token signature verification failed" });
    const wait = limited(clientId);
    if (wait > 0)
      return paypalError(
        res,
        429,
        "RATE_LIMIT_REACHED",
        "Too many requests. Blocked due to rate limiting.",
        {},
        {
          "retry-after": String(wait),
        },
      );
    if (req.method === "POST" && url.pathname === "/v1/payments/payouts") return createPayout(res, clientId, url, body);
    const batchPath = /^\/v1\/payments\/payouts\/([A-Z0-9]{1,30})$/.exec(url.pathname);
    if (req.method === "GET" && batchPath) {
      const batch = ledger.batches.get(batchPath[1]!);
      if (!batch || batch.clientId !== clientId)
        return paypalError(res, 404, "INVALID_RESOURCE_ID", "Requested resource ID was not found.");
      return send(res, 200, batchBody(origin, batch, true));
    }
    if (req.method === "POST" && url.pathname === "/v1/notifications/verify-webhook-signature")
      return verify(res, clientId, body);
    return paypalError(res, 404, "NOT_FOUND", "The specified resource does not exist.");
  }

  function createPayout(res: ServerResponse, clientId: string, url: URL, body: string) {
    if (url.searchParams.get("sync_mode") === "true")
      return paypalError(
        res,
        403,
        "SYNC_MODE_NOT_APPLICABLE",
        "Synchronous mode is not available; send the batch asynchronously.",
      );
    const checked = validatePayout(body);
    if (!checked.ok)
      return paypalError(res, 400, "VALIDATION_ERROR", "Invalid request - see details", { details: checked.details });
    const earlier = ledger.batchBySender(clientId, checked.senderBatchId);
    if (earlier)
      return paypalError(res, 400, "USER_BUSINESS_ERROR", "User business error.", {
        details: [
          { field: "SENDER_BATCH_ID", location: "body", issue: "Batch with given sender_batch_id already exists" },
        ],
        links: [{ href: `${origin}/v1/payments/payouts/${earlier.batchId}`, rel: "self", method: "GET" }],
      });
    if (faults.serverErrors > 0) {
      faults.serverErrors -= 1;
      injected["paypal-5xx"] += 1;
      return paypalError(res, 500, "INTERNAL_SERVER_ERROR", "An internal server error occurred.");
    }
    const batch = ledger.createBatch(clientId, checked.senderBatchId, checked.items, clock(), checked.emailSubject);
    if (faults.dropAfterAccept > 0) {
      faults.dropAfterAccept -= 1;
      injected["paypal-answer-lost"] += 1;
      return void res.socket?.destroy();
    }
    send(res, 201, batchBody(origin, batch, false));
  }

  function verify(res: ServerResponse, clientId: string, body: string) {
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return paypalError(
        res,
        400,
        "INVALID_REQUEST",
        "Request is not well-formed, syntactically incorrect, or violates schema.",
      );
    }
    const webhook = ledger.webhooks.get(String(input.webhook_id));
    const expected =
      webhook && webhook.clientId === clientId
        ? ledger.sign(
            String(input.transmission_id),
            String(input.transmission_time),
            String(input.webhook_id),
            JSON.stringify(input.webhook_event),
          )
        : null;
    const ok = expected !== null && input.auth_algo === "SHA256withRSA" && input.transmission_sig === expected;
    send(res, 200, { verification_status: ok ? "SUCCESS" : "FAILURE" });
  }

  /** Sends each event to every webhook of the batch's client, signed; as the fault plan says. */
  async function deliver(batch: StandinBatch, events: object[]) {
    const ordered = faults.reorderWebhooks ? [...events].reverse() : events;
    if (faults.reorderWebhooks && events.length > 1) injected["paypal-webhooks-reordered"] += 1;
    for (const event of ordered)
      for (const [webhookId, hook] of ledger.webhooks) {
        if (hook.clientId !== batch.clientId) continue;
        const text = JSON.stringify(event);
        const transmissionId = randomUUID();
        const time = new Date(clock()).toISOString();
        const headers = {
          "content-type": "application/json",
          "paypal-auth-algo": "SHA256withRSA",
          "paypal-cert-url": `${origin}/v1/notifications/certs/CERT-STANDIN`,
          "paypal-transmission-id": transmissionId,
          "paypal-transmission-time": time,
          "paypal-transmission-sig": ledger.sign(transmissionId, time, webhookId, text),
        };
        if (faults.duplicateWebhooks) injected["paypal-webhook-repeated"] += 1;
        for (let copy = 0; copy < (faults.duplicateWebhooks ? 2 : 1); copy += 1)
          await fetch(hook.url, { method: "POST", headers, body: text }).catch(() => undefined);
      }
  }

  const itemEvent = (batch: StandinBatch, item: StandinBatch["items"][number], status: ItemStatus) => ({
    id: `WH-EVT-${randomUUID()}`,
    event_version: "1.0",
    create_time: new Date(clock()).toISOString(),
    resource_type: "payouts_item",
    event_type: ITEM_EVENTS[status],
    summary: `A payout item is ${status.toLowerCase()}`,
    resource: itemBody(batch, item, status),
  });

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => paypalError(res, 500, "INTERNAL_SERVER_ERROR", String(error)));
  });
  origin = (await listen(server, options.port ?? 0, "127.0.0.1")).url;

  return {
    url: origin,
    ledger,
    requests: () => [...requests],
    faults: (plan: PaypalFaults) => Object.assign(faults, plan),
    /** What the fault plan did so far, by kind (each delivery sent twice, each advance's events sent reversed). */
    faultsInjected: () => ({ ...injected }),
    addClient: (clientId?: string, secret?: string) => ledger.addClient(clientId, secret),
    /** What PayPal's "create webhook" gives: the id the app needs to verify deliveries. */
    registerWebhook: (url: string, clientId: string) => ledger.registerWebhook(url, clientId),
    /** The status a receiver's items end in at the next advance (SUCCESS otherwise). */
    plan: (receiver: string, end: ItemStatus) => ledger.plannedEnds.set(receiver, end),
    /**
     * Moves every PENDING item to its planned end (and an UNCLAIMED one, with `returnUnclaimed`, to
     * RETURNED), sending webhooks; with `receivers`, only the items paid to them.
     */
    async advance({ returnUnclaimed = false, receivers }: { returnUnclaimed?: boolean; receivers?: string[] } = {}) {
      for (const batch of ledger.batches.values()) {
        const events: object[] = [];
        for (const item of batch.items) {
          if (receivers && !receivers.includes(item.receiver)) continue;
          const next =
            item.status === "PENDING"
              ? (ledger.plannedEnds.get(item.receiver) ?? "SUCCESS")
              : item.status === "UNCLAIMED" && returnUnclaimed
                ? "RETURNED"
                : null;
          if (!next) continue;
          if (faults.reorderWebhooks && next === "RETURNED") events.push(itemEvent(batch, item, "UNCLAIMED"));
          item.status = next;
          events.push(itemEvent(batch, item, next));
        }
        batch.status = batch.items.every((i) => i.status !== "PENDING") ? "SUCCESS" : "PROCESSING";
        if (events.length > 0) await deliver(batch, events);
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type PaypalStandin = Awaited<ReturnType<typeof startPaypalStandin>>;
