import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveWebhook } from "../webhooks/receive.server";
import { handleCustomersRedact } from "../lifecycle/privacy.server";

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop, payload } = await receiveWebhook(request, "customers/redact");
  await handleCustomersRedact(shop, payload);
  return new Response(null, { status: 200 });
};
