import type { BrowserContext } from "playwright-core";
import { deliverWebhook, waitForOutcomes, type Stack } from "../demo/run-scenario";
import { launchShopperBrowser, type ExtensionToLoad } from "./browser";
import { ARENA_CAST, type Cast } from "./cast";
import type { Entry } from "./entry";
import { goto, playStep, watch, type Shopper } from "./journey";
import { postFromOutside } from "./outside";
import { dressShop, openShop, proxyCounts, type Arena, type ArenaShop, type PlacedOrder } from "./shop";
import { lookupsSettled } from "./time";
import { readVerdict, type StrategyResult, type Verdict } from "./verdict";

// One journey of the catalogue, end to end, on a shop the app has installed (shop.ts): the
// shopper's Chromium (with the attacker's extension, or the outside one, when the entry has
// one), the journey's steps, the order Shopify makes of the paid checkout and its signed
// orders/create webhook, the outcome, and who was paid. The arena plays each entry on a shop of
// its own (playEntry); the population run plays many journeys on one (sandbox/arena/population).

export type { Arena } from "./shop";

export interface JourneyPlayed {
  /** The journey's own order: the last its shopper placed. */
  order: PlacedOrder;
  /** Every order placed during the journey, another shopper's too. */
  orders: PlacedOrder[];
  verdict: Verdict;
  /** What went wrong with another shopper's order, or null. */
  othersWrong: string | null;
  /** After a late report: whether it had the order judged again. */
  rejudged?: boolean;
  appProxyCalls: Record<string, Record<string, number>>;
}

export async function playEntry(arena: Arena, entry: Entry, index: number): Promise<StrategyResult> {
  const started = Date.now();
  const shopName = `arena-${index + 1}-${entry.name}`.slice(0, 60).replace(/-+$/, "") + ".myshopify.com";
  const notes: string[] = [];
  let shop: ArenaShop | undefined;
  try {
    shop = await openShop(arena, shopName, entry);
    const played = await playJourney(arena, shop, entry, ARENA_CAST, notes);
    if (played.othersWrong) notes.push(played.othersWrong);
    const verdict: Verdict = played.othersWrong ? { ...played.verdict, credited: "other" } : played.verdict;
    return {
      ...result(entry, started, verdict, notes),
      appProxyCalls: played.appProxyCalls,
      ...(played.rejudged !== undefined && { rejudged: played.rejudged }),
    };
  } catch (error) {
    const order = shop?.orders[0];
    const verdict = order ? await readVerdict(arena.stack.db, shopName, order.id).catch(() => null) : null;
    return {
      ...result(entry, started, verdict, notes),
      error: (error as Error).message.split("\n")[0]!,
    };
  } finally {
    await shop?.storefront.stop().catch(() => undefined);
  }
}

/**
 * Plays `entry`'s journey on `shop` with `cast`: the shopper's steps, the attacker's posts from
 * outside, every order's webhook and outcome, and the verdict on the journey's own order. Notes
 * what did not go as a page normally goes into `notes`; throws when the journey could not be
 * played (the orders it placed are on `shop.orders` all the same).
 */
