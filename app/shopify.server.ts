import "@shopify/shopify-app-remix/adapters/node";
import { shopifyApi } from "@shopify/shopify-api";
import { AppDistribution, LogSeverity, shopifyApp } from "@shopify/shopify-app-remix/server";
import { env } from "./platform/env.server";
import { handleAuthorized } from "./lifecycle/shop-lifecycle.server";
import { logger, redact } from "./platform/logger.server";
import { checkingSessionTokenShop, requiringDatabase } from "./sessions/admin-request.server";
import { appProxySignatureValid } from "./sessions/app-proxy-signature.server";
import { RefreshingAheadStorage } from "./sessions/refresh-ahead.server";
import { SealedSessionStorage } from "./sessions/sealed-session-storage.server";
import { apiVersion } from "./shopify-admin/api-version";
import { offlineAdminFrom } from "./shopify-admin/offline-admin.server";
import { ensureEvidenceDefinition } from "./shopify-admin/orders.server";
import { connectPixelForShop } from "./pixel/connect.server";
import { readShopProfile } from "./shop-profile/shop-profile.server";
import { rememberingAdminLocale } from "./i18n/shop-language.server";
import { beginReconciliation } from "./reconciliation/reconciliation.server";
import { routeShopifyTrafficTo } from "./platform/shopify-standin-routing.server";
import { databaseAnswers } from "./database/availability.server";
import { sql } from "./database/sql.server";

const config = env();

// Local development and the demo only: env validation refuses this setting in production.
if (config.SHOPIFY_STANDIN_URL) routeShopifyTrafficTo(config.SHOPIFY_STANDIN_URL);

const severity = {
  silent: LogSeverity.Error,
  error: LogSeverity.Error,
  warn: LogSeverity.Warning,
  info: LogSeverity.Info,
  debug: LogSeverity.Debug,
} as const;

/** The app's settings for Shopify's library, but for the session storage (the bench's reference route uses them too). */
export const settings = {
  apiKey: config.SHOPIFY_API_KEY,
  apiSecretKey: config.SHOPIFY_API_SECRET,
  apiVersion,
  scopes: config.SCOPES.split(",").map((scope) => scope.trim()),
  appUrl: config.SHOPIFY_APP_URL,
  authPathPrefix: "/auth",
  distribution: AppDistribution.AppStore,
  future: { unstable_newEmbeddedAuthStrategy: true, expiringOfflineAccessTokens: true },
  hooks: {
    afterAuth: async ({ session, admin }) => {
      // A merchant who reinstalls within 48 hours (before shop/redact) picks up where they left off.
      await handleAuthorized(session.shop);
      // Orders Shopify never delivers are found by the sweep from this moment on.
      await beginReconciliation(session.shop);
      // The evidence metafield is app-owned: without a definition the merchant cannot see it.
      const defined = await ensureEvidenceDefinition(admin.graphql);
      if (!defined.ok)
        logger.warn("shopify.metafield_definition_failed", "could not define the hijack evidence metafield", {
          shop: session.shop,
          reason: defined.message,
        });
      // The web pixel is connected by the app, with no merchant step (and re-connected if gone).
      await connectPixelForShop(session.shop, admin.graphql);
      // The admin shows times in the shop's zone: Shopify's word on it, kept with the shop.
      await readShopProfile(session.shop, admin.graphql);
    },
  },
  logger: {
    level: severity[config.LOG_LEVEL],
    log: (level, message) => {
      if (config.LOG_LEVEL === "silent") return;
      const text = redact(message);
      if (level === LogSeverity.Error) logger.error("shopify.library", text);
      else if (level === LogSeverity.Warning) logger.warn("shopify.library", text);
      else logger.debug("shopify.library", text);
    },
  },
} satisfies Omit<Parameters<typeof shopifyApp>[0], "sessionStorage">;

// The library's own primitives on the same settings, for what the app does beside `authenticate`:
// an app proxy's signature checked without loading the shop's session, and the offline token
// refreshed ahead of the library, once per shop (sessions/refresh-ahead.server.ts).
const appUrl = new URL(settings.appUrl);
const api = shopifyApi({
  apiKey: settings.apiKey,
  apiSecretKey: settings.apiSecretKey,
  apiVersion: settings.apiVersion,
  scopes: settings.scopes,
  hostName: appUrl.host,
  hostScheme: appUrl.protocol === "http:" ? "http" : "https",
  isEmbeddedApp: true,
  logger: settings.logger,
});

// Access and refresh tokens sealed at rest (SETTINGS_ENCRYPTION_KEY), as the API key is. The
// storage is made at import and opens nothing then: the database client and the storage's look
// at the Session table begin on first use (tests/server/import.test.ts).
const storedSessions = new SealedSessionStorage(sql);
const shopify = shopifyApp({
  ...settings,
  sessionStorage: new RefreshingAheadStorage(storedSessions, async (shop, refreshToken) => {
    const { session } = await api.auth.refreshToken({ shop, refreshToken });
    return session;
  }),
});

export default shopify;
export const addDocumentResponseHeaders = shopify.addDocumentResponseHeaders;
export const authenticate = {
  ...shopify.authenticate,
  // A session token naming no shop, or another shop than the request, is a 401 here: the
  // library would throw (a 500) while looking its session up. A database that does not answer
  // is a 503 the admin explains, not the library's "not installed".
  // The admin's language is kept with the shop for the worker's words (decision 055).
  admin: rememberingAdminLocale(
    requiringDatabase(checkingSessionTokenShop(shopify.authenticate.admin), databaseAnswers),
  ),
};
export const unauthenticated = shopify.unauthenticated;
/**
 * Whether a forwarded query carries Shopify's app proxy signature, checked as the library's
 * authenticate.public.appProxy checks it, but without the shop's session: a storefront call
 * needs no token, so public traffic never loads one, nor sets off its refresh.
 */
export const hasAppProxySignature = (query: URLSearchParams) => appProxySignatureValid(api, query);
/** The shop's Admin client for background work, one token refresh per shop at a time. */
export const offlineAdmin = offlineAdminFrom(shopify.unauthenticated.admin);
export const login = shopify.login;
/** The sessions as stored: reading them here refreshes nothing (the library's loads do). */
export const sessionStorage = storedSessions;
