import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveWebhook } from "../webhooks/receive.server";
import { handleAppUninstalled } from "../lifecycle/shop-lifecycle.server";

// May arrive more than once, after the sessions are already gone, or after a reinstall: all
// no-ops (shop-lifecycle.server.ts).
export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop, triggeredAt } = await receiveWebhook(request, "app/uninstalled");
  await handleAppUninstalled(shop, triggeredAt);
  return new Response(null, { status: 200 });
};
