import type { ActionFunctionArgs } from "@remix-run/node";
import { answerProxyPost, postOnly } from "../app-proxy/answer.server";
import { acceptPixelReport } from "../pixel/accept-report.server";
import { reconsiderForLateCheckout } from "../verification/late-witness.server";

// The web pixel's reports, through Shopify's app proxy (/apps/tag-guard/pixel on the shop's own
// domain), checked exactly as the touches are: one shop, a fresh timestamp, Shopify's signature.
//
// The pixel runs in Shopify's sandbox, whose origin is not the storefront's: its fetch is a
// cross-origin "simple" request (text/plain, no credentials) that needs no preflight, and it
// reads no answer, so no CORS header is sent.
export const action = ({ request }: ActionFunctionArgs) =>
  answerProxyPost(request, async (shop, request) => {
    const answer = await acceptPixelReport(shop, request);
    // A checkout reported after its order was judged without a click: judged again with it, when
    // its checkout token is the order's (docs/attribution.md: no late claims).
    if (answer.newCheckout) await reconsiderForLateCheckout(shop, answer.newCheckout);
    return answer;
  });

export const loader = postOnly;
