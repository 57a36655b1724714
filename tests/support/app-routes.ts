import * as appUninstalled from "../../app/routes/webhooks.app.uninstalled";
import * as scopesUpdate from "../../app/routes/webhooks.app.scopes_update";
import * as shopRedact from "../../app/routes/webhooks.shop.redact";
import * as customersRedact from "../../app/routes/webhooks.customers.redact";
import * as dataRequest from "../../app/routes/webhooks.customers.data_request";
import * as proxyTouch from "../../app/routes/proxy.touch";
import * as proxyPixel from "../../app/routes/proxy.pixel";
import { intakeLanes } from "../../app/verification/intake-lanes.server";
import { afterAll, beforeAll, expect } from "vitest";
import { saveSettings } from "../../app/settings/shop-settings.server";
import type { SettingsInput } from "../../app/settings/settings-schema";
import { serveRoutes, type RouteServer } from "./route-server";

const PUBLIC_ROUTES = {
  "/proxy/touch": proxyTouch,
  "/proxy/pixel": proxyPixel,
  "/webhooks/app/uninstalled": appUninstalled,
  "/webhooks/app/scopes_update": scopesUpdate,
  "/webhooks/shop/redact": shopRedact,
  "/webhooks/customers/redact": customersRedact,
  "/webhooks/customers/data_request": dataRequest,
};

/**
 * The app's public routes: webhooks at the paths shopify.app.toml subscribes them to, and the
 * app proxy. Intake topics are answered by their Node lanes, as the server (server.mjs) answers them.
 */
export function servePublicRoutes() {
  return serveRoutes(PUBLIC_ROUTES, intakeLanes);
}

export interface PublicRoutesSuite {
  /** The served routes' base URL, once beforeAll has started them. */
  readonly url: string;
  /** A new shop with the click service configured (its settings saved), named `<prefix>-N`. */
  newShop(settings?: Partial<SettingsInput>): Promise<string>;
}

/**
 * The public routes for the test file that calls it, over real HTTP: served before its tests and
 * closed after them, as the app proxy's and the webhooks' suites each need them.
 */
export function usePublicRoutes(shopPrefix: string): PublicRoutesSuite {
  let server: RouteServer | undefined;
  let shopNumber = 0;
  beforeAll(async () => {
    server = await servePublicRoutes();
  });
  afterAll(() => server?.close());
  return {
    get url() {
      if (!server) throw new Error("the routes are served in beforeAll");
      return server.url;
    },
    async newShop(settings = {}) {
      shopNumber += 1;
      const shop = `${shopPrefix}-${shopNumber}.myshopify.com`;
      const saved = await saveSettings(shop, {
        clickServiceUrl: "https://clicks.example.com",
        apiKey: "ck_live_abc123",
        ...settings,
      });
      expect(saved.ok).toBe(true);
      return shop;
    },
  };
}
