import { chosenInForm } from "../commissions/payouts-page.server";
import { t } from "../i18n";
import { env } from "../platform/env.server";
import { shopZone } from "../shop-profile/shop-profile.server";
import { localeMoney } from "../units/shop-format";
import { isShopifyMethod, type ShopifyMethod } from "./methods";
import { payoutSettings, saveMethod, savePaypalAccount, type SavePayoutSettingsResult } from "./payout-settings.server";
import { startSentRun, type StartRunResult } from "./run-intent.server";

// The Payouts page's part for payouts the app sends: the shop's methods and PayPal account as the
// browser may see them (never the secret: its last four characters), the shop's currency (store
// credit and gift cards are paid in it), and the forms that change them or start a run (PayPal,
// store credit, gift cards). The route hands any other intent to the ledger's own payouts page.

export async function paypalPart(shop: string) {
  const [settings, zone] = await Promise.all([payoutSettings(shop), shopZone(shop)]);
  return {
    payoutSettings: settings,
    shopCurrency: zone.currency,
    /** Where the merchant points PayPal's webhook. */
    webhookUrl: `${new URL(env().SHOPIFY_APP_URL).origin}/webhooks/paypal/${shop}`,
  };
}

export type PaypalActionResult =
  | ({ intent: "paypal-account" } & SavePayoutSettingsResult)
  | ({ intent: "method" } & SavePayoutSettingsResult)
  | ({ intent: "paypal-run" } & StartRunResult)
  | ({ intent: "shopify-run"; method: ShopifyMethod } & StartRunResult);

export const PAYPAL_INTENTS = ["paypal-account", "method", "paypal-run", "shopify-run"] as const;

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
    return {
      intent,
      ...(await saveMethod(shop, {
        creatorId: text("creatorId"),
        method: text("method"),
        ...(form.has("createCustomers") && { createCustomers: text("createCustomers") }),
      })),
    };
  const run = { idempotencyKey: text("formToken"), balances: chosenInForm(form) };
  const method = text("method");
  if (intent === "shopify-run")
    return isShopifyMethod(method)
      ? { intent, method, ...(await startSentRun(shop, method, run, new Date(), localeMoney(locale))) }
      : { intent: "paypal-run", ok: false, errors: { balances: t("payouts.methods.unknown") } };
  return { intent: "paypal-run", ...(await startSentRun(shop, "paypal", run, new Date(), localeMoney(locale))) };
}
