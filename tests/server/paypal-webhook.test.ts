import { existsSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppProcess } from "../../sandbox/demo/app-process";
import { startPaypalStandin } from "../../sandbox/paypal/server";
import { startShopifyStandin, type ShopifyStandin } from "../../sandbox/shopify";
import { startBuiltApp } from "../support/built-app";
import { coversRoute } from "../support/route-coverage";

// PayPal's webhooks through the production server: PayPal itself (the stand-in's
// verify-webhook-signature) decides whether a delivery is signed; a forged one is refused and
// recorded nowhere, one sent twice is recorded once, and an oversized body is refused unread.

const ROOT = path.resolve(import.meta.dirname, "../..");
const SHOP = "paypal-hooks.myshopify.com";
const paypal = await startPaypalStandin();
process.env.PAYPAL_API_ORIGIN = paypal.url;
const { databaseClient } = await import("../../app/database/db.server");
const { savePaypalAccount } = await import("../../app/payouts/payout-settings.server");
const prisma = databaseClient();

let app: AppProcess;
let standin: ShopifyStandin;
let webhookId = "";

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, "build/server/index.js"))) throw new Error("no app build");
  standin = await startShopifyStandin({ apiKey: "hooks-key", appSecret: "hooks-secret" });
  app = await startBuiltApp(
    { apiKey: "hooks-key", apiSecret: "hooks-secret", standinUrl: standin.url },
    { PAYPAL_API_ORIGIN: paypal.url },
  );
  const client = paypal.addClient();
  webhookId = paypal.registerWebhook(`${app.url}/webhooks/paypal/${SHOP}`, client.clientId);
  expect(await savePaypalAccount(SHOP, { environment: "sandbox", ...client, webhookId })).toEqual({ ok: true });
}, 240_000);

afterAll(async () => {
  await app?.stop();
  await standin?.close();
  await paypal.close();
});

/** An event as the stand-in signs it for this shop's webhook. */
function signed(event: object, signature?: string) {
  const body = JSON.stringify(event);
  const id = randomUUID();
  const time = new Date().toISOString();
  return {
    body,
    headers: {
      "content-type": "application/json",
      "paypal-auth-algo": "SHA256withRSA",
      "paypal-cert-url": `${paypal.url}/v1/notifications/certs/CERT-STANDIN`,
      "paypal-transmission-id": id,
      "paypal-transmission-time": time,
      "paypal-transmission-sig": signature ?? paypal.ledger.sign(id, time, webhookId, body),
    },
  };
}

const event = (id: string) => ({
  id,
  event_type: "PAYMENT.PAYOUTS-ITEM.SUCCEEDED",
  resource: { payout_item_id: "ITEM1", transaction_status: "SUCCESS", payout_item: { sender_item_id: "not-ours" } },
});

describe("PayPal's webhooks", () => {
  it("records a signed event once, and refuses a forged one", async () => {
    const call = (delivery: ReturnType<typeof signed>) => ({
      path: `/webhooks/paypal/${SHOP}`,
      headers: delivery.headers,
      body: delivery.body,
    });
    await coversRoute(app, "routes/webhooks.paypal.$shop", "action", call(signed(event("WH-1"))), {
      status: 200,
      check: (answer) => expect(answer.json()).toEqual({ outcome: "ignored" }),
    });
    const again = await fetch(`${app.url}/webhooks/paypal/${SHOP}`, { method: "POST", ...signed(event("WH-1")) });
    expect(await again.json()).toEqual({ outcome: "duplicate" });
    const forged = await fetch(`${app.url}/webhooks/paypal/${SHOP}`, {
      method: "POST",
      ...signed(event("WH-2"), "AAAA"),
    });
    expect(forged.status).toBe(401);
    expect((await prisma.paypalEvent.findMany({ where: { shop: SHOP } })).map((e) => e.eventId)).toEqual(["WH-1"]);
  });

  it("refuses a body over its cap unread, and answers a GET with 405", async () => {
    const big = await fetch(`${app.url}/webhooks/paypal/${SHOP}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "x".repeat(70 * 1024),
    });
    expect(big.status).toBe(413);
    await coversRoute(
      app,
      "routes/webhooks.paypal.$shop",
      "loader",
      { path: `/webhooks/paypal/${SHOP}` },
      {
        status: 405,
        because: "PayPal only POSTs",
      },
    );
  });
});
