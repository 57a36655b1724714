import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveWebhook } from "../webhooks/receive.server";
import { handleCustomersRedact } from "../lifecycle/privacy.server";

export const action = async ({ request, context }: ActionFunctionArgs) => {
  await handleCustomersRedact(await receiveWebhook(request, "customers/redact", context));
  return new Response(null, { status: 200 });
};
