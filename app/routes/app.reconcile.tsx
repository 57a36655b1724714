import type { ActionFunctionArgs } from "@remix-run/node";
import { reconcileNow } from "../reconciliation/reconciliation.server";
import { authenticate } from "../shopify.server";

// "Check now" on the dashboard's reconciliation card: the shop's sweep runs at once.
export const action = async ({ request }: ActionFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  await reconcileNow(session.shop);
  return Response.json({ ok: true });
};
