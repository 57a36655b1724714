import type { ShopifyAdmin } from "../../app/payouts/shopify-run-job.server";
import type { ShopifyStandin } from "../../sandbox/shopify/server";

/**
 * The Admin API as the worker gets it for a shop (its offline token), against the Shopify
 * stand-in: a token the stand-in issues with `scopes(shop)`, and GraphQL over HTTP at its version.
 */
export function standinAdmin(standin: () => ShopifyStandin, scopes: (shop: string) => string[]): ShopifyAdmin {
  return async (shop) => {
    const { url, apiVersion } = standin();
    const token = standin().issueToken(shop, { scope: scopes(shop) }).token;
    const graphql = (query: string, options?: { variables?: Record<string, unknown> }) =>
      fetch(`${url}/admin/api/${apiVersion}/graphql.json`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-shopify-access-token": token },
        body: JSON.stringify({ query, variables: options?.variables }),
      });
    return { ok: true, graphql };
  };
}
