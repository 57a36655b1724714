import { json, type ActionFunctionArgs } from "@remix-run/node";
import { acceptTouch } from "../landing/accept-touch.server";
import { authenticate } from "../shopify.server";

// The storefront's touches, through Shopify's app proxy (/apps/tag-guard/touch on the shop's
// own domain). Shopify signs the query; a forged, stale or unsigned call gets 400 and stores
// nothing. The answer comes at once: the click's lookup runs in the background.
export const action = async ({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
  // Shopify sends one shop. The library (shopify-api 14 and later) refuses a repeated shop too;
  // refused here first, with a reason, so the shop a touch is for is never in doubt.
  const shops = new URL(request.url).searchParams.getAll("shop");
  if (shops.length !== 1) return json({ error: "the query must name exactly one shop" }, { status: 400 });
  try {
    await authenticate.public.appProxy(request);
  } catch (error) {
    // The signature is checked first; a 5xx thrown after it means the shop's token refresh
    // failed, which a touch does not need.
    if (!(error instanceof Response) || error.status < 500) throw error;
  }
  const answer = await acceptTouch(shops[0]!, request);
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
