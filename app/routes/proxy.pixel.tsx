import { json, type ActionFunctionArgs } from "@remix-run/node";
import { readSignedProxyQuery } from "../landing/touch-input";
import { acceptPixelReport } from "../pixel/accept-report.server";
import { reconsiderForLateCheckout } from "../verification/late-witness.server";
import { hasAppProxySignature } from "../shopify.server";

// The web pixel's reports, through Shopify's app proxy (/apps/tag-guard/pixel on the shop's own
// domain), checked exactly as the touches are: one shop, a fresh timestamp, Shopify's signature.
// A forged, stale or unsigned report gets 400 and stores nothing.
//
// The pixel runs in Shopify's sandbox, whose origin is not the storefront's: its fetch is a
// cross-origin "simple" request (text/plain, no credentials) that needs no preflight, and it
// reads no answer, so no CORS header is sent.
export const action = async ({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
  const query = await readSignedProxyQuery(new URL(request.url), Date.now(), hasAppProxySignature);
  if (!query.ok)
    return json({ ok: false, error: query.error }, { status: 400, headers: { "cache-control": "no-store" } });
  const answer = await acceptPixelReport(query.shop, request);
  // A checkout reported after its order was judged without a click: judged again with it, when
  // its checkout token is the order's (docs/attribution.md: no late claims).
  if (answer.newCheckout) await reconsiderForLateCheckout(query.shop, answer.newCheckout);
  return json(answer.body, {
    status: answer.status,
    headers: {
      "cache-control": "no-store",
      ...(answer.retryAfterSeconds && { "retry-after": String(answer.retryAfterSeconds) }),
      ...(answer.status === 413 && { connection: "close" }),
    },
  });
};

export const loader = () => new Response(null, { status: 405, headers: { allow: "POST" } });
