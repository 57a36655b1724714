import type { DatabaseDialect } from "../../app/platform/database-url";
import type { RunningClickService } from "../click-service/server";
import { saveSettings, type Stack } from "../demo/run-scenario";
import { DEFAULT_SCENARIO_SETTINGS } from "../demo/scenario";
import { buildOrderCreatePayload } from "../shopify";
import type { ProxyCall } from "../storefront/server";
import { subtotalOf, ShopStorefront, type PaidCheckout } from "../storefront/shop";
import type { Entry } from "./entry";
import type { JourneyRecords } from "./time";

// A shop the arena plays on: installed in the app as a merchant installs it (settings saved
// through the settings page with the app's defaults, the web pixel connected by the app at
// install), its stand-in storefront, and the orders Shopify makes of its paid checkouts. The
// arena opens one per journey; the population run opens one for all of its journeys.

export interface Arena {
  stack: Stack;
  /** How the app's database keeps times (the arena ages records in it). */
  dialect: DatabaseDialect;
  clicks: RunningClickService;
  /** The web pixel's bundle (scripts/build-extension.ts buildPixel). */
  pixelBundle: string;
  /** The built-in attacker's folder. */
  attackerDir: string;
  /** An outside extension loaded for every honest journey instead (--extension). */
  outsideExtension: string | null;
}

export interface PlacedOrder {
  id: string;
  checkoutToken: string;
  payload: Record<string, unknown>;
  /** The paying browser's user agent: whose order it is. */
  userAgent: string | null;
  /** Its orders/create was sent to the app. */
  delivered: boolean;
}

export interface ArenaShop {
  shop: string;
  storefront: ShopStorefront;
  /** Every order placed on the shop, oldest first. */
  orders: PlacedOrder[];
  /** What ages when time passes on this shop. */
  records: JourneyRecords;
}

/** Order ids of this run: one past another, far from the demo's and the tests'. */
const RUN_ORDER_BASE = 7_100_000_000_000 + (Date.now() % 1_000_000) * 1_000;
let ordersPlaced = 0;

/** Installs `shop` in the app and starts its storefront, dressed for `entry` (the arena) or for none yet. */
export async function openShop(arena: Arena, shop: string, entry?: Entry): Promise<ArenaShop> {
  const { stack } = arena;
  await saveSettings({ ...stack, shop }, DEFAULT_SCENARIO_SETTINGS);
  const webPixel = stack.shopify.store.shop(shop).webPixel;
  if (!webPixel) throw new Error(`the app did not connect its web pixel for ${shop} at install`);
  const orders: PlacedOrder[] = [];
  const storefront = new ShopStorefront({
    shop,
    appProxy: { appUrl: stack.appUrl, apiSecret: stack.apiSecret },
    pixel: {
      id: webPixel.id,
      bundle: arena.pixelBundle,
      settings: Object.fromEntries(Object.entries(webPixel.settings).map(([key, value]) => [key, String(value)])),
    },
    embed: !entry?.embedOff,
    consent: entry?.consentDenied ? "denied" : "not-required",
    tagParams: DEFAULT_SCENARIO_SETTINGS.tagParams,
    placeOrder: (paid) => {
      const order = placeOrder(stack, shop, paid);
      orders.push(order);
      return { id: order.id, name: String(order.payload.name) };
    },
  });
  await storefront.start();
  return {
    shop,
    storefront,
    orders,
    records: {
      shop,
      db: stack.db,
      dialect: arena.dialect,
      storefront,
      clicks: arena.clicks,
      clicksBefore: new Set(arena.clicks.state.clicks.keys()),
    },
  };
}

/**
 * The shop as `entry` finds it: the theme's app embed on or off, and whether the shopper is
 * asked for consent (and declines). The arena's shops are made so; on the population's one shop
 * they are set for each journey in turn, as if the merchant switched the embed and the shopper
 * came from a region that asks. ShopStorefront takes its embed at construction only, so it is
 * set on the instance here.
 */
export function dressShop(storefront: ShopStorefront, entry: Entry): void {
  Reflect.set(storefront, "embed", !entry.embedOff);
  storefront.settings.consent = entry.consentDenied ? "denied" : "not-required";
}

/** The calls the shop's app proxy answered, by path and status: what the scripts (and the attacker) sent. */
export function proxyCounts(calls: readonly ProxyCall[]): Record<string, Record<string, number>> {
  const counts: Record<string, Record<string, number>> = {};
  for (const call of calls) {
    const byStatus = (counts[call.path] ??= {});
    const status = String(call.status ?? "unanswered");
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  }
  return counts;
}

/**
 * What Shopify does with a paid checkout: the order, with what the storefront knew (the cart's
 * token and attributes, the checkout's token, the landing page of the visit, the journey),
 * created in the stand-in. Its orders/create is sent once the thank-you page has loaded.
 */
function placeOrder(stack: Stack, shop: string, paid: PaidCheckout): PlacedOrder {
  ordersPlaced += 1;
  const id = RUN_ORDER_BASE + ordersPlaced;
  // A code takes 10% off the lines.
  const discount = paid.discountCode ? (Number(subtotalOf(paid.lines)) / 10).toFixed(2) : undefined;
  const payload = {
    ...buildOrderCreatePayload({
      id,
      number: 1000 + ordersPlaced,
      shop,
      lineItems: paid.lines.map((line) => ({ title: line.title, price: line.price, quantity: line.quantity })),
      noteAttributes: paid.attributes,
      landingSite: paid.landingSite,
      ...(discount && { discount, discountCode: paid.discountCode! }),
    }),
    cart_token: paid.cartToken,
    checkout_token: paid.token,
    browser_ip: paid.browserIp,
    client_details: {
      accept_language: "en-US",
      browser_height: null,
      browser_ip: paid.browserIp,
      browser_width: null,
      session_hash: null,
      user_agent: paid.userAgent,
    },
  };
  stack.shopify.store.createOrder(shop, payload, { visits: paid.journey });
  return { id: String(id), checkoutToken: paid.token, payload, userAgent: paid.userAgent, delivered: false };
}
