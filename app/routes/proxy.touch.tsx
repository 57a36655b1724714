import { json, type ActionFunctionArgs } from "@remix-run/node";
import { acceptTouch } from "../landing/accept-touch.server";
import { readSignedProxyQuery } from "../landing/touch-input";
import { hasAppProxySignature } from "../shopify.server";

// The storefront's touches, through Shopify's app proxy (/apps/tag-guard/touch on the shop's
// own domain). Shopify signs the query; a forged, stale or unsigned call gets 400 and stores
// nothing. The answer comes at once: the click's lookup runs in the background.
export const action = async ({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
  const query = await readSignedProxyQuery(new URL(request.url), Date.now(), hasAppProxySignature);
  if (!query.ok)
    return json({ ok: false, error: query.error }, { status: 400, headers: { "cache-control": "no-store" } });
  const answer = await acceptTouch(query.shop, request);
  return json(answer.body, {
    status: answer.status,
    headers: {
      "cache-control": "no-store",
      ...(answer.retryAfterSeconds && { "retry-after": String(answer.retryAfterSeconds) }),
      // A body too large is left unread (readCapped): the connection ends with the answer.
      ...(answer.status === 413 && { connection: "close" }),
    },
  });
};

// Only POST: a page view never reaches the app.
export const loader = () => new Response(null, { status: 405, headers: { allow: "POST" } });
