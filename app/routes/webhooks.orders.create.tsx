import type { ActionFunctionArgs } from "@remix-run/node";
import { recordOrderDelivery } from "../verification/intake.server";
import { receiveWebhook } from "../webhooks/receive.server";

// Shopify allows five seconds and retries for hours: record the order and answer now;
// the worker calls the click service and Shopify outside this request.
export const action = async ({ request }: ActionFunctionArgs) => {
  await recordOrderDelivery(await receiveWebhook(request, "orders/create"));
  return new Response(null, { status: 200 });
};
