import { Prisma } from "@prisma/client";
import { readBoolean, sql } from "../database/sql.server";
import { connectPixelForShop } from "../pixel/connect.server";
import { getPublicSettings } from "../settings/shop-settings.server";
import { testConnection } from "../settings/test-connection.server";
import type { AdminGraphql } from "../shopify-admin/web-pixel.server";
import { Verification } from "../database/tables";

// The home page's setup guide, from real statuses checked at every visit: the click service's
// key (saved, and the same test as Settings' "Test connection"), the web pixel (connected, and
// re-connected here when it is gone), a first verified order. The embed's status is not here:
// only App Bridge knows it, in the browser (app/components/SetupGuide.tsx).

export interface SetupStatus {
  key:
    | { state: "missing" }
    | { state: "connected" }
    | { state: "rejected" }
    | { state: "unreachable"; message: string }
    | { state: "unusable" };
  pixel: { connected: true } | { connected: false; message: string };
  firstOrderVerified: boolean;
}

export async function getSetupStatus(shop: string, graphql: AdminGraphql): Promise<SetupStatus> {
  const settings = await getPublicSettings(shop);
  const [key, pixel, [verified]] = await Promise.all([
    settings ? keyStatus(shop) : Promise.resolve({ state: "missing" as const }),
    connectPixelForShop(shop, graphql),
    // Index (shop, outcome, createdAt): stops at the first.
    sql.rows<{ seen: unknown }>(Prisma.sql`
      SELECT EXISTS (
        SELECT 1 FROM ${Verification} WHERE ${Verification.shop} = ${shop} AND ${Verification.outcome} IN ('matched', 'hijacked')
      ) AS seen`),
  ]);
  return {
    key,
    pixel: pixel.connected ? { connected: true } : { connected: false, message: pixel.message },
    firstOrderVerified: readBoolean(verified?.seen),
  };
}

async function keyStatus(shop: string): Promise<SetupStatus["key"]> {
  const result = await testConnection(shop, {});
  switch (result.status) {
    case "connected":
    case "rejected":
      return { state: result.status };
    case "unreachable":
      return { state: "unreachable", message: result.message };
    default:
      return { state: "unusable" };
  }
}
