import type { ActionFunctionArgs } from "@remix-run/node";
import { recordOrderEventDelivery } from "../verification/intake.server";
import { receiveWebhook } from "../webhooks/receive.server";

// A cancellation reverses the order's commission: record it and answer now; the order's job applies it.
export const action = async ({ request }: ActionFunctionArgs) => {
  await recordOrderEventDelivery(await receiveWebhook(request, "orders/cancelled"));
  return new Response(null, { status: 200 });
};
