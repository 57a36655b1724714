import type { ActionFunctionArgs } from "@remix-run/node";
import { env } from "../platform/env.server";
import { logger } from "../platform/logger.server";
import { intakeArrived } from "../queue/intake-first.server";
import { templateAuthenticateWebhook } from "../shopify.server";

// For `npm run bench` only: a webhook route as Shopify's app template writes one
// (authenticate.webhook, a log line, 200), in the same build as the app's own intake, so intake
// is measured against it. Its authenticate.webhook loads the shop's session as the template's
// does, through the library's Prisma storage, not through this app's cheaper raw read.
// Subscribed to no topic; answers 404 unless BENCH_BASELINE_ROUTE=true. The worker yields to it
// as to the app's own intake, so both are measured under the same load.
export const action = async ({ request }: ActionFunctionArgs) => {
  if (!env().BENCH_BASELINE_ROUTE) return new Response(null, { status: 404 });
  intakeArrived();
  const { shop, topic } = await templateAuthenticateWebhook(request);
  logger.info(`Received ${topic} webhook for ${shop}`);
  return new Response();
};
