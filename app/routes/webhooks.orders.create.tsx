import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveWebhook } from "../webhooks.server";
import { recordOrderDelivery } from "../verification/intake.server";

// Shopify allows five seconds and retries for hours: record the order and answer now;
// the verification worker calls the click service and Shopify outside this request.
export const action = async ({ request }: ActionFunctionArgs) => {
  const delivery = await receiveWebhook(request);
  await recordOrderDelivery(delivery);
  return new Response(null, { status: 200 });
};
