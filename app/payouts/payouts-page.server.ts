import { chosenInForm } from "../commissions/payouts-page.server";
import { env } from "../platform/env.server";
import { localeMoney } from "../units/shop-format";
import { payoutSettings, saveMethod, savePaypalAccount, type SavePayoutSettingsResult } from "./payout-settings.server";
import { startPaypalRun, type StartRunResult } from "./run-intent.server";

// The Payouts page's PayPal part: the shop's methods and PayPal account as the browser may see
// them (never the secret: its last four characters), and the three forms that change them or
// start a run. The route hands any other intent to the ledger's own payouts page.

export async function paypalPart(shop: string) {
  return {
    payoutSettings: await payoutSettings(shop),
    /** Where the merchant points PayPal's webhook. */
    webhookUrl: `${new URL(env().SHOPIFY_APP_URL).origin}/webhooks/paypal/${shop}`,
  };
}

export type PaypalActionResult =
  | ({ intent: "paypal-account" } & SavePayoutSettingsResult)
  | ({ intent: "method" } & SavePayoutSettingsResult)
  | ({ intent: "paypal-run" } & StartRunResult);

export const PAYPAL_INTENTS = ["paypal-account", "method", "paypal-run"] as const;

export async function paypalAction(shop: string, form: FormData, locale: string): Promise<PaypalActionResult> {
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" ? value : "";
  };
  const intent = text("intent");
  if (intent === "paypal-account")
    return {
      intent,
      ...(await savePaypalAccount(shop, {
        environment: text("environment"),
        clientId: text("clientId"),
        secret: text("secret"),
        webhookId: text("webhookId"),
      })),
    };
  if (intent === "method")
    return { intent, ...(await saveMethod(shop, { creatorId: text("creatorId"), method: text("method") })) };
  return {
    intent: "paypal-run",
    ...(await startPaypalRun(
      shop,
      {
        idempotencyKey: text("formToken"),
        balances: chosenInForm(form),
      },
      new Date(),
      localeMoney(locale),
    )),
  };
}
