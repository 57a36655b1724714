// Loaded into the app server by tests/e2e/admin-settings.test.ts (node --import): sends the
// server's Shopify traffic (token exchange, Admin GraphQL) to the in-test Shopify stand-in.
// Uses its own variable, not SHOPIFY_STANDIN_URL, so nothing else in the app changes.
import { routeShopifyTrafficTo } from "../../app/shopify-standin-routing.server";

const target = process.env.TAG_GUARD_E2E_STANDIN_URL;
if (target) routeShopifyTrafficTo(target);
