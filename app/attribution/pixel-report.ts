import { APP_PROXY_PREFIX, APP_PROXY_SUBPATH } from "./cart-attributes";

// The single definition of what the web pixel (extensions/tag-guard-pixel) reports to the app,
// and where. The pixel's script is built from a source that imports this file, as the embed's
// imports cart-attributes.ts, so the two ends cannot drift apart.

/** Where the pixel reports, on the shop's own storefront origin: the app proxy forwards it, signed. */
export const PIXEL_PATH = `/${APP_PROXY_PREFIX}/${APP_PROXY_SUBPATH}/pixel`;

/** The extension's handle (shopify.extension.toml), as webPixelCreate and the admin name it. */
export const PIXEL_HANDLE = "tag-guard-pixel";

/** A page whose URL carried a click id, or the checkout that became an order. */
export type PixelReportKind = "landing" | "checkout";

/**
 * The JSON body of POST {origin}/apps/tag-guard/pixel. `eventId` is Shopify's id of the customer
 * event (a report sent again is the same event); `clientId` is Shopify's id for the visitor,
 * which joins a checkout to the landings of the same browser. A landing carries the click id
 * and the tag from the page's URL (a tag alone, clickId null, when the URL swapped the tag and
 * kept no click id: it belongs to the visitor's current click); a checkout carries the order's
 * numeric id, the checkout's token (which binds it to the order: orders/create's checkout_token)
 * and the click id and tag its attributes held (null: absent).
 */
export interface PixelReport {
  eventId: string;
  kind: PixelReportKind;
  clientId: string;
  clickId: string | null;
  tag: string | null;
  orderId: string | null;
  /** checkout only: checkout_completed's data.checkout.token (null on a landing, or when Shopify gave none). */
  checkoutToken: string | null;
}
