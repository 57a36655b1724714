import * as appUninstalled from "../../app/routes/webhooks.app.uninstalled";
import * as scopesUpdate from "../../app/routes/webhooks.app.scopes_update";
import * as shopRedact from "../../app/routes/webhooks.shop.redact";
import * as customersRedact from "../../app/routes/webhooks.customers.redact";
import * as dataRequest from "../../app/routes/webhooks.customers.data_request";
import * as proxyTouch from "../../app/routes/proxy.touch";
import * as proxyPixel from "../../app/routes/proxy.pixel";
import { intakeLanes } from "../../app/verification/intake-lanes.server";
import { serveRoutes } from "./route-server";

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
