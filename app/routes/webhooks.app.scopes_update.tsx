import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveWebhook } from "../webhooks.server";
import { handleScopesUpdate } from "../lifecycle/shop-lifecycle.server";

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop, payload } = await receiveWebhook(request);
  await handleScopesUpdate(shop, payload);
  return new Response(null, { status: 200 });
};
