import { json, type ActionFunctionArgs } from "@remix-run/node";
import { acceptTouch } from "../landing/accept-touch.server";
import { readProxyQuery } from "../landing/touch-input";
import { hasAppProxySignature } from "../shopify.server";

// The storefront's touches, through Shopify's app proxy (/apps/tag-guard/touch on the shop's
// own domain). Shopify signs the query; a forged, stale or unsigned call gets 400 and stores
// nothing. The answer comes at once: the click's lookup runs in the background.
export const action = async ({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
  // One shop (a shop domain) and a fresh timestamp, checked here with a reason: the library
  // answers a shop that is not a shop domain with a 500.
  const url = new URL(request.url);
  const query = readProxyQuery(url, Date.now());
  if (!query.ok) return refused(query.error);
  if (!(await hasAppProxySignature(url.searchParams))) return refused("the query is not signed by Shopify's app proxy");
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

function refused(error: string) {
  return json({ ok: false, error }, { status: 400, headers: { "cache-control": "no-store" } });
}
