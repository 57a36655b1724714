// Deliveries reach the validator as Fetch requests, as in the rest of the app (shopify-app-remix sets the same adapter).
import "@shopify/shopify-api/adapters/web-api";
import { LogSeverity, shopifyApi } from "@shopify/shopify-api";
import { env } from "../platform/env.server";
import { logger, redact } from "../platform/logger.server";
import { apiVersion } from "../shopify-admin/api-version";

// The library's webhook validator on its own (HMAC and headers), for webhook intake: the app's
// authenticate.webhook would also load and refresh the shop's session on every delivery.
// Built on first use, from the same settings as the app (shopify.server.ts).
let api: ReturnType<typeof shopifyApi> | undefined;

function webhookApi() {
  const config = env();
  api ??= shopifyApi({
    apiKey: config.SHOPIFY_API_KEY,
    apiSecretKey: config.SHOPIFY_API_SECRET,
    apiVersion,
    hostName: new URL(config.SHOPIFY_APP_URL).host,
    isEmbeddedApp: true,
    logger: {
      level: LogSeverity.Error,
      log: (_level, message) => logger.error("shopify.library", redact(message)),
    },
  });
  return api;
}

export const validateWebhook: ReturnType<typeof shopifyApi>["webhooks"]["validate"] = (params) =>
  webhookApi().webhooks.validate(params);
