import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveWebhook } from "../webhooks/receive.server";
import { handleAppUninstalled } from "../lifecycle/shop-lifecycle.server";

// May arrive more than once, or after the sessions are already gone: both are no-ops.
export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop } = await receiveWebhook(request, "app/uninstalled");
  await handleAppUninstalled(shop);
  return new Response(null, { status: 200 });
};
