import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { addItems, CartRefusal, emptyCart, linesOf } from "./cart";
import { refused, sendCartReply } from "./cart-api";
import { cartParams } from "./cart-params";
import { cartMain, checkoutMain, page, productMain, thankYouMain, type Line } from "./pages";
import {
  BUNDLE_PATH,
  RUNTIME_PATH,
  runtimeConfigHtml,
  runtimeScript,
  SANDBOX_PATH,
  sandboxScript,
  type PageEvent,
} from "./pixel-runtime";
import { PRODUCT_VARIANT } from "./products";
import {
  appendCookie,
  ASSET_PATH,
  BLOCK_FILE,
  renderClickCaptureBlock,
  shopifyStandIn,
  Storefront,
  type ConsentMode,
  type StorefrontOptions,
} from "./server";
import { VisitLog, VISITOR_COOKIE } from "./visits";

// A stand-in shop that behaves as a Shopify storefront does from the shopper's side, on top of
// the cart (its Ajax API and the theme's cart forms) and app proxy of Storefront (server.ts):
// - visits and the visitor cookie (visits.ts): every page view is recorded, and an order learns
//   the landing page of the visit that checked out and the browser's journey;
// - theme pages (home, product, cart) with the app embed when it is on, and Shopify's checkout
//   and thank-you pages, where only web pixels run;
// - the web pixel in the browser (pixel-runtime.ts): its real bundle in a Web Worker, handed
//   the settings the app saved and the page's events; checkout_completed on the thank-you page;
// - a checkout from the cart, whichever way its lines were put there (cart_token, the cart's
//   lines and attributes go to the order), or an accelerated one, Buy it now, which leaves the
//   cart out (the posted variant only; no cart_token, no attributes); a paid cart checkout
//   leaves the browser with a new cart; a discount link (/discount/CODE) applies its code to the
//   next checkout.
// The order itself is made by `placeOrder` (the Shopify stand-in), which is told all of this.

export interface ShopOptions extends StorefrontOptions {
  /** Now, for visits; the arena ages the records instead of moving it. */
  clock?: () => number;
  /** The app embed is switched on in the theme (default true). */
  embed?: boolean;
  /** The app's web pixel as Shopify runs it for this shop; null: the shop has none connected. */
  pixel: { id: string; bundle: string; settings: Record<string, string> } | null;
  /** The tag parameters the app saved for the storefront (the embed's configuration). */
  tagParams?: string[];
  consent?: ConsentMode;
  /** Makes the order in Shopify for a paid checkout, and tells its id and name. */
  placeOrder: (checkout: PaidCheckout) => Promise<PlacedOrder> | PlacedOrder;
}

export interface PlacedOrder {
  id: string;
  name: string;
}

export interface Checkout {
  token: string;
  /** The cart's full token (cookie value, decoded); null for Buy it now. */
  cartToken: string | null;
  lines: Line[];
  discountCode: string | null;
  visitor: string | null;
  order: PlacedOrder | null;
  thankYouViews: number;
}

/** What Shopify knows of a checkout when it is paid: everything an orders/create carries. */
export interface PaidCheckout {
  token: string;
  /** The bare cart token (orders/create's cart_token); null: not from a cart. */
  cartToken: string | null;
  /** The cart's attributes (the order's note_attributes). */
  attributes: Record<string, string>;
  lines: Line[];
  discountCode: string | null;
  /** The first page of the visit that checked out (path and query); null: no visit known. */
  landingSite: string | null;
  /** The browser's first visit within 30 days and its last one, oldest first. */
  journey: { landingPage: string; occurredAt: Date }[];
  /** Where the paying browser connected from, and its user agent (browser_ip, client_details). */
  browserIp: string;
  userAgent: string | null;
}

const DISCOUNT_COOKIE = "discount_code";
/** Between the order's creation and the thank-you page: Shopify's payment processing screen. */
const PAYMENT_PROCESSING_MS = 1_100;
const CHECKOUT_PATH = /^\/checkouts\/cn\/([A-Za-z0-9_-]+)(\/pay|\/thank-you)?$/;

export class ShopStorefront extends Storefront {
  readonly visits: VisitLog;
  readonly checkouts = new Map<string, Checkout>();
  private readonly embed: boolean;

  constructor(private readonly shopOptions: ShopOptions) {
    super(shopOptions);
    this.visits = new VisitLog(shopOptions.clock);
    this.embed = shopOptions.embed ?? true;
    this.settings = {
      root: "/",
      consent: shopOptions.consent ?? "not-required",
      ...(shopOptions.tagParams && { storefrontConfig: { tagParams: shopOptions.tagParams } }),
    };
  }

