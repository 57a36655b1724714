import type { ActionFunctionArgs } from "@remix-run/node";
import { PrismaSessionStorage } from "@shopify/shopify-app-session-storage-prisma";
import { shopifyApp } from "@shopify/shopify-app-remix/server";
import { databaseClient } from "../app/database/db.server";
import { logger } from "../app/platform/logger.server";
import { intakeArrived } from "../app/queue/intake-first.server";
import { settings } from "../app/shopify.server";

const prisma = databaseClient();

// The reference route `npm run bench` measures intake against: a webhook route as Shopify's app
// template writes one (authenticate.webhook, a log line, 200), from the app's own settings with
// the library's own Prisma session storage, as the template's shopify.server.ts has it.
// It is in the bench's build of the app only (build/bench, vite.config.ts), never in the app's.
// The worker yields to it as to the app's own intake, so both are measured under the same load.

let template: ReturnType<typeof shopifyApp> | undefined;

function templateApp() {
  return shopifyApp({ ...settings, sessionStorage: new PrismaSessionStorage(prisma) });
}

export const action = async ({ request }: ActionFunctionArgs) => {
  intakeArrived();
  template ??= templateApp();
  const { shop, topic } = await template.authenticate.webhook(request);
  logger.info("webhook.received", `Received ${topic} webhook for ${shop}`);
  return new Response();
};
