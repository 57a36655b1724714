import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { receivePaypalWebhook } from "../payouts/paypal-webhook.server";

// PayPal's webhooks for one shop's payouts: the merchant creates the webhook in their PayPal app
// with this URL and saves its id on Payouts. The signature is checked by PayPal itself
// (verify-webhook-signature) before anything is recorded.
export const action = async ({ request, params }: ActionFunctionArgs) => {
  if (request.method !== "POST") return json({ outcome: "method-not-allowed" }, { status: 405 });
  const { status, body } = await receivePaypalWebhook(params.shop ?? "", request);
  return json(body, { status, headers: status === 413 ? { connection: "close" } : {} });
};

export const loader = () => json({ outcome: "method-not-allowed" }, { status: 405, headers: { allow: "POST" } });
