import { shopFormat } from "../shop-profile/shop-profile.server";
import type { AdminGraphql } from "../shopify-admin/orders.server";
import { formatShopTime } from "../units/shop-format";
import { applySettings, type ApplySettingsResult } from "./apply-settings.server";
import { getPublicSettings } from "./shop-settings.server";
import { testConnection, type ConnectionResult } from "./test-connection.server";

// The Settings page's server side: what it shows, and its two actions (save, test connection)
// read from the submitted form, so the route only authenticates and answers. The API key is
// write-only: the page gets its last four characters, never the key.

export async function settingsPageFor(shop: string, locale: string) {
  const settings = await getPublicSettings(shop);
  const rejectedAt = settings?.credentialsRejectedAt ? new Date(settings.credentialsRejectedAt).toISOString() : null;
  const format = rejectedAt ? await shopFormat(shop, locale) : null;
  // Formatted here, in the shop's zone, so the browser hydrates the server's text.
  return { settings, keyRejectedAt: rejectedAt && format ? formatShopTime(rejectedAt, format) : null };
}

export type SettingsAnswer = ({ intent: "save" } & ApplySettingsResult) | { intent: "test"; result: ConnectionResult };

/** Save, or test the connection with the form's URL and key (nothing saved); a refused save is a 400. */
export async function settingsAction(
  shop: string,
  form: FormData,
  graphql: AdminGraphql,
): Promise<{ status: number; answer: SettingsAnswer }> {
  if (form.get("intent") === "test") {
    const result = await testConnection(shop, {
      clickServiceUrl: String(form.get("clickServiceUrl") ?? ""),
      apiKey: String(form.get("apiKey") ?? ""),
    });
    return { status: 200, answer: { intent: "test", result } };
  }
  const result = await applySettings(shop, form, graphql);
  return { status: result.ok ? 200 : 400, answer: { intent: "save", ...result } };
}
