import { env } from "../platform/env.server";
import { shopperSource } from "../platform/network-source";
import { proxyCallSource } from "../platform/network-source-hash.server";
import { readCapped } from "../webhooks/read-capped";
import { touchLimit } from "./rate-limits.server";
import { recordTouch } from "./record-touch.server";
import { MAX_TOUCH_BODY_BYTES, readTouch } from "./touch-input";

// POST /proxy/touch after Shopify's signature checked out: read the body (capped), refuse what
// cannot be a touch, count the caller, record. The storefront never waits on this (it sends with
// keepalive and reads no answer), but a clear status helps anyone debugging a theme.

export interface TouchAnswer {
  status: 202 | 400 | 413 | 429;
  body: { ok: boolean; error?: string };
  retryAfterSeconds?: number;
}

export async function acceptTouch(shop: string, request: Request, now = new Date()): Promise<TouchAnswer> {
  const text = await readCapped(request, MAX_TOUCH_BODY_BYTES);
  if (text === null) return { status: 413, body: { ok: false, error: "the touch is too large" } };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { status: 400, body: { ok: false, error: "the body is not JSON" } };
  }
  const input = readTouch(json);
  if (!input.ok) return { status: 400, body: { ok: false, error: input.error } };

  const shopper = shopperSource(request.headers.get("x-forwarded-for"), env().TRUSTED_PROXY_HOPS);
  const waitMs = touchLimit(shop, input.touch.cartToken, shopper, now.getTime());
  if (waitMs > 0) return limited("too many touches; slow down", waitMs);
  const result = await recordTouch(shop, input.touch, proxyCallSource(shop, request.headers), now);
  if (result.status === "limited") return limited(result.reason, result.retryAfterMs);
  return { status: 202, body: { ok: true } };
}

function limited(error: string, waitMs: number): TouchAnswer {
  return { status: 429, body: { ok: false, error }, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}
