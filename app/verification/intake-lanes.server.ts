import { nodeLane, type NodeLane } from "../webhooks/node-lane.server";
import { recordOrderDelivery, recordOrderEventDelivery } from "./intake.server";

// The intake topics' webhook paths (shopify.app.toml) and their lanes: the server (server.mjs)
// answers these before Remix, in development as in production; they have no Remix routes.
export const intakeLanes: Record<string, NodeLane> = {
  "/webhooks/orders/create": nodeLane("orders/create", recordOrderDelivery),
  "/webhooks/refunds/create": nodeLane("refunds/create", recordOrderEventDelivery),
  "/webhooks/orders/cancelled": nodeLane("orders/cancelled", recordOrderEventDelivery),
  "/webhooks/orders/edited": nodeLane("orders/edited", recordOrderEventDelivery),
};
