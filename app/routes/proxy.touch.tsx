import type { ActionFunctionArgs } from "@remix-run/node";
import { answerProxyPost, postOnly } from "../app-proxy/answer.server";
import { acceptTouch } from "../landing/accept-touch.server";

// The storefront's touches, through Shopify's app proxy (/apps/tag-guard/touch on the shop's
// own domain). The answer comes at once: the click's lookup runs in the background.
export const action = ({ request }: ActionFunctionArgs) => answerProxyPost(request, acceptTouch);

export const loader = postOnly;
