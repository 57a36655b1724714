// The shop's Admin GraphQL client for background work (the verification worker), with a failed
// token refresh told apart from a shop the app has no access to.
//
// What unauthenticated.admin(shop) does in @shopify/shopify-app-remix 4.2.1 with
// future.expiringOfflineAccessTokens (helpers/ensure-offline-token-is-not-expired.mjs):
//  - no stored offline session: throws SessionNotFoundError;
//  - a session that expires within 5 minutes (or has expired) and has a refresh token: calls
//    api.auth.refreshToken (POST /admin/oauth/access_token, grant_type=refresh_token), STORES the
//    refreshed session, and builds the client on it. The refresh token's own expiry is not
//    checked first: the token endpoint decides;
//  - a refresh the endpoint refuses or that cannot reach it: throws a bare `Response` with status
//    500 and no body (the cause is dropped), except a 400 invalid_subject_token or an
//    InvalidJwtError, which are rethrown as they are;
//  - an expired session WITHOUT a refresh token: returned unchanged; every call then gets a 401;
//  - concurrent callers each refresh on their own, with the same refresh token.
// Shopify keeps one expiring token active per shop, so two refreshes racing leave one caller
// with a revoked token: calls for one shop share a single lookup here while one is in flight.
//
// Built from the configured app's unauthenticated.admin (app/shopify.server.ts holds the one
// instance), so that this folder never imports the module that composes it.
import { HttpResponseError, InvalidJwtError } from "@shopify/shopify-api";
import { SessionNotFoundError } from "@shopify/shopify-app-remix/server";
import type { AdminGraphql } from "./admin-client.server";

export type OfflineAdmin =
  | { ok: true; graphql: AdminGraphql }
  | { ok: false; retryable: boolean; reason: "no-session" | "refresh-failed"; message: string };

/** The shape of shopifyApp(...).unauthenticated.admin this module relies on. */
export type UnauthenticatedAdmin = (
  shop: string,
) => Promise<{ admin: { graphql: AdminGraphql }; session: { isExpired(): boolean } }>;

export function offlineAdminFrom(unauthenticatedAdmin: UnauthenticatedAdmin): (shop: string) => Promise<OfflineAdmin> {
  const inFlight = new Map<string, Promise<OfflineAdmin>>();
  return (shop) => {
    const pending = inFlight.get(shop);
    if (pending) return pending;
    const lookup = resolve(unauthenticatedAdmin, shop).finally(() => inFlight.delete(shop));
    inFlight.set(shop, lookup);
    return lookup;
  };
}

async function resolve(unauthenticatedAdmin: UnauthenticatedAdmin, shop: string): Promise<OfflineAdmin> {
  try {
    const { admin, session } = await unauthenticatedAdmin(shop);
    if (session.isExpired()) {
      return refreshFailed(
        "the stored offline access token has expired and came without a refresh token; the merchant must open the app to grant a new one",
      );
    }
    return { ok: true, graphql: admin.graphql };
  } catch (error) {
    if (error instanceof SessionNotFoundError) {
      return {
        ok: false,
        retryable: false,
        reason: "no-session",
        message: "the app has no offline access to the shop (no stored session: not installed, or uninstalled)",
      };
    }
    // The library's own answer to a failed refresh; anything else (the session store failing)
    // is not about the token and is left to the caller's fault handling.
    if (error instanceof Response || error instanceof HttpResponseError || error instanceof InvalidJwtError) {
      return refreshFailed(
        "refreshing the shop's expired offline access token failed (the token endpoint refused it or could not be reached); a later retry refreshes again, and the merchant opening the app grants a new token",
      );
    }
    throw error;
  }
}

function refreshFailed(message: string): OfflineAdmin {
  return { ok: false, retryable: true, reason: "refresh-failed", message };
}
