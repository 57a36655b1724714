import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { APP_PROXY_APP_PATH, APP_PROXY_PREFIX, APP_PROXY_SUBPATH } from "../../app/attribution/cart-attributes";
import { listen } from "../listen";
import { signedProxyQuery } from "./app-proxy";
import { emptyCart, type Cart } from "./cart";
import { cartRoute, replyToCart, sendCartReply, type CartRoute } from "./cart-api";
import { cartAttributesUpdate, STOREFRONT_API_PATH, standardActionsScript } from "./standard-actions";

// A local stand-in for a Shopify storefront, just faithful enough to run the click-capture
// app embed for real in Chromium:
// - pages render the app embed block exactly as its liquid outputs it (renderClickCaptureBlock);
// - a `window.Shopify` like the one content_for_header defines (routes.root, and the Customer
//   Privacy API in the states a shop can be in), and Shopify.actions.updateCart for cart
//   attributes (below);
// - Shopify's Ajax Cart API, all of it a theme or an extension calls (cart.js, cart/add.js,
//   cart/change.js, cart/update.js, cart/clear.js), and the theme's cart form posts, answered
//   from one cart model (cart-api.ts, cart.ts): the script's cart.js read and its update.js
//   write, which MERGES the given attributes into the cart's (a key whose value is "" or null is
//   removed), among them; the cart is identified by the `cart` cookie, TOKEN?key=..., as
//   Shopify's now is (made by the first cart request when there is none), and a checkout
//   leaves the browser with a different cart;
// - the app proxy: {root}apps/tag-guard/* is forwarded, as Shopify does, to the configured app
//   URL + /proxy/* with Shopify's signed query (sandbox/storefront/app-proxy.ts) and the app's
//   answer goes back to the browser; with no app configured the call is recorded and answered
//   202. Every proxy call is recorded (`proxyCalls`).
// - Shopify.actions.updateCart({attributes}) as documented for standard storefront actions
//   (sandbox/storefront/standard-actions.ts): the event first, then the whole set replaced.
// Every request is logged so tests can count what the page asked for. Used by the browser tests
// (tests/e2e/storefront.test.ts) and by the demo's storefront step (sandbox/demo/storefront-capture.ts).

const here = path.dirname(fileURLToPath(import.meta.url));
export const EXTENSION_DIR = path.resolve(here, "../../extensions/click-capture");
export const BLOCK_FILE = path.join(EXTENSION_DIR, "blocks/click-capture.liquid");
export const ASSET_FILE = path.join(EXTENSION_DIR, "assets/click-capture.js");
export const ASSET_PATH = "/cdn/shop/extensions/click-capture/assets/click-capture.js";

// ---------------------------------------------------------------------------------------
// The block's liquid, rendered. Only the constructs the block actually uses are supported; any
// other liquid left over makes rendering throw, so the block cannot drift from this stand-in.

/** The block's one `{% liquid %}` program, whitespace-normalised. */
export const EXPECTED_LIQUID_PROGRAM = [
  "assign tag_params = app.metafields.tag_guard.storefront_config.value.tagParams",
  "if tag_params == blank",
  `assign tag_params_json = '["tag"]'`,
  "else",
  "assign tag_params_json = tag_params | json",
  "endif",
].join("\n");

const escapeLiquid = (value: string) =>
  value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");

const isBlank = (value: unknown) =>
  value === undefined ||
  value === null ||
  value === false ||
  (typeof value === "string" && value.trim() === "") ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0);

export interface BlockContext {
  /** What `'click-capture.js' | asset_url` returns. */
  assetUrl: string;
  /** The parsed JSON value of app.metafields.tag_guard.storefront_config (undefined: not set). */
  storefrontConfig?: unknown;
  /** The block's settings as the merchant set them in the theme editor; unset ones take the schema's default. */
  blockSettings?: Record<string, unknown>;
}

