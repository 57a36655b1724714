import type { ServerResponse } from "node:http";
import { addItems, CartRefusal, changeLine, clearCart, isRecord, updateCart, type Cart } from "./cart";
import { cartJson, lineItemJson } from "./cart-json";
import { cartParams } from "./cart-params";
import { escapeHtml } from "./pages";

// The cart's endpoints, all answered from the one cart model (cart.ts): Shopify's Ajax Cart API
// (GET cart.js; POST cart/add.js, cart/change.js, cart/update.js, cart/clear.js, answered with
// JSON: add.js the lines it added, `{ items }` when `items` was posted, the others the whole
// cart) and the theme's form posts to the same paths without ".js" (answered, as Shopify does,
// with a redirect to the cart page). Each under the locale prefix Shopify.routes.root may add.

const CART_PATH = /^(\/[a-z]{2}(?:-[a-z]{2})?)?\/cart(?:\.js|\/(add|change|update|clear)(\.js)?)$/i;

export type CartAction = "cart" | "add" | "change" | "update" | "clear";

export interface CartRoute {
  action: CartAction;
  /** The Ajax API (.js, answered with JSON), or the theme's form post (answered with a redirect). */
  json: boolean;
  /** The locale prefix ("" or e.g. "/fr"): where a form post's redirect goes. */
  root: string;
}

/** The cart endpoint a path names, if any. */
export function cartRoute(pathname: string): CartRoute | null {
  const match = CART_PATH.exec(pathname);
  if (!match) return null;
  const action = (match[2]?.toLowerCase() ?? "cart") as CartAction;
  return { action, json: action === "cart" || match[3] !== undefined, root: match[1] ?? "" };
}

/** How the storefront answers a cart request: JSON, a redirect, or a short page. */
export type CartReply =
  { status: number; json: unknown } | { status: 302; location: string } | { status: number; html: string };

export interface CartRequest {
  method: string;
  contentType: string | undefined;
  body: string;
}

/**
 * Answers a cart request. `cart` gives the shopper's cart, making one (and its cookie) when
 * there is none, as any cart request does on Shopify.
 */
export async function replyToCart(route: CartRoute, request: CartRequest, cart: () => Cart): Promise<CartReply> {
  const method = route.action === "cart" ? "GET" : "POST";
  if (request.method !== method) return { status: 405, html: `${method} only` };
  try {
    const params = method === "GET" ? {} : await cartParams(request.contentType, request.body);
    const json = act(route.action, params, cart());
    return route.json ? { status: 200, json } : { status: 302, location: `${route.root}/cart` };
  } catch (error) {
    if (!(error instanceof CartRefusal)) throw error;
    return refused(error, route.json);
  }
}

/** What Shopify answers a refused cart request: its JSON to a script, a short page to a form. */
export function refused(error: CartRefusal, json: boolean): CartReply {
  return json
    ? { status: error.httpStatus, json: error.body }
    : { status: error.httpStatus, html: `<p>${escapeHtml(error.body.description)}</p>` };
}

function act(action: CartAction, params: Record<string, unknown>, cart: Cart): unknown {
  switch (action) {
    case "cart":
      return cartJson(cart);
    case "add": {
      if (params.items === undefined) return lineItemJson(addItems(cart, [params], "id")[0]!);
      // items[0][id]=... from a form is a record of items, in the order of their indexes.
      const items = Array.isArray(params.items)
        ? params.items
        : isRecord(params.items)
          ? Object.values(params.items)
          : [];
      return { items: addItems(cart, items, "items").map(lineItemJson) };
    }
    case "change":
      changeLine(cart, params);
      break;
    case "update":
      updateCart(cart, params);
      break;
    case "clear":
      clearCart(cart);
      break;
  }
  return cartJson(cart);
}

export function sendCartReply(response: ServerResponse, reply: CartReply): void {
  if ("location" in reply) {
    response.writeHead(302, { Location: reply.location, "Cache-Control": "no-store" });
    response.end();
  } else if ("json" in reply) {
    response.writeHead(reply.status, {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
    });
    response.end(JSON.stringify(reply.json));
  } else {
    response.writeHead(reply.status, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" });
    response.end(reply.html);
  }
}
