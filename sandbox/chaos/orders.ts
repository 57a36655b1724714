import { CART_ATTRIBUTES, CLICK_ID_PARAM } from "../../app/attribution/cart-attributes";
import type { Outcome } from "../../app/verification/outcomes";
import type { RunningClickService } from "../click-service/server";
import { pickWeighted, type Random } from "../seeded-random";
import { buildOrderCreatePayload, type OrderWebhookPayload, type ShopifyStandin } from "../shopify";

// The chaos run's orders: a seeded mix of every way an order reaches the app, each with the
// outcome it must end in whatever the faults did along the way. Each order has a click of its
// own, made at the sandbox service just before the order, so every click lives through the run
// and the service's per-click call count is a per-order count.

export const ORDER_KINDS = {
  /** The creator's tag reached the cart. */
  matched: "matched",
  /** A coupon extension swapped the tag. */
  swapped: "hijacked",
  /** The tag was stripped: the click id arrived alone. */
  stripped: "hijacked",
  /** The click and tag only in the landing page URL. */
  "landing-site": "matched",
  /** No click id at all. */
  unattributed: "unattributed",
  /** A click id the service never issued. */
  "unknown-click": "expired",
} as const satisfies Record<string, Outcome>;
export type OrderKind = keyof typeof ORDER_KINDS;

const KIND_WEIGHTS: Record<OrderKind, number> = {
  matched: 35,
  swapped: 30,
  stripped: 10,
  "landing-site": 10,
  unattributed: 10,
  "unknown-click": 5,
};

const CURRENCIES = ["USD", "EUR", "JPY", "GBP"] as const;

export interface PlannedOrder {
  index: number;
  shop: string;
  kind: OrderKind;
  /** The outcome it must end in. */
  expected: Outcome;
  clickId: string | null;
  payload: OrderWebhookPayload;
}

export interface OrderFactory {
  /** Makes the order's click at the service and the order in the Shopify stand-in, now. */
  make(index: number): PlannedOrder;
}

export function orderFactory(options: {
  random: Random;
  shops: readonly string[];
  clicks: RunningClickService;
  shopify: ShopifyStandin;
  /** Order ids of this run start here (distinct from any earlier run on the same stand-in). */
  firstId: number;
}): OrderFactory {
  const { random, shops, clicks, shopify } = options;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  return {
    make(index) {
      const shop = pick(shops);
      const kind = pickWeighted(random, KIND_WEIGHTS)!;
      const creator = `cr_${index % 97}`;
      const expectedTag = `${creator}-tag`;
      const now = new Date();
      const click =
        kind === "unattributed"
          ? null
          : kind === "unknown-click"
            ? { clickId: `clk_never_issued_${index}`, timestamp: now.toISOString() }
            : clicks.addClick({ expectedTag, creatorId: creator, timestamp: now.toISOString() });
      const arrivedTag = kind === "swapped" ? `coupon-${index % 13}` : kind === "stripped" ? null : expectedTag;
      const noteAttributes: Record<string, string> = {};
      let landingSite: string | null = "/";
      if (click && kind === "landing-site") {
        landingSite = `/products/widget?${new URLSearchParams({ [CLICK_ID_PARAM]: click.clickId, tag: expectedTag })}`;
      } else if (click) {
        noteAttributes[CART_ATTRIBUTES.clickId] = click.clickId;
        noteAttributes[CART_ATTRIBUTES.capturedAt] = click.timestamp;
        if (arrivedTag !== null) noteAttributes[CART_ATTRIBUTES.arrivedTag] = arrivedTag;
      }
      const currency = pick(CURRENCIES);
      // Whole minor units, as prices are: yen has none.
      const minor = 1 + Math.floor(random() * 50_000);
      const price =
        currency === "JPY" ? String(minor) : `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, "0")}`;
      const id = options.firstId + index;
      const payload = buildOrderCreatePayload({
        id,
        number: 1000 + index,
        shop,
        currency,
        lineItems: [{ title: "Chaos widget", price }],
        noteAttributes,
        landingSite,
        createdAt: now,
      });
      shopify.createOrder(shop, payload);
      return { index, shop, kind, expected: ORDER_KINDS[kind], clickId: click?.clickId ?? null, payload };
    },
  };
}
