import { randomUUID } from "node:crypto";
import type { PixelReport } from "../../app/attribution/pixel-report";
import { proxyQuery, type TouchOptions } from "./touch";

/** POSTs a pixel report to the app's /proxy/pixel as Shopify's app proxy forwards it: signed query, text body. */
export async function sendPixelReport(
  appUrl: string,
  shop: string,
  body: PixelReport | string,
  options: TouchOptions = {},
): Promise<Response> {
  return fetch(`${appUrl}/proxy/pixel${proxyQuery(shop, options)}`, {
    method: "POST",
    // As the pixel sends it: a simple cross-origin request, no preflight.
    headers: { "content-type": "text/plain", ...(options.address && { "x-forwarded-for": options.address }) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export const landingReport = (clientId: string, clickId: string, tag: string | null): PixelReport => ({
  eventId: randomUUID(),
  kind: "landing",
  clientId,
  clickId,
  tag,
  orderId: null,
  checkoutToken: null,
});

/**
 * The pixel's checkout_completed report of an order. Its checkout token defaults to the one the
 * stand-in's orders/create payload carries for that order (sandbox/shopify/order-payload.ts), so
 * the report is bound to the order; null or another token makes it a report that binds nothing.
 */
export const checkoutReport = (
  clientId: string,
  orderId: string,
  clickId: string | null = null,
  tag: string | null = null,
  checkoutToken: string | null = `checkout-${orderId}`,
): PixelReport => ({ eventId: randomUUID(), kind: "checkout", clientId, clickId, tag, orderId, checkoutToken });
