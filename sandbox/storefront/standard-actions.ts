// Shopify's standard storefront actions, as far as the click-capture script meets them:
// Shopify.actions.updateCart({ attributes }) and the Storefront API mutation behind its default
// handler. Documented behaviour modelled: the call dispatches `shopify:cart:attributes-update`
// (bubbling to document; `context`, `attributes` and `promise` on the event) as the operation
// starts, before the cart changes; the attribute set is REPLACED, not merged (a key left out is
// removed); the promise resolves with { cart, userErrors } and the cart carries no attributes.

/** The Storefront API endpoint the stand-in's updateCart calls. */
export const STOREFRONT_API_PATH = "/api/2026-07/graphql.json";

/**
 * Shopify's standard actions runtime, reduced to updateCart with attributes. Shopify loads it as
 * a module script, so, as there, it is ready only once the document has been parsed.
 */
export function standardActionsScript(): string {
  return `
const cartId = () => {
  const match = /(?:^|;\\s*)cart=([^;]*)/.exec(document.cookie);
  return match ? "gid://shopify/Cart/" + decodeURIComponent(match[1]) : null;
};
Shopify.actions = {
  updateCart(payload, options) {
    if (!payload || !Array.isArray(payload.attributes) || payload.lines || payload.note !== undefined || payload.discountCodes)
      return Promise.reject(new TypeError("this stand-in's updateCart supports { attributes } only"));
    let start;
    const promise = new Promise((resolve) => (start = resolve))
      .then(() =>
        fetch(${JSON.stringify(STOREFRONT_API_PATH)}, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({
            query: "mutation cartAttributesUpdate($cartId: ID!, $attributes: [AttributeInput!]!) { cartAttributesUpdate(cartId: $cartId, attributes: $attributes) { cart { id totalQuantity } userErrors { field message code } } }",
            variables: { cartId: (payload.cartId || cartId()), attributes: payload.attributes },
          }),
        }),
      )
      .then((response) => {
        if (!response.ok) throw new Error("cart request failed: " + response.status);
        return response.json();
      })
      .then(({ data }) => ({ cart: data.cartAttributesUpdate.cart, userErrors: data.cartAttributesUpdate.userErrors }));
    // The event fires as the operation starts, before the cart has changed.
    const event = new Event("shopify:cart:attributes-update", { bubbles: true });
    Object.assign(event, {
      context: (options && options.event && options.event.context) || "standard-action",
      attributes: payload.attributes,
      promise,
    });
    document.documentElement.dispatchEvent(event);
    start();
    return promise;
  },
};`;
}

/** The Storefront API's cartAttributesUpdate: REPLACES the cart's attribute set. */
export function cartAttributesUpdate(
  body: string,
  cartByToken: (token: string) => { attributes: Record<string, string> } | undefined,
  { decline = false } = {},
): { status: number; payload: unknown } {
  const reply = (status: number, payload: unknown) => ({ status, payload });
  let parsed: { query?: unknown; variables?: { cartId?: unknown; attributes?: unknown } };
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    return reply(400, { errors: [{ message: "invalid JSON" }] });
  }
  const attributes = parsed.variables?.attributes;
  const valid =
    Array.isArray(attributes) &&
    attributes.every(
      (entry: unknown) =>
        typeof entry === "object" &&
        entry !== null &&
        typeof (entry as { key?: unknown }).key === "string" &&
        typeof (entry as { value?: unknown }).value === "string",
    );
  if (typeof parsed.query !== "string" || !/\bcartAttributesUpdate\b/.test(parsed.query) || !valid)
    return reply(200, {
      errors: [{ message: "the stand-in answers cartAttributesUpdate with [AttributeInput!]! only" }],
    });
  const cartId = String(parsed.variables?.cartId ?? "");
  const cart = cartId.startsWith("gid://shopify/Cart/") ? cartByToken(cartId.slice(19)) : undefined;
  const payload = (userErrors: { field: string[]; message: string; code: string }[]) => ({
    data: {
      cartAttributesUpdate: { cart: cart ? { id: cartId, totalQuantity: 0 } : null, userErrors },
    },
  });
  if (!cart)
    return reply(200, payload([{ field: ["cartId"], message: "The specified cart does not exist.", code: "INVALID" }]));
  if (decline)
    return reply(200, payload([{ field: ["attributes"], message: "Attributes can't be changed.", code: "INVALID" }]));
  cart.attributes = Object.fromEntries((attributes as { key: string; value: string }[]).map((a) => [a.key, a.value]));
  return reply(200, payload([]));
}
