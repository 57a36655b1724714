import { InvalidHmacError, type Shopify } from "@shopify/shopify-api";

// Shopify's app proxy signature, checked by the library's own validator (the one
// authenticate.public.appProxy calls) and nothing more. That function also loads the shop's
// offline session and refreshes its token when it is about to expire: for every storefront
// call, a database read the touch does not need, and, inside the five minutes before expiry,
// one refresh per call (each revoking the one before). The app's proxy routes need only to know
// that Shopify sent the call.

/**
 * True when the query's `signature` is Shopify's over the rest of it. A missing signature, a
 * repeated single-value parameter or a signature that does not match is false; the timestamp's
 * freshness is the caller's to check (touch-input.ts's readProxyQuery, with a reason).
 */
export async function appProxySignatureValid(api: Pick<Shopify, "utils">, query: URLSearchParams): Promise<boolean> {
  try {
    return await api.utils.validateHmac(query, { signator: "appProxy" });
  } catch (error) {
    if (error instanceof InvalidHmacError) return false;
    throw error;
  }
}
