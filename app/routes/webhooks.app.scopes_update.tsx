import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveWebhook } from "../webhooks/receive.server";
import { handleScopesUpdate } from "../lifecycle/shop-lifecycle.server";

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop, payload } = await receiveWebhook(request, "app/scopes_update");
  await handleScopesUpdate(shop, payload);
  return new Response(null, { status: 200 });
};
