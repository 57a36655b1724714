// validator-headers.ts with the library's own validator: given only the headers it requires, it
// answers as it does given them all, and the optional headers the app uses are read beside it.
import { WebhookValidationErrorReason } from "@shopify/shopify-api";
import { describe, expect, it } from "vitest";
import { validateWebhook } from "../../app/webhooks/validate.server";
import { optionalHeaders, validatorHeaders, type HeaderOf } from "../../app/webhooks/validator-headers";
import { signWebhook, webhookHeaders } from "../../sandbox/shopify";
import { API_VERSION } from "../support/deliver";

const SECRET = process.env.SHOPIFY_API_SECRET!;
const body = JSON.stringify({ id: 820982911946154500, name: "#1001" });
const URL_ = "https://app.example.com/webhooks/orders/create";

/** A header lookup over a plain record, whatever the case of the name, as Fetch's Headers does. */
function lookup(record: Record<string, string>): HeaderOf {
  const lower = new Map(Object.entries(record).map(([name, value]) => [name.toLowerCase(), value]));
  return (name) => lower.get(name.toLowerCase()) ?? null;
}

function delivery(overrides: Record<string, string | null> = {}): Record<string, string> {
  const headers: Record<string, string | null> = {
    ...webhookHeaders({
      topic: "orders/create",
      shop: "validator-headers.myshopify.com",
      apiVersion: API_VERSION,
      body,
      secret: SECRET,
      webhookId: "wh-1",
      eventId: "evt-1",
      triggeredAt: "2026-11-26T00:00:00.000Z",
    }),
    "User-Agent": "Shopify-Captain-Hook",
    "X-Shopify-Name": "orders-create",
    ...overrides,
  };
  return Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== null));
}

const validate = (headers: Headers) =>
  validateWebhook({ rawBody: body, rawRequest: { method: "POST", url: URL_, headers } });

describe("the headers the library's validator is given", () => {
  it("are the five a webhook requires, and it answers as it does given all of them", async () => {
    const all = delivery();
    const given = validatorHeaders(lookup(all));
    expect([...given.keys()].sort()).toEqual([
      "x-shopify-api-version",
      "x-shopify-hmac-sha256",
      "x-shopify-shop-domain",
      "x-shopify-topic",
      "x-shopify-webhook-id",
    ]);
    const trimmed = await validate(given);
    const full = await validate(new Headers(all));
    expect(trimmed).toMatchObject({ valid: true, domain: "validator-headers.myshopify.com", webhookId: "wh-1" });
    const {
      eventId: _eventId,
      triggeredAt: _triggeredAt,
      name: _name,
      ...rest
    } = full as unknown as Record<string, unknown>;
    expect(trimmed).toEqual(rest);
    expect(optionalHeaders(lookup(all), "webhooks")).toEqual({
      eventId: "evt-1",
      triggeredAt: "2026-11-26T00:00:00.000Z",
    });
  });

  it("still fail a forged signature and a missing required header", async () => {
    const forged = await validate(
      validatorHeaders(lookup(delivery({ "X-Shopify-Hmac-Sha256": signWebhook(body, "not-the-secret") }))),
    );
    expect(forged).toMatchObject({ valid: false, reason: WebhookValidationErrorReason.InvalidHmac });
    const missing = await validate(validatorHeaders(lookup(delivery({ "X-Shopify-Topic": null }))));
    expect(missing).toMatchObject({ valid: false, reason: WebhookValidationErrorReason.MissingHeaders });
  });

  it("are the events' own for an event, as the library tells the kinds apart", async () => {
    const event = {
      "shopify-hmac-sha256": signWebhook(body, SECRET),
      "shopify-topic": "orders/create",
      "shopify-shop-domain": "validator-headers.myshopify.com",
      "shopify-api-version": API_VERSION,
      "shopify-webhook-id": "wh-2",
      "shopify-event-id": "evt-2",
      "shopify-triggered-at": "2026-11-26T00:00:00.000Z",
      "shopify-handle": "orders",
    };
    const given = validatorHeaders(lookup(event));
    expect([...given.keys()].sort()).toEqual(
      ["api-version", "hmac-sha256", "shop-domain", "topic", "webhook-id"].map((n) => `shopify-${n}`),
    );
    expect(await validate(given)).toMatchObject({ valid: true, webhookType: "events", webhookId: "wh-2" });
    // Since shopify-api 15 an event's webhook id is its key: the library names no event id for it.
    expect(optionalHeaders(lookup(event), "events")).toEqual({
      eventId: null,
      triggeredAt: "2026-11-26T00:00:00.000Z",
    });
  });
});
