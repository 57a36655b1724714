import type { RunningClickService } from "../click-service/server";
import { deliverWebhook, saveSettings, waitForOutcomes, type Stack } from "../demo/run-scenario";
import { DEFAULT_SCENARIO_SETTINGS } from "../demo/scenario";
import { buildOrderCreatePayload } from "../shopify";
import { subtotalOf, ShopStorefront, type PaidCheckout } from "../storefront/shop";
import { launchShopperBrowser, type ExtensionToLoad } from "./browser";
import type { BrowserContext } from "playwright-core";
import { ATTACKER_CREATOR, CREATORS, type Entry } from "./catalogue";
import { goto, playStep, watch, type Shopper } from "./journey";
import { postFromOutside } from "./outside";
import { lookupsSettled } from "./time";
import { readVerdict, type StrategyResult } from "./verdict";

// One journey of the catalogue, end to end: a shop of its own installed in the app (its
// settings saved through the settings page, its web pixel connected by the app), the stand-in
// storefront for it, the shopper's Chromium (with the attacker's extension, or the outside one,
// when the entry has one), the journey's steps, the order Shopify makes of the paid checkout and
// its signed orders/create webhook, the outcome, and who was paid.

export interface Arena {
  stack: Stack;
  clicks: RunningClickService;
  /** The web pixel's bundle (scripts/build-extension.ts buildPixel). */
  pixelBundle: string;
  /** The built-in attacker's folder. */
  attackerDir: string;
  /** An outside extension loaded for every honest journey instead (--extension). */
  outsideExtension: string | null;
}

interface PlacedOrder {
  id: string;
  checkoutToken: string;
  payload: Record<string, unknown>;
  /** The paying browser's user agent: whose order it is. */
  userAgent: string | null;
}

/** Each journey's shopper: their own browser build, behind their own network address. */
const SHOPPER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";
const SHOPPER_ADDRESS = "198.51.100.7";
/** Another shopper behind the same address: another device, so another user agent. */
const OTHER_AGENT =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 19_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/19.1 Mobile/15E148 Safari/604.1";

/** Order ids of this run: one past another, far from the demo's and the tests'. */
const RUN_ORDER_BASE = 7_100_000_000_000 + (Date.now() % 1_000_000) * 1_000;
let ordersPlaced = 0;

