import { Storefront } from "../storefront/server";
import { PixelVisitor } from "../storefront/web-pixel";
import { buildPixel } from "../../scripts/build-extension";
import type { ShopifyStandin } from "../shopify";

// The demo's web pixel: the real bundle (built from extensions/tag-guard-pixel/src), run as
// Shopify's sandbox runs it (sandbox/storefront/web-pixel.ts) with the settings the app saved
// through webPixelCreate at install, reporting through a stand-in storefront's app proxy,
// signed as Shopify signs, to the app. A shop whose pixel the app did not connect runs none,
// as on Shopify: the demo then stops and says so.

export interface DemoPixel {
  /** A new visitor (one browser, one clientId). */
  visitor(): PixelVisitor;
  close(): Promise<void>;
}

export async function startDemoPixel(
  shopify: ShopifyStandin,
  appProxy: { appUrl: string; apiSecret: string; shop: string },
): Promise<DemoPixel> {
  const pixel = shopify.store.shop(appProxy.shop).webPixel;
  if (!pixel) throw new Error(`the app did not connect its web pixel for ${appProxy.shop} at install (webPixelCreate)`);
  const settings = Object.fromEntries(Object.entries(pixel.settings).map(([key, value]) => [key, String(value)]));
  const bundle = (await buildPixel()).toString("utf8");
  const storefront = new Storefront({
    shop: appProxy.shop,
    appProxy: { appUrl: appProxy.appUrl, apiSecret: appProxy.apiSecret },
  });
  await storefront.start();
  return {
    visitor: () => new PixelVisitor(bundle, { origin: storefront.origin, settings }),
    close: () => storefront.stop(),
  };
}

/** Waits for every report the visitor sent and fails unless the app took each (202). */
export async function reported(visitor: PixelVisitor, what: string): Promise<void> {
  await visitor.settled();
  const refused = visitor.sent.filter((sent) => sent.status !== 202);
  if (refused.length > 0)
    throw new Error(`the app answered the pixel's ${what} with ${refused.map((sent) => sent.status).join(", ")}`);
}
