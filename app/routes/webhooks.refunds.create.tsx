import type { ActionFunctionArgs } from "@remix-run/node";
import { recordOrderEventDelivery } from "../verification/intake.server";
import { receiveWebhook } from "../webhooks/receive.server";

// A refund moves the order's commission: record it and answer now; the order's job applies it.
export const action = async ({ request }: ActionFunctionArgs) => {
  await recordOrderEventDelivery(await receiveWebhook(request, "refunds/create"));
  return new Response(null, { status: 200 });
};
