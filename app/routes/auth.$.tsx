import type { LoaderFunctionArgs } from "@remix-run/node";
import { env } from "../platform/env.server";
import { exitIframeRefusal } from "../sessions/admin-request.server";
import { authenticate } from "../shopify.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  // /auth/exit-iframe sends the browser's top frame wherever its exitIframe parameter says: only
  // to this app or the shop's Shopify admin, anything else is a 400 (not the library's 500).
  const refusal = exitIframeRefusal(request, env().SHOPIFY_APP_URL);
  if (refusal) return refusal;
  await authenticate.admin(request);
  return null;
};
