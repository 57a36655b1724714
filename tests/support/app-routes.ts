import * as ordersCreate from "../../app/routes/webhooks.orders.create";
import * as ordersCancelled from "../../app/routes/webhooks.orders.cancelled";
import * as refundsCreate from "../../app/routes/webhooks.refunds.create";
import * as appUninstalled from "../../app/routes/webhooks.app.uninstalled";
import * as scopesUpdate from "../../app/routes/webhooks.app.scopes_update";
import * as shopRedact from "../../app/routes/webhooks.shop.redact";
import * as customersRedact from "../../app/routes/webhooks.customers.redact";
import * as dataRequest from "../../app/routes/webhooks.customers.data_request";
import * as proxyTouch from "../../app/routes/proxy.touch";
import { serveRoutes } from "./route-server";

/** The app's public routes: webhooks at the paths shopify.app.toml subscribes them to, and the app proxy. */
export function servePublicRoutes() {
  return serveRoutes({
    "/proxy/touch": proxyTouch,
    "/webhooks/orders/create": ordersCreate,
    "/webhooks/orders/cancelled": ordersCancelled,
    "/webhooks/refunds/create": refundsCreate,
    "/webhooks/app/uninstalled": appUninstalled,
    "/webhooks/app/scopes_update": scopesUpdate,
    "/webhooks/shop/redact": shopRedact,
    "/webhooks/customers/redact": customersRedact,
    "/webhooks/customers/data_request": dataRequest,
  });
}