export async function playJourney(
  arena: Arena,
  shop: ArenaShop,
  entry: Entry,
  cast: Cast,
  notes: string[],
): Promise<JourneyPlayed> {
  const { stack } = arena;
  const { storefront } = shop;
  const firstOrder = shop.orders.length;
  const firstCall = storefront.proxyCalls.length;
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    dressShop(storefront, entry);
    storefront.addresses.set(cast.shopperAgent, cast.shopperAddress);
    storefront.addresses.set(cast.otherAgent, cast.shopperAddress);

    const extension = extensionFor(arena, entry, storefront.origin, cast);
    const browser = await launchShopperBrowser(extension, cast.shopperAgent);
    cleanups.push(() => browser.close());
    // The attacker's own preparations (a pool of clicks) are done before the shopper lands.
    if (extension && extension.dir === arena.attackerDir)
      await browser.extensionWorker?.evaluate(() => (self as unknown as { arenaReady: Promise<unknown> }).arenaReady);

    const shopperIn = async (context: BrowserContext, userAgent: string, attacker: boolean): Promise<Shopper> => {
      const shopper: Shopper = {
        context,
        page: context.pages()[0] ?? (await context.newPage()),
        storefront,
        clickServiceUrl: stack.clickServiceUrl,
        creators: cast.creators,
        attacker,
        pixelRuns: !entry.pixelBlocked && entry.attacker !== "block-pixel-late-report",
        records: shop.records,
        notes,
        userAgent,
        open: async (kind) => {
          const agent = kind === "private-window" ? userAgent : cast.otherAgent;
          const other = await launchShopperBrowser(null, agent);
          cleanups.push(() => other.close());
          return shopperIn(other.context, agent, false);
        },
      };
      shopper.page.setDefaultTimeout(30_000);
      watch(shopper);
      return shopper;
    };
    const shopper = await shopperIn(browser.context, cast.shopperAgent, extension?.dir === arena.attackerDir);
    if (entry.pixelBlocked) await browser.context.route("**/cdn/wpm/**", (route) => route.abort("blockedbyclient"));
    for (const step of entry.journey) await playStep(shopper, step);

    // The journey's order is the last its shopper placed; another shopper's are checked apart.
    const orders = shop.orders.slice(firstOrder);
    const order = orders.filter((o) => o.userAgent === cast.shopperAgent).at(-1);
    if (!order) throw new Error("the journey placed no order");
    if (entry.outside)
      await postFromOutside(entry.outside, {
        attacker: cast.attacker,
        storefrontOrigin: storefront.origin,
        clickServiceUrl: stack.clickServiceUrl,
        orderId: order.id,
        checkoutToken: order.checkoutToken,
      });
    if (!(await lookupsSettled(stack.db, shop.shop)))
      notes.push("the app had not looked up every click when the order came");
    await deliverOrders(stack, shop.shop, orders);
    const othersWrong = await otherShoppersWrong(stack, shop.shop, entry, cast, orders, order);
    let rejudged: boolean | undefined;
    if (entry.revisit) {
      const judged = await judgedAt(stack, shop.shop, order.id);
      // The order status page, opened again once the order was judged: the attacker's late turn.
      await goto(shopper, storefront.url(`/checkouts/cn/${order.checkoutToken}/thank-you`));
      // A report that reopened the order was answered after the reopening: judged again here.
      await waitForOutcomes({ db: stack.db, shop: shop.shop }, [order.id]);
      rejudged = (await judgedAt(stack, shop.shop, order.id)) !== judged;
    }
    const verdict = await readVerdict(stack.db, shop.shop, order.id, {
      rightful: cast.creators.alice.creatorId,
      attacker: cast.attacker.creatorId,
    });
    return {
      order,
      orders,
      verdict,
      othersWrong,
      ...(rejudged !== undefined && { rejudged }),
      appProxyCalls: proxyCounts(storefront.proxyCalls.slice(firstCall)),
    };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

/** Sends each order's signed orders/create not sent yet, and waits until every one has its outcome. */
export async function deliverOrders(stack: Stack, shop: string, orders: PlacedOrder[]): Promise<void> {
  for (const placed of orders.filter((o) => !o.delivered)) {
    await deliverWebhook({ ...stack, shop }, "orders/create", placed.payload, `arena-evt-${placed.id}`);
    placed.delivered = true;
  }
  await waitForOutcomes(
    { db: stack.db, shop },
    orders.map((o) => o.id),
  );
}

/**
 * What went wrong with the orders of another shopper in the journey (each must be credited to
 * the creator the step expects, undisputed), or null.
 */
async function otherShoppersWrong(
  stack: Stack,
  shop: string,
  entry: Entry,
  cast: Cast,
  orders: PlacedOrder[],
  main: PlacedOrder,
): Promise<string | null> {
  const expects = entry.journey.flatMap((step) => (step.do === "other-shopper" ? [step.expects] : []))[0];
  for (const other of orders.filter((o) => o !== main && o.userAgent !== cast.shopperAgent)) {
    const verdict = await readVerdict(stack.db, shop, other.id);
    const wanted = expects ? cast.creators[expects].creatorId : null;
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

/** The built-in attacker for an attack it plays; the outside extension for an honest journey; or none. */
function extensionFor(arena: Arena, entry: Entry, storefrontOrigin: string, cast: Cast): ExtensionToLoad | null {
  const config = {
    clickServiceUrl: arena.stack.clickServiceUrl,
    storefrontOrigin,
    attackerCreatorId: cast.attacker.creatorId,
  };
  if (entry.kind === "attack" && entry.attacker)
    return {
      dir: arena.attackerDir,
      config: { ...config, attackerTag: cast.attacker.tag, strategy: entry.attacker },
    };
  if (entry.kind === "honest" && arena.outsideExtension) return { dir: arena.outsideExtension, config };
  return null;
}

function result(entry: Entry, started: number, verdict: Verdict | null, notes: string[]): StrategyResult {
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