  protected override async route(
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
    body: string,
    cartCookie: string | undefined,
  ): Promise<boolean> {
    const method = request.method ?? "GET";
    const path = url.pathname;
    const cookies = parseCookies(request.headers.cookie);
    if (method === "GET" && path.startsWith("/cdn/wpm/")) return this.runtimeAsset(response, path);
    if (method === "GET" && path.startsWith("/discount/")) {
      const code = decodeURIComponent(path.slice("/discount/".length));
      appendCookie(response, `${DISCOUNT_COOKIE}=${encodeURIComponent(code)}; Path=/; SameSite=Lax`);
      const to = url.searchParams.get("redirect") ?? "/";
      return redirect(response, /^\/(?![/\\])/.test(to) ? to : "/");
    }
    if (method === "POST" && path === "/checkout") {
      const cart = this.cartByCookie(cartCookie);
      if (!cart || cart.items.length === 0) return redirect(response, "/cart");
      return this.startCheckout(response, cookies, cart.token, linesOf(cart));
    }
    if (method === "POST" && path === "/checkouts/buy-now") {
      // Shop Pay's Buy it now: a checkout of the posted variant, made without the shopper's cart
      // (the posted item is read as the cart reads one, into a cart of its own).
      const alone = emptyCart("buy-it-now");
      try {
        addItems(alone, [await cartParams(request.headers["content-type"], body)], "id");
      } catch (error) {
        if (!(error instanceof CartRefusal)) throw error;
        sendCartReply(response, refused(error, false));
        return true;
      }
      return this.startCheckout(response, cookies, null, linesOf(alone));
    }
    const checkoutPath = CHECKOUT_PATH.exec(path);
    if (checkoutPath) {
      const checkout = this.checkouts.get(checkoutPath[1]!);
      if (!checkout) return notFound(response);
      if (checkoutPath[2] === "/pay" && method === "POST") return this.pay(request, response, checkout, cookies);
      if (method !== "GET") return notFound(response);
      this.pageView(request, response, url);
      if (checkoutPath[2] === "/thank-you") {
        if (!checkout.order) return redirect(response, `/checkouts/cn/${checkout.token}`);
        checkout.thankYouViews += 1;
        // Shopify publishes checkout_completed once, on the thank-you page's first view.
        const events = checkout.thankYouViews === 1 ? [this.checkoutCompleted(checkout)] : [];
        return this.render(response, "Thank you", thankYouMain(checkout.order), false, events);
      }
      const subtotal = subtotalOf(checkout.lines);
      return this.render(response, "Checkout", checkoutMain(checkout.token, subtotal, checkout.discountCode), false);
    }
    if (method !== "GET" || path.startsWith("/cdn/") || path.startsWith("/apps/")) return false;
    this.pageView(request, response, url);
    if (path === "/cart") {
      const cart = this.cartByCookie(cartCookie);
      return this.render(response, "Cart", cartMain(cart ? linesOf(cart) : []), true);
    }
    return this.render(response, PRODUCT_VARIANT.productTitle, productMain(), true);
  }

  /** The page view, recorded in the visit of the visitor its cookie names (set on its first page). */
  private pageView(request: IncomingMessage, response: ServerResponse, url: URL): void {
    let visitor = parseCookies(request.headers.cookie)[VISITOR_COOKIE];
    if (!visitor) {
      visitor = randomUUID();
      // Not HttpOnly: page scripts read it, as they read Shopify's.
      appendCookie(response, `${VISITOR_COOKIE}=${visitor}; Path=/; Max-Age=31536000; SameSite=Lax`);
    }
    this.visits.pageView(visitor, url.pathname + url.search);
  }

  private startCheckout(
    response: ServerResponse,
    cookies: Record<string, string>,
    cartToken: string | null,
    lines: Line[],
  ): true {
    const token = randomBytes(16).toString("hex");
    const code = cookies[DISCOUNT_COOKIE];
    this.checkouts.set(token, {
      token,
      cartToken,
      lines: lines.map((line) => ({ ...line })),
      discountCode: code ? decodeURIComponent(code) : null,
      visitor: cookies[VISITOR_COOKIE] ?? null,
      order: null,
      thankYouViews: 0,
    });
    return redirect(response, `/checkouts/cn/${token}`);
  }

