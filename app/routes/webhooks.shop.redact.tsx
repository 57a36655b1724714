import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveWebhook } from "../webhooks/receive.server";
import { handleShopRedact } from "../lifecycle/privacy.server";

// Sent 48 hours after uninstall: erase everything the app holds for the shop.
export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop } = await receiveWebhook(request, "shop/redact");
  await handleShopRedact(shop);
  return new Response(null, { status: 200 });
};
