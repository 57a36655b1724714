import { json } from "@remix-run/node";
import { readSignedProxyQuery } from "../landing/touch-input";
import { hasAppProxySignature } from "../shopify.server";

// What the app answers the storefront through Shopify's app proxy (/apps/tag-guard/... on the
// shop's own domain): the touches and the pixel's reports alike. Shopify signs the query; a
// forged, stale or unsigned call gets 400 and stores nothing. Nothing here is cached on the way.

/** What an endpoint made of one call: its status, its JSON body, and how long to wait before another. */
export interface ProxyAnswer {
  status: number;
  body: unknown;
  retryAfterSeconds?: number;
}

/** Only POST: a page view never reaches the app. */
export const postOnly = () => new Response(null, { status: 405, headers: { allow: "POST" } });

/** A POST through the proxy, answered by `accept` once Shopify's signature names the shop. */
export async function answerProxyPost(
  request: Request,
  accept: (shop: string, request: Request) => Promise<ProxyAnswer>,
): Promise<Response> {
  if (request.method !== "POST") return postOnly();
  const query = await readSignedProxyQuery(new URL(request.url), Date.now(), hasAppProxySignature);
  if (!query.ok)
    return json({ ok: false, error: query.error }, { status: 400, headers: { "cache-control": "no-store" } });
  const answer = await accept(query.shop, request);
  return json(answer.body, {
    status: answer.status,
    headers: {
      "cache-control": "no-store",
      ...(answer.retryAfterSeconds && { "retry-after": String(answer.retryAfterSeconds) }),
      // A body too large is left unread (readCapped): the connection ends with the answer.
      ...(answer.status === 413 && { connection: "close" }),
    },
  });
}
