import { DEFAULT_TAG_PARAMS } from "../attribution/cart-attributes";
import { logger } from "../platform/logger.server";
import { getPublicSettings } from "../settings/shop-settings.server";
import { connectWebPixel, type AdminGraphql, type PixelConnection } from "../shopify-admin/web-pixel.server";

/**
 * Connects (or re-connects) the shop's web pixel with its current tag parameters: at every
 * authorization (the install among them) and at every visit of the home page, which shows the
 * result. Never throws: a pixel that cannot be connected is a status, not an error page.
 */
export async function connectPixelForShop(shop: string, graphql: AdminGraphql): Promise<PixelConnection> {
  try {
    const settings = await getPublicSettings(shop);
    const connection = await connectWebPixel(graphql, settings?.tagParams ?? DEFAULT_TAG_PARAMS, {
      maxAttempts: 2,
      maxWaitMs: 2_000,
    });
    if (!connection.connected)
      logger.warn("pixel.not_connected", "web pixel not connected", { shop, reason: connection.message });
    else if (connection.change !== "none") logger.info("pixel.connected", `web pixel ${connection.change}`, { shop });
    return connection;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.warn("pixel.not_connected", "web pixel not connected", { shop, reason: message });
    return { connected: false, message };
  }
}
