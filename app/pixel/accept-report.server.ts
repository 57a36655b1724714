import { env } from "../platform/env.server";
import { shopperSource } from "../platform/network-source";
import { proxyCallSource } from "../platform/network-source-hash.server";
import { FixedWindowCounter, TOUCHES_PER_ADDRESS, TOUCHES_PER_CART } from "../landing/rate-limits.server";
import { readCapped } from "../webhooks/read-capped";
import { recordPixelReport } from "./record-report.server";
import { MAX_PIXEL_BODY_BYTES, readPixelReport } from "./report-input";

// POST /proxy/pixel after Shopify's signature checked out: read the body (capped), refuse what
// no pixel sends, count the caller, record. The same limits as the touches: a visitor (clientId)
// is held to what a cart may send, and a client address to what an address may send, each
// counted here apart from the touches, so the embed and the pixel of one shopper never starve
// each other.

export interface PixelAnswer {
  status: 202 | 400 | 413 | 429;
  body: { ok: boolean; error?: string };
  retryAfterSeconds?: number;
  /**
   * A checkout report stored now (not a replay) that carries a checkout token: the order it
   * names and the token, which binds it to that order only if orders/create carried the same.
   */
  newCheckout?: { orderId: string; checkoutToken: string };
}

const perClient = new FixedWindowCounter(TOUCHES_PER_CART);
const perAddress = new FixedWindowCounter(TOUCHES_PER_ADDRESS);

export async function acceptPixelReport(shop: string, request: Request, now = new Date()): Promise<PixelAnswer> {
  const text = await readCapped(request, MAX_PIXEL_BODY_BYTES);
  if (text === null) return { status: 413, body: { ok: false, error: "the report is too large" } };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { status: 400, body: { ok: false, error: "the body is not JSON" } };
  }
  const input = readPixelReport(json);
  if (!input.ok) return { status: 400, body: { ok: false, error: input.error } };

  const at = now.getTime();
  const shopper = shopperSource(request.headers.get("x-forwarded-for"), env().TRUSTED_PROXY_HOPS);
  const waitMs = Math.max(
    perClient.hit(`${shop} ${input.report.clientId}`, at),
    shopper ? perAddress.hit(`${shop} ${shopper}`, at) : 0,
  );
  if (waitMs > 0) return limited("too many reports; slow down", waitMs);
  const result = await recordPixelReport(shop, input.report, proxyCallSource(shop, request.headers), now);
  if (result.status === "limited") return limited(result.reason, result.retryAfterMs);
  const { report } = input;
  return {
    status: 202,
    body: { ok: true },
    ...(result.status === "recorded" &&
      report.kind === "checkout" &&
      report.orderId &&
      report.checkoutToken && { newCheckout: { orderId: report.orderId, checkoutToken: report.checkoutToken } }),
  };
}

function limited(error: string, waitMs: number): PixelAnswer {
  return { status: 429, body: { ok: false, error }, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}
