import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveWebhook } from "../webhooks/receive.server";
import { handleCustomersRedact } from "../lifecycle/privacy.server";

export const action = async ({ request }: ActionFunctionArgs) => {
  await handleCustomersRedact(await receiveWebhook(request, "customers/redact"));
  return new Response(null, { status: 200 });
};
