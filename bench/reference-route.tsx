import type { ActionFunctionArgs } from "@remix-run/node";
import { PrismaSessionStorage } from "@shopify/shopify-app-session-storage-prisma";
import { AppDistribution, shopifyApp } from "@shopify/shopify-app-remix/server";
import prisma from "../app/database/db.server";
import { env } from "../app/platform/env.server";
import { logger } from "../app/platform/logger.server";
import { intakeArrived } from "../app/queue/intake-first.server";
import { apiVersion } from "../app/shopify-admin/api-version";

// The reference route `npm run bench` measures intake against: a webhook route as Shopify's app
// template writes one (authenticate.webhook, a log line, 200), from an app configured as the
// template's shopify.server.ts configures it, with the library's own Prisma session storage.
// It is in the bench's build of the app only (build/bench, vite.config.ts), never in the app's.
// The worker yields to it as to the app's own intake, so both are measured under the same load.

let template: ReturnType<typeof shopifyApp> | undefined;

function templateApp() {
  const config = env();
  return shopifyApp({
    apiKey: config.SHOPIFY_API_KEY,
    apiSecretKey: config.SHOPIFY_API_SECRET,
    apiVersion,
    scopes: config.SCOPES.split(",").map((scope) => scope.trim()),
    appUrl: config.SHOPIFY_APP_URL,
    authPathPrefix: "/auth",
    sessionStorage: new PrismaSessionStorage(prisma),
    distribution: AppDistribution.AppStore,
    future: { unstable_newEmbeddedAuthStrategy: true, expiringOfflineAccessTokens: true },
  });
}

export const action = async ({ request }: ActionFunctionArgs) => {
  intakeArrived();
  template ??= templateApp();
  const { shop, topic } = await template.authenticate.webhook(request);
  logger.info(`Received ${topic} webhook for ${shop}`);
  return new Response();
};