export function renderClickCaptureBlock(liquid: string, context: BlockContext): string {
  const schema = /\{%-?\s*schema\s*-?%\}([\s\S]*?)\{%-?\s*endschema\s*-?%\}/.exec(liquid);
  const settings =
    (JSON.parse(schema?.[1] ?? "{}") as { settings?: { id: string; default?: unknown }[] }).settings ?? [];
  let rest = liquid
    .replace(/\{%-?\s*comment\s*-?%\}[\s\S]*?\{%-?\s*endcomment\s*-?%\}/g, "")
    .replace(/\{%-?\s*schema\s*-?%\}[\s\S]*?\{%-?\s*endschema\s*-?%\}/g, "");
  const program = /\{%-?\s*liquid\s+([\s\S]*?)\s*-?%\}/.exec(rest);
  if (!program) throw new Error("click-capture.liquid: expected one {% liquid %} block");
  const normalised = program[1]!
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .join("\n");
  if (normalised !== EXPECTED_LIQUID_PROGRAM) {
    throw new Error(`click-capture.liquid changed; update the stand-in renderer:\n${normalised}`);
  }
  rest = rest.replace(program[0], "");

  const config = context.storefrontConfig as { tagParams?: unknown } | undefined;
  const tagParams = config && typeof config === "object" ? config.tagParams : undefined;
  const tagParamsJson = isBlank(tagParams) ? '["tag"]' : JSON.stringify(tagParams);

  const outputs: Record<string, string> = {
    "'click-capture.js' | asset_url": context.assetUrl,
    "tag_params_json | escape": escapeLiquid(tagParamsJson),
  };
  // Liquid prints a checkbox as true or false.
  for (const setting of settings)
    outputs[`block.settings.${setting.id}`] = String(context.blockSettings?.[setting.id] ?? setting.default);
  rest = rest.replace(/\{\{-?\s*([\s\S]*?)\s*-?\}\}/g, (_, expression: string) => {
    const value = outputs[expression.trim()];
    if (value === undefined) throw new Error(`click-capture.liquid: unsupported output {{ ${expression} }}`);
    return value;
  });
  if (/\{\{|\{%/.test(rest)) throw new Error(`click-capture.liquid: unsupported liquid left: ${rest}`);
  return rest.trim();
}

// ---------------------------------------------------------------------------------------
// The storefront.

/** How the shop's Customer Privacy API looks to the page. */
export type ConsentMode =
  | "not-required" // API loaded; consent not required for this visitor (marketingAllowed() is true)
  | "granted" // API loaded; consent required and given
  | "denied" // API loaded; consent required and not (yet) given; window.__grantConsent() accepts the banner
  | "lazy-denied" // API not loaded yet; Shopify.loadFeatures loads it (consent required, not given)
  | "lazy-granted" // API not loaded yet; Shopify.loadFeatures loads it (consent required and given)
  | "lazy-error" // API not loaded yet and loadFeatures reports an error
  | "absent"; // no Shopify consent machinery on the page at all

export interface PageSettings {
  /** Shopify.routes.root: "/" or a locale prefix such as "/fr/". */
  root: string;
  consent: ConsentMode;
  /** app.metafields.tag_guard.storefront_config value (undefined: merchant never saved settings). */
  storefrontConfig?: unknown;
  /** The app embed's settings in the theme editor (unset: the schema's defaults). */
  blockSettings?: Record<string, unknown>;
  /** Raw replacement for the whole block HTML (hostile configuration tests). */
  blockHtml?: string;
}

export interface LoggedRequest {
  method: string;
  path: string;
  body: string;
  cart: string | null;
}

export type Failure = "none" | "500" | "network";

/** Where the app proxy forwards to, and the secret it signs with. */
export interface AppProxyTarget {
  /** The app's base URL; calls go to {appUrl}/proxy/... */
  appUrl: string;
  apiSecret: string;
}

export interface StorefrontOptions {
  /** The shop's myshopify domain (window.Shopify.shop, the proxy's `shop` parameter). */
  shop?: string;
  appProxy?: AppProxyTarget;
}

/** One request to {root}apps/tag-guard/*, as the storefront received it. */
export interface ProxyCall {
  method: string;
  /** The path below the proxy's subpath, e.g. "/touch". */
  path: string;
  /** The storefront's own query string ("" when none), before Shopify's signed parameters. */
  query: string;
  body: string;
  /** The request's raw `cart` cookie (Shopify never forwards cookies to the app). */
  cart: string | null;
  /** The URL it was forwarded to, signed query included; null when only recorded. */
  forwardedTo: string | null;
  /** What the browser was answered; undefined while the call is in flight. */
  status?: number;
}

/** How the proxy answers when no app is configured. */
export type ProxyAnswer = "accept" | "hang";

/** Adds a Set-Cookie to the answer, keeping any set before it. */
export function appendCookie(response: ServerResponse, cookie: string): void {
  const set = response.getHeader("Set-Cookie");
  response.setHeader("Set-Cookie", [...(Array.isArray(set) ? set : set === undefined ? [] : [String(set)]), cookie]);
}

/** The `window.Shopify` a page's content_for_header defines, in the consent state `settings` says. */
export function shopifyStandIn(settings: PageSettings, shop: string): string {
  const lines = [
    `window.Shopify = { shop: ${JSON.stringify(shop)}, routes: { root: ${JSON.stringify(settings.root)} } };`,
  ];
  const api = (allowed: string) =>
    `{ marketingAllowed: function () { return ${allowed}; }, analyticsProcessingAllowed: function () { return ${allowed}; } }`;
  switch (settings.consent) {
    case "not-required":
    case "granted":
      lines.push(`Shopify.customerPrivacy = ${api("true")};`);
      lines.push("Shopify.loadFeatures = function (features, callback) { callback(); };");
      break;
    case "denied":
      lines.push("window.__consent = false;");
      lines.push(`Shopify.customerPrivacy = ${api("window.__consent")};`);
      lines.push("Shopify.loadFeatures = function (features, callback) { callback(); };");
      // What Shopify's banner does when the visitor accepts: consent recorded, then the event.
      lines.push(
        "window.__grantConsent = function () { window.__consent = true; document.dispatchEvent(new CustomEvent('visitorConsentCollected', { detail: { analyticsAllowed: true, marketingAllowed: true, preferencesAllowed: true, saleOfDataAllowed: true } })); };",
      );
      break;
    case "lazy-denied":
    case "lazy-granted": {
      const allowed = settings.consent === "lazy-granted" ? "true" : "false";
      lines.push(
        `Shopify.loadFeatures = function (features, callback) { window.__loadedFeatures = features; setTimeout(function () { Shopify.customerPrivacy = ${api(allowed)}; callback(); }, 0); };`,
      );
      break;
    }
    case "lazy-error":
      lines.push(
        "Shopify.loadFeatures = function (features, callback) { setTimeout(function () { callback(new Error('failed to load')); }, 0); };",
      );
      break;
    case "absent":
      break;
  }
  return lines.join("\n");
}

export class Storefront {
  readonly requests: LoggedRequest[] = [];
  readonly carts = new Map<string, Cart>();
  /** Every call to the app proxy, in arrival order. */
  readonly proxyCalls: ProxyCall[] = [];
  settings: PageSettings = { root: "/", consent: "not-required" };
  /** Makes the cart endpoints fail: HTTP 500, or the connection dropped (a network error). */
  failure: Failure = "none";
  /** With no app configured: answer 202 at once, or never answer. */
  proxyAnswer: ProxyAnswer = "accept";
  /** Makes the Storefront API decline attribute updates (userErrors), as a cart can. */
  declineAttributeUpdates = false;
  appProxy: AppProxyTarget | null;
  readonly shop: string;
  private server: Server | null = null;
  private readonly held = new Set<ServerResponse>();
  private readonly waiters = new Set<() => void>();
  private readonly forwards = new AbortController();
  origin = "";

  constructor(private readonly options: StorefrontOptions = {}) {
    this.shop = options.shop ?? "tag-guard-test.myshopify.com";
    this.appProxy = options.appProxy ?? null;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        response.statusCode = 500;
        response.end(String(error));
      });
    });
    this.origin = (await listen(this.server)).url;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.forwards.abort();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  reset(settings: Partial<PageSettings> = {}): void {
    this.requests.length = 0;
    this.carts.clear();
    this.proxyCalls.length = 0;
    // Answered, as Shopify's proxy times out, never dropped: Chromium re-sends a request whose
    // reused connection closes before any answer, and it would arrive after the reset.
    for (const response of this.held) {
      response.writeHead(504);
      response.end();
    }
    this.held.clear();
    this.failure = "none";
    this.proxyAnswer = "accept";
    this.declineAttributeUpdates = false;
    this.appProxy = this.options.appProxy ?? null;
    this.settings = { root: "/", consent: "not-required", ...settings };
  }

  /**
   * Resolves once `count` proxy calls have arrived (and, with `answered`, been answered); rejects
   * after `timeoutMs` with what did arrive, so a missing call fails with a reason.
   */
  waitForProxyCalls(count: number, { answered = false, timeoutMs = 10_000 } = {}): Promise<ProxyCall[]> {
    const ready = () =>
      this.proxyCalls.length >= count && (!answered || this.proxyCalls.every((call) => call.status !== undefined));
    if (ready()) return Promise.resolve([...this.proxyCalls]);
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!ready()) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve([...this.proxyCalls]);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `expected ${count} proxy calls${answered ? " answered" : ""}, got ${JSON.stringify(this.proxyCalls)}`,
          ),
        );
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  url(pathAndQuery: string): string {
    return this.origin + pathAndQuery;
  }

  /** Requests to the Ajax Cart API (anything a script asked of the cart). */
  cartRequests(): LoggedRequest[] {
    return this.requests.filter((request) => cartRoute(request.path)?.json);
  }

  /** Checkout completed: the old cart is gone and the browser gets a new cart token. */
  newCartToken(): string {
    const token = `hWN${randomBytes(9).toString("hex")}?key=${randomBytes(8).toString("hex")}`;
    this.carts.set(token, emptyCart(token));
    return token;
  }

  cartByCookie(cookieValue: string | undefined): Cart | undefined {
    return cookieValue === undefined ? undefined : this.carts.get(decodeURIComponent(cookieValue));
  }

  pageHtml(): string {
    const block =
      this.settings.blockHtml ??
      renderClickCaptureBlock(readFileSync(BLOCK_FILE, "utf8"), {
        assetUrl: ASSET_PATH,
        storefrontConfig: this.settings.storefrontConfig,
        blockSettings: this.settings.blockSettings,
      });
    return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tag Guard test store</title>
<link rel="icon" href="data:,">
<script>
${shopifyStandIn(this.settings, this.shop)}
</script>
<script type="module">${standardActionsScript()}
</script>
<style>
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: #222; }
header { height: 64px; display: flex; align-items: center; padding: 0 24px; background: #f4f1ea; }
main { padding: 24px; max-width: 720px; }
.price { font-size: 24px; font-weight: 600; }
button { padding: 12px 20px; font: inherit; }
</style>
</head>
<body>
<header><strong>Tag Guard test store</strong></header>
<main>
<h1>Merino wool beanie</h1>
<p class="price">$29.00</p>
<p>Soft, warm, made to last. A product page standing in for a real theme.</p>
<button type="button">Add to cart</button>
</main>
${block}
</body>
</html>`;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://localhost");
    const proxyPath = new RegExp(
      `^(?:/[a-z]{2}(?:-[a-z]{2})?)?/${APP_PROXY_PREFIX}/${APP_PROXY_SUBPATH}(/.*)?$`,
      "i",
    ).exec(url.pathname);
    // The app proxy passes whatever it is sent on to the app, whose own limits answer it.
    const { body, tooLarge } = await readBody(request, proxyPath ? Infinity : MAX_BODY_BYTES);
    const cookieValue = /(?:^|;\s*)cart=([^;]*)/.exec(request.headers.cookie ?? "")?.[1];
    this.requests.push({ method: request.method ?? "GET", path: url.pathname, body, cart: cookieValue ?? null });

    if (url.pathname === ASSET_PATH) {
      response.writeHead(200, { "Content-Type": "application/javascript; charset=utf-8", "Cache-Control": "no-store" });
      response.end(readFileSync(ASSET_FILE));
      return;
    }

    if (proxyPath) return this.proxy(request, response, proxyPath[1] ?? "", url.search.slice(1), body, cookieValue);
    if (tooLarge) {
      response.writeHead(413, { "Content-Type": "application/json" });
      response.end(
        JSON.stringify({ status: 413, message: "Payload Too Large", description: `at most ${MAX_BODY_BYTES} bytes` }),
      );
      return;
    }

    if (url.pathname === STOREFRONT_API_PATH && request.method === "POST") return this.storefrontApi(response, body);

    const cart = cartRoute(url.pathname);
    if (cart) return this.cart(request, response, cart, body, cookieValue);

    if (await this.route(request, response, url, body, cookieValue)) return;
    if (request.method === "GET" && !url.pathname.startsWith("/cdn/")) {
      response.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" });
      response.end(this.pageHtml());
      return;
    }
    response.writeHead(404);
    response.end();
  }

  /** The cart's endpoints; `failure` makes the Ajax API's (the script's calls) fail. */
  private async cart(
    request: IncomingMessage,
    response: ServerResponse,
    route: CartRoute,
    body: string,
    cookieValue: string | undefined,
  ): Promise<void> {
    if (route.json && this.failure === "network") {
      request.socket.destroy();
      return;
    }
    if (route.json && this.failure === "500") {
      return sendCartReply(response, { status: 500, json: { status: 500, message: "Internal Server Error" } });
    }
    const reply = await replyToCart(
      route,
      { method: request.method ?? "GET", contentType: request.headers["content-type"], body },
      () => this.ensureCart(cookieValue, response),
    );
    sendCartReply(response, reply);
  }

  /**
   * What a fuller storefront serves beyond the cart API and the app proxy (pages, checkout):
   * true when it answered. This one serves the same page for every other GET.
   */
  protected route(
    _request: IncomingMessage,
    _response: ServerResponse,
    _url: URL,
    _body: string,
    _cookieValue: string | undefined,
  ): Promise<boolean> | boolean {
    return false;
  }

  /** Shopify's app proxy: forward signed to the app, or record and answer 202 when there is none. */
  private async proxy(
    request: IncomingMessage,
    response: ServerResponse,
    subpath: string,
    query: string,
    body: string,
    cookieValue: string | undefined,
  ): Promise<void> {
    const method = request.method ?? "GET";
    const call: ProxyCall = { method, path: subpath, query, body, cart: cookieValue ?? null, forwardedTo: null };
    this.proxyCalls.push(call);
    this.notify();
    const answer = (status: number, type: string, content: Buffer | string) => {
      call.status = status;
      response.writeHead(status, { "Content-Type": type });
      response.end(content);
      this.notify();
    };
    if (!this.appProxy) {
      if (this.proxyAnswer === "hang") {
        this.held.add(response);
        return;
      }
      return answer(202, "application/json", JSON.stringify({ accepted: true }));
    }
    const signed = signedProxyQuery(query, { shop: this.shop, apiSecret: this.appProxy.apiSecret });
    call.forwardedTo = `${this.appProxy.appUrl.replace(/\/$/, "")}${APP_PROXY_APP_PATH}${subpath}?${signed}`;
    const headers: Record<string, string> = {};
    for (const name of ["content-type", "accept", "user-agent"]) {
      const value = request.headers[name];
      if (typeof value === "string") headers[name] = value;
    }
    headers["x-forwarded-for"] = this.addressOf(request);
    try {
      const forwarded = await fetch(call.forwardedTo, {
        method,
        headers,
        body: method === "GET" || method === "HEAD" ? undefined : body,
        redirect: "manual",
        signal: this.forwards.signal,
      });
      const content = Buffer.from(await forwarded.arrayBuffer());
      answer(forwarded.status, forwarded.headers.get("content-type") ?? "text/plain", content);
    } catch (error) {
      // What a shopper sees when the app cannot be reached through the proxy.
      if (!response.headersSent) answer(502, "text/plain", `app proxy: ${(error as Error).message}`);
    }
  }

  private notify(): void {
    for (const check of [...this.waiters]) check();
  }

  private storefrontApi(response: ServerResponse, body: string): void {
    const { status, payload } = cartAttributesUpdate(body, (token) => this.carts.get(token), {
      decline: this.declineAttributeUpdates,
    });
    response.writeHead(status, { "Content-Type": "application/json" });
    response.end(JSON.stringify(payload));
  }

  /**
   * The address Shopify sees a request come from. On this machine every browser connects from
   * 127.0.0.1, so a test can give each browser (known by its user agent, which its pages, its
   * web workers and its extensions' requests all carry) an address of its own: `addresses`.
   * Nothing in a browser can change it, as nothing in a browser changes the shopper's address.
   */
  readonly addresses = new Map<string, string>();

  addressOf(request: IncomingMessage): string {
    const agent = request.headers["user-agent"];
    return (agent && this.addresses.get(agent)) ?? request.socket.remoteAddress ?? "127.0.0.1";
  }

  /** The cart named by the cookie, or a new one (and its cookie), as Shopify does. */
  private ensureCart(cookieValue: string | undefined, response: ServerResponse): Cart {
    const existing = this.cartByCookie(cookieValue);
    if (existing) return existing;
    const token = this.newCartToken();
    appendCookie(response, `cart=${encodeURIComponent(token)}; Path=/; SameSite=Lax; Max-Age=1209600`);
    return this.carts.get(token)!;
  }
}

/** What the stand-in reads of a request's body: a theme's or a script's posts are small. */
const MAX_BODY_BYTES = 64 * 1024;

/** The request's body as text, or none past `limit` bytes (the rest is read and dropped). */
function readBody(request: IncomingMessage, limit: number): Promise<{ body: string; tooLarge: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    const done = () =>
      resolve({ body: size > limit ? "" : Buffer.concat(chunks).toString("utf8"), tooLarge: size > limit });
    request.on("end", done);
    request.on("error", done);
  });
}
