import { ApiVersion } from "@shopify/shopify-api";

/** The Admin API version every call and webhook subscription of the app uses (shopify.app.toml says the same). */
export const apiVersion = ApiVersion.October26;
