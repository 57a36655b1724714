import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveWebhook } from "../webhooks/receive.server";
import { handleAppUninstalled } from "../lifecycle/shop-lifecycle.server";

// May arrive more than once, after the sessions are already gone, after a reinstall, or replayed:
// all no-ops (shop-lifecycle.server.ts). When only Shopify can tell a replay from a new uninstall
// and cannot be asked now, 503: Shopify delivers it again.
export const action = async ({ request, context }: ActionFunctionArgs) => {
  const delivery = await receiveWebhook(request, "app/uninstalled", context);
  const { outcome } = await handleAppUninstalled(delivery);
  return outcome === "ask-later"
    ? new Response("cannot confirm the uninstall with Shopify now; deliver again", {
        status: 503,
        headers: { "retry-after": "60" },
      })
    : new Response(null, { status: 200 });
};
