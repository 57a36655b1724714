import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveWebhook } from "../webhooks/receive.server";
import { handleScopesUpdate } from "../lifecycle/shop-lifecycle.server";

export const action = async ({ request, context }: ActionFunctionArgs) => {
  await handleScopesUpdate(await receiveWebhook(request, "app/scopes_update", context));
  return new Response(null, { status: 200 });
};