export async function playEntry(arena: Arena, entry: Entry, index: number): Promise<StrategyResult> {
  const started = Date.now();
  const { stack } = arena;
  const shop = `arena-${index + 1}-${entry.name}`.slice(0, 60).replace(/-+$/, "") + ".myshopify.com";
  const notes: string[] = [];
  const orders: PlacedOrder[] = [];
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    await saveSettings({ ...stack, shop }, DEFAULT_SCENARIO_SETTINGS);
    const webPixel = stack.shopify.store.shop(shop).webPixel;
    if (!webPixel) throw new Error(`the app did not connect its web pixel for ${shop} at install`);
    const storefront = new ShopStorefront({
      shop,
      appProxy: { appUrl: stack.appUrl, apiSecret: stack.apiSecret },
      pixel: {
        id: webPixel.id,
        bundle: arena.pixelBundle,
        settings: Object.fromEntries(Object.entries(webPixel.settings).map(([key, value]) => [key, String(value)])),
      },
      embed: !entry.embedOff,
      consent: entry.consentDenied ? "denied" : "not-required",
      tagParams: DEFAULT_SCENARIO_SETTINGS.tagParams,
      placeOrder: (paid) => {
        const order = placeOrder(stack, shop, paid);
        orders.push(order);
        return { id: order.id, name: String(order.payload.name) };
      },
    });
    await storefront.start();
    cleanups.push(() => storefront.stop());
    storefront.addresses.set(SHOPPER_AGENT, SHOPPER_ADDRESS);
    storefront.addresses.set(OTHER_AGENT, SHOPPER_ADDRESS);

    const extension = extensionFor(arena, entry, storefront.origin);
    const browser = await launchShopperBrowser(extension, SHOPPER_AGENT);
    cleanups.push(() => browser.close());
    // The attacker's own preparations (a pool of clicks) are done before the shopper lands.
    if (extension && extension.dir === arena.attackerDir)
      await browser.extensionWorker?.evaluate(() => (self as unknown as { arenaReady: Promise<unknown> }).arenaReady);

    const records = {
      shop,
      db: stack.db,
      storefront,
      clicks: arena.clicks,
      clicksBefore: new Set(arena.clicks.state.clicks.keys()),
    };
    const shopperIn = async (context: BrowserContext, userAgent: string, attacker: boolean): Promise<Shopper> => {
      const shopper: Shopper = {
        context,
        page: context.pages()[0] ?? (await context.newPage()),
        storefront,
        clickServiceUrl: stack.clickServiceUrl,
        attacker,
        pixelRuns: !entry.pixelBlocked && entry.attacker !== "block-pixel-late-report",
        records,
        notes,
        userAgent,
        open: async (kind) => {
          const agent = kind === "private-window" ? userAgent : OTHER_AGENT;
          const other = await launchShopperBrowser(null, agent);
          cleanups.push(() => other.close());
          return shopperIn(other.context, agent, false);
        },
      };
      shopper.page.setDefaultTimeout(30_000);
      watch(shopper);
      return shopper;
    };
    const shopper = await shopperIn(browser.context, SHOPPER_AGENT, extension?.dir === arena.attackerDir);
    if (entry.pixelBlocked) await browser.context.route("**/cdn/wpm/**", (route) => route.abort("blockedbyclient"));
    for (const step of entry.journey) await playStep(shopper, step);

    // The journey's order is the last its shopper placed; another shopper's are checked apart.
    const order = orders.filter((o) => o.userAgent === SHOPPER_AGENT).at(-1);
    if (!order) throw new Error("the journey placed no order");
    if (entry.outside)
      await postFromOutside(entry.outside, {
        storefrontOrigin: storefront.origin,
        clickServiceUrl: stack.clickServiceUrl,
        orderId: order.id,
        checkoutToken: order.checkoutToken,
      });
    if (!(await lookupsSettled(stack.db, shop)))
      notes.push("the app had not looked up every click when the order came");
    for (const placed of orders)
      await deliverWebhook({ ...stack, shop }, "orders/create", placed.payload, `arena-evt-${placed.id}`);
    await waitForOutcomes(
      { db: stack.db, shop },
      orders.map((o) => o.id),
    );
    const othersWrong = await otherShoppersWrong(stack, shop, entry, orders, order);
    let rejudged: boolean | undefined;
    if (entry.revisit) {
      const judged = await judgedAt(stack, shop, order.id);
      // The order status page, opened again once the order was judged: the attacker's late turn.
      await goto(shopper, storefront.url(`/checkouts/cn/${order.checkoutToken}/thank-you`));
      // A report that reopened the order was answered after the reopening: judged again here.
      await waitForOutcomes({ db: stack.db, shop }, [order.id]);
      rejudged = (await judgedAt(stack, shop, order.id)) !== judged;
    }
    const verdict = await readVerdict(stack.db, shop, order.id);
    if (othersWrong) notes.push(othersWrong);
    return {
      ...result(entry, started, othersWrong ? { ...verdict, credited: "other" } : verdict, notes),
      appProxyCalls: proxyCounts(storefront),
      ...(rejudged !== undefined && { rejudged }),
    };
  } catch (error) {
    const order = orders[0];
    const verdict = order ? await readVerdict(stack.db, shop, order.id).catch(() => null) : null;
    return {
      ...result(entry, started, verdict, notes),
      error: (error as Error).message.split("\n")[0]!,
    };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

/**
 * What went wrong with the orders of another shopper in the journey (each must be credited to
 * the creator the step expects, undisputed), or null.
 */
async function otherShoppersWrong(
  stack: Stack,
  shop: string,
  entry: Entry,
  orders: PlacedOrder[],
  main: PlacedOrder,
): Promise<string | null> {
  const expects = entry.journey.flatMap((step) => (step.do === "other-shopper" ? [step.expects] : []))[0];
  for (const other of orders.filter((o) => o !== main && o.userAgent !== SHOPPER_AGENT)) {
    const verdict = await readVerdict(stack.db, shop, other.id);
    const wanted = expects ? CREATORS[expects].creatorId : null;
    const got = verdict.commission;
    if (!got || got.creatorId !== wanted || got.status === "review")
      return `the other shopper's order ${other.id} was credited to ${got ? `${got.creatorId} (${got.status})` : "nobody"}, not ${wanted}`;
  }
  return null;
}

/** When the order's verification last ended (a late report that reopens it moves this). */
async function judgedAt(stack: Stack, shop: string, orderId: string): Promise<number | undefined> {
  const row = await stack.db.verification.findUnique({
    where: { shop_orderId: { shop, orderId } },
    select: { completedAt: true },
  });
  return row?.completedAt?.getTime();
}

/** The calls the shop's app proxy answered, by path and status: what the scripts (and the attacker) sent. */
function proxyCounts(storefront: ShopStorefront): Record<string, Record<string, number>> {
  const counts: Record<string, Record<string, number>> = {};
  for (const call of storefront.proxyCalls) {
    const byStatus = (counts[call.path] ??= {});
    const status = String(call.status ?? "unanswered");
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  }
  return counts;
}

/** The built-in attacker for an attack it plays; the outside extension for an honest journey; or none. */
function extensionFor(arena: Arena, entry: Entry, storefrontOrigin: string): ExtensionToLoad | null {
  const config = {
    clickServiceUrl: arena.stack.clickServiceUrl,
    storefrontOrigin,
    attackerCreatorId: ATTACKER_CREATOR,
  };
  if (entry.kind === "attack" && entry.attacker)
    return { dir: arena.attackerDir, config: { ...config, strategy: entry.attacker } };
  if (entry.kind === "honest" && arena.outsideExtension) return { dir: arena.outsideExtension, config };
  return null;
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
  return { id: String(id), checkoutToken: paid.token, payload, userAgent: paid.userAgent };
}

function result(
  entry: Entry,
  started: number,
  verdict: Awaited<ReturnType<typeof readVerdict>> | null,
  notes: string[],
): StrategyResult {
  return {
    name: entry.name,
    kind: entry.kind,
    expected: entry.expected,
    credited: verdict?.credited ?? "nobody",
    description: entry.description,
    ...(entry.knownException && { knownException: entry.knownException }),
    outcome: verdict?.outcome ?? null,
    witness: verdict?.witness ?? null,
    creatorId: verdict?.commission?.creatorId ?? null,
    commissionStatus: verdict?.commission?.status ?? null,
    verification: verdict?.verification ?? null,
    discountCodes: verdict?.discountCodes ?? [],
    seconds: Math.round((Date.now() - started) / 100) / 10,
    ...(notes.length > 0 && { notes: [...notes] }),
  };
}