  private async pay(
    request: IncomingMessage,
    response: ServerResponse,
    checkout: Checkout,
    cookies: Record<string, string>,
  ): Promise<true> {
    if (!checkout.order) {
      const visitor = cookies[VISITOR_COOKIE] ?? checkout.visitor;
      const visit = visitor ? this.visits.current(visitor) : null;
      // The cart's attributes as they are when the shopper pays: what Shopify copies to the order.
      const cart = checkout.cartToken ? this.carts.get(checkout.cartToken) : undefined;
      checkout.order = await this.shopOptions.placeOrder({
        token: checkout.token,
        cartToken: checkout.cartToken ? checkout.cartToken.split("?")[0]! : null,
        attributes: { ...(cart?.attributes ?? {}) },
        lines: checkout.lines,
        discountCode: checkout.discountCode,
        landingSite: visit?.landingPage ?? null,
        journey: (visitor ? this.visits.journey(visitor) : []).map((v) => ({
          landingPage: v.landingPage,
          occurredAt: new Date(v.startedAt),
        })),
        browserIp: this.addressOf(request),
        userAgent: request.headers["user-agent"] ?? null,
      });
      // Shopify's checkout processes the payment (a second or more) before the thank-you page.
      await new Promise((resolve) => setTimeout(resolve, PAYMENT_PROCESSING_MS));
      if (checkout.cartToken) {
        // The cart became an order: the browser starts a new one.
        appendCookie(
          response,
          `cart=${encodeURIComponent(this.newCartToken())}; Path=/; SameSite=Lax; Max-Age=1209600`,
        );
      }
      if (checkout.discountCode) appendCookie(response, `${DISCOUNT_COOKIE}=; Path=/; Max-Age=0`);
    }
    return redirect(response, `/checkouts/cn/${checkout.token}/thank-you`);
  }

  /** checkout_completed as Shopify publishes it to pixels: the checkout's token, attributes and order. */
  private checkoutCompleted(checkout: Checkout): PageEvent {
    const cart = checkout.cartToken ? this.carts.get(checkout.cartToken) : undefined;
    const subtotal = subtotalOf(checkout.lines);
    return {
      name: "checkout_completed",
      data: {
        checkout: {
          token: checkout.token,
          currencyCode: "USD",
          subtotalPrice: { amount: Number(subtotal), currencyCode: "USD" },
          attributes: Object.entries(cart?.attributes ?? {}).map(([key, value]) => ({ key, value })),
          order: { id: `gid://shopify/OrderIdentity/${checkout.order!.id}`, customer: null },
        },
      },
    };
  }

  private render(
    response: ServerResponse,
    title: string,
    main: string,
    theme: boolean,
    events: PageEvent[] = [],
  ): true {
    const pixel = this.shopOptions.pixel;
    const html = page({
      title,
      header: shopifyStandIn(this.settings, this.shop),
      // Theme app embeds run on the theme's pages, never in checkout.
      block:
        theme && this.embed
          ? renderClickCaptureBlock(readFileSync(BLOCK_FILE, "utf8"), {
              assetUrl: ASSET_PATH,
              storefrontConfig: this.settings.storefrontConfig,
              blockSettings: this.settings.blockSettings,
            })
          : "",
      pixels: pixel ? runtimeConfigHtml([{ id: pixel.id, settings: pixel.settings }], events) : "",
      main,
    });
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" });
    response.end(html);
    return true;
  }

  private runtimeAsset(response: ServerResponse, path: string): true {
    const pixel = this.shopOptions.pixel;
    const script =
      path === RUNTIME_PATH
        ? runtimeScript()
        : path === SANDBOX_PATH
          ? sandboxScript()
          : pixel && path === `${BUNDLE_PATH}${encodeURIComponent(pixel.id)}.js`
            ? pixel.bundle
            : null;
    if (script === null) return notFound(response);
    response.writeHead(200, { "Content-Type": "application/javascript; charset=utf-8", "Cache-Control": "no-store" });
    response.end(script);
    return true;
  }
}

/** The lines' total, to the cent (prices are whole cents). */
export function subtotalOf(lines: readonly Line[]): string {
  const cents = lines.reduce((sum, line) => sum + Math.round(Number(line.price) * 100) * line.quantity, 0);
  return (cents / 100).toFixed(2);
}

function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0) out[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return out;
}

function redirect(response: ServerResponse, location: string): true {
  response.writeHead(302, { Location: location, "Cache-Control": "no-store" });
  response.end();
  return true;
}

function notFound(response: ServerResponse): true {
  response.writeHead(404, { "Content-Type": "text/plain" });
  response.end("Not found");
  return true;
}
