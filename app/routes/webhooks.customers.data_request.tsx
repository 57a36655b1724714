import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveWebhook } from "../webhooks/receive.server";
import { handleCustomersDataRequest } from "../lifecycle/privacy.server";

// What we hold is gathered for the merchant, who answers the customer (see docs/privacy.md).
export const action = async ({ request, context }: ActionFunctionArgs) => {
  await handleCustomersDataRequest(await receiveWebhook(request, "customers/data_request", context));
  return new Response(null, { status: 200 });
};
