import { json, type ActionFunctionArgs } from "@remix-run/node";
import { reconcileNow } from "../reconciliation/reconciliation.server";
import { authenticate } from "../shopify.server";

// "Check now" on the dashboard's reconciliation card: the shop's sweep runs at once. Answered
// with Remix's json, as every route answers: under the server's fetch globals (Remix's, which
// server.mjs installs) Response has no static json().
export const action = async ({ request }: ActionFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  await reconcileNow(session.shop);
  return json({ ok: true });
};
