// What the app checks of an embedded admin request before Shopify's library authenticates it.
// The library answers both of these with a 500 where the request is simply not acceptable:
// - a session token whose `dest` is not a shop's domain: the library throws while it looks the
//   shop's session up (InvalidShopError, or a TypeError for a `dest` that is no URL);
// - an exit-iframe destination it does not trust: it throws a ShopifyError. (Before
//   shopify-app-remix 6 it sent the browser anywhere; it still lets any shop's admin through.)
// Here they get a 4xx. Nothing here verifies a token: the library does that for whatever passes.

/** A shop's permanent domain, as a session token's `dest` and the `shop` parameter name it. */
const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]{0,60}\.myshopify\.com$/;
const SHOPIFY_ADMIN = "admin.shopify.com";

/** The session token the library reads: the Authorization header's, else the id_token parameter. */
function sessionTokenOf(request: Request, url: URL): string | null {
  const header = request.headers.get("authorization");
  if (header) return header.replace("Bearer ", "");
  return url.searchParams.get("id_token");
}

/** A JWT's claims, unverified; null when it is not a JWT with a JSON object for claims. */
function unverifiedClaims(token: string): Record<string, unknown> | null {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8"));
    return claims && typeof claims === "object" && !Array.isArray(claims) ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The shop a token's `dest` names (`https://{shop}.myshopify.com`, nothing more); null otherwise. */
function shopOfDest(dest: unknown): string | null {
  if (typeof dest !== "string" || !URL.canParse(dest)) return null;
  const url = new URL(dest);
  const bare = url.protocol === "https:" && !url.port && !url.username && !url.password && !url.search;
  return bare && (url.pathname === "/" || url.pathname === "") && SHOP_DOMAIN.test(url.hostname) ? url.hostname : null;
}

/**
 * 401 for a request whose session token names no shop, or names another shop than the request's
 * own `shop` parameter; null for anything else (a token that is not a JWT at all included: the
 * library refuses it as it always has, 401 or the bounce page).
 */
export function sessionTokenRefusal(request: Request): Response | null {
  const url = new URL(request.url);
  const token = sessionTokenOf(request, url);
  if (!token) return null;
  const claims = unverifiedClaims(token);
  if (!claims) return null;
  const shop = shopOfDest(claims.dest);
  const named = url.searchParams.get("shop");
  if (shop && (named === null || named.toLowerCase() === shop)) return null;
  return new Response(null, { status: 401, statusText: "Unauthorized" });
}

/** The library's authenticate.admin, with the session token's shop checked first (sessionTokenRefusal). */
export function checkingSessionTokenShop<Authenticate extends (request: Request) => Promise<unknown>>(
  authenticateAdmin: Authenticate,
): Authenticate {
  return (async (request: Request) => {
    const refusal = sessionTokenRefusal(request);
    if (refusal) throw refusal;
    return authenticateAdmin(request);
  }) as Authenticate;
}

/**
 * The library's authenticate.admin, asked only while the database answers. Without it the
 * library cannot load the shop's session, and answers as if the app were not installed (a 410
 * that sends the merchant to reinstall); here the merchant is told what is wrong instead.
 */
export function requiringDatabase<Authenticate extends (request: Request) => Promise<unknown>>(
  authenticateAdmin: Authenticate,
  databaseAnswers: () => Promise<boolean>,
): Authenticate {
  return (async (request: Request) => {
    if (!(await databaseAnswers()))
      throw new Response("the app's database is unavailable", {
        // The admin layout's error boundary (routes/app.tsx) explains a 503.
        status: 503,
        statusText: "Service Unavailable",
        headers: { "retry-after": "30" },
      });
    return authenticateAdmin(request);
  }) as Authenticate;
}

/**
 * Where /auth/exit-iframe may send the browser: the app's own origin (a path of the app included),
 * Shopify's admin (https://admin.shopify.com), or the admin of the shop the request names
 * (https://{shop}.myshopify.com/admin...). Only https, on the default port, without credentials,
 * and only what the library's own redirect then renders (no whitespace, no "//" in the path).
 */
export function trustedExitIframeDestination(destination: string | null, appUrl: string, shop: string | null): boolean {
  if (!destination || /[\s\p{Cc}]/u.test(destination) || destination.includes("///")) return false;
  if (!URL.canParse(destination, appUrl)) return false;
  const url = new URL(destination, appUrl);
  if (url.protocol !== "https:" || url.username || url.password || /[/\\][/\\]/.test(url.pathname)) return false;
  if (url.origin === new URL(appUrl).origin) return true;
  if (url.port) return false;
  if (url.hostname === SHOPIFY_ADMIN) return true;
  const ownShop = shop !== null && SHOP_DOMAIN.test(shop) && url.hostname === shop;
  return ownShop && (url.pathname === "/admin" || url.pathname.startsWith("/admin/"));
}

/** 400 for an exit-iframe request whose destination is not trusted; null for any other request. */
export function exitIframeRefusal(
  request: Request,
  appUrl: string,
  exitIframePath = "/auth/exit-iframe",
): Response | null {
  const url = new URL(request.url);
  if (url.pathname !== exitIframePath) return null;
  if (trustedExitIframeDestination(url.searchParams.get("exitIframe"), appUrl, url.searchParams.get("shop")))
    return null;
  return new Response("exit-iframe goes only to this app or the shop's Shopify admin", {
    status: 400,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
  });
}
