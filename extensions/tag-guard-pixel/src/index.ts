import { register } from "@shopify/web-pixels-extension";
import {
  CART_ATTRIBUTES,
  CLICK_ID_PARAM,
  DEFAULT_TAG_PARAMS,
  MAX_ATTRIBUTE_LENGTH,
} from "../../../app/attribution/cart-attributes";
import { MAX_CLICK_ID_LENGTH } from "../../../app/attribution/click-claims";
import { PIXEL_PATH, type PixelReport } from "../../../app/attribution/pixel-report";

// The web pixel: a second witness beside the app embed, connected by the app with no merchant
// step. It reports to the app, through the app proxy on the shop's own domain (so Shopify signs
// the query and no outsider can report for another shop), two things only:
//   - a landing: a page viewed with a click id or a tag in its URL (the click id, the tag,
//     clientId): a tag alone is the swap a coupon extension's redirect makes;
//   - a completed checkout: the order's id, the checkout's token, the click id and tag in its
//     attributes, clientId.
// The checkout token binds the report to the order (orders/create carries the same
// checkout_token); clientId, Shopify's id for the visitor, joins it to the visitor's landings
// (docs/attribution.md).
// Nothing else leaves the pixel: no names, emails, addresses, line items or amounts.

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
/** Half of a UTF-16 surrogate pair on its own (a cut can leave one): the app refuses it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text the app accepts (app/pixel/report-input.ts): no control characters, trimmed, cut as the embed cuts. */
function clean(value: string | null | undefined): string | null {
  if (!value) return null;
  const text = value.replace(CONTROL, "").trim().slice(0, MAX_ATTRIBUTE_LENGTH).replace(LONE_SURROGATE, "").trim();
  return text || null;
}

/** The last non-empty value of a parameter: an appended parameter is the later touch. */
function lastValue(query: URLSearchParams, name: string): string | null {
  return query.getAll(name).map(clean).filter(Boolean).pop() ?? null;
}

function tagParamsOf(setting: unknown): readonly string[] {
  try {
    const names: unknown = typeof setting === "string" ? JSON.parse(setting) : null;
    if (Array.isArray(names) && names.length > 0 && names.every((n) => typeof n === "string")) return names;
  } catch {
    // A setting that is not JSON: the default parameter.
  }
  return DEFAULT_TAG_PARAMS;
}

register(({ analytics, init, settings, customerPrivacy }) => {
  const tagParams = tagParamsOf(settings.tagParams);
  const origin = init.context.document.location.origin;
  // Shopify loads the pixel only with the consent its declared purposes need; the visitor's
  // later choice is followed too.
  let allowed = init.customerPrivacy.marketingAllowed;
  customerPrivacy.subscribe("visitorConsentCollected", (event) => {
    allowed = event.customerPrivacy.marketingAllowed;
  });

  const send = (report: PixelReport) => {
    if (!allowed) return;
    // text/plain, no credentials: a simple request the proxy takes from the pixel's sandbox
    // without a preflight. Fire and forget: nothing waits for the answer.
    fetch(origin + PIXEL_PATH, { method: "POST", body: JSON.stringify(report), keepalive: true }).catch(() => {});
  };

  analytics.subscribe("page_viewed", (event) => {
    let query: URLSearchParams;
    try {
      query = new URL(event.context.document.location.href).searchParams;
    } catch {
      return;
    }
    const clickId = lastValue(query, CLICK_ID_PARAM);
    const tag = tagParams.map((name) => lastValue(query, name)).find(Boolean) ?? null;
    // A page with neither says nothing; a click id longer than any is not one (the app would refuse it).
    if ((!clickId && !tag) || (clickId && clickId.length > MAX_CLICK_ID_LENGTH) || !event.clientId) return;
    send({
      eventId: event.id,
      kind: "landing",
      clientId: event.clientId,
      clickId,
      tag,
      orderId: null,
      checkoutToken: null,
    });
  });

  analytics.subscribe("checkout_completed", (event) => {
    const checkout = event.data.checkout;
    // The order's id, bare or as a gid: its numeric part is the id orders/create carries.
    const orderId = /(\d+)$/.exec(checkout.order?.id ?? "")?.[1];
    if (!orderId || !event.clientId) return;
    const attribute = (key: string) => clean(checkout.attributes?.find((a) => a.key === key)?.value);
    const clickId = attribute(CART_ATTRIBUTES.clickId);
    send({
      eventId: event.id,
      kind: "checkout",
      clientId: event.clientId,
      clickId: clickId && clickId.length <= MAX_CLICK_ID_LENGTH ? clickId : null,
      tag: attribute(CART_ATTRIBUTES.arrivedTag),
      orderId,
      // What binds this report to the order: orders/create carries the same checkout_token.
      checkoutToken: /^[A-Za-z0-9_-]{1,128}$/.test(checkout.token ?? "") ? checkout.token! : null,
    });
  });
});
