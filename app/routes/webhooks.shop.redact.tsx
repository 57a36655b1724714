import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveWebhook } from "../webhooks/receive.server";
import { handleShopRedact } from "../lifecycle/privacy.server";

// Sent 48 hours after uninstall: erase everything the app holds for the shop. One for a shop that
// is installed, or was uninstalled less than a day ago, is refused and deletes nothing
// (privacy.server.ts); answered 200 either way, as there is nothing for Shopify to retry.
export const action = async ({ request, context }: ActionFunctionArgs) => {
  await handleShopRedact(await receiveWebhook(request, "shop/redact", context));
  return new Response(null, { status: 200 });
};
