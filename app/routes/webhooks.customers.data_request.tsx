import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveWebhook } from "../webhooks.server";
import { handleCustomersDataRequest } from "../lifecycle/privacy.server";

// What we hold is gathered for the merchant, who answers the customer (see README, Privacy).
export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop, payload } = await receiveWebhook(request);
  await handleCustomersDataRequest(shop, payload);
  return new Response(null, { status: 200 });
};
