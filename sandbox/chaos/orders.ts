import { CART_ATTRIBUTES, CLICK_ID_PARAM } from "../../app/attribution/cart-attributes";
import type { Outcome } from "../../app/verification/outcomes";
import type { RunningClickService } from "../click-service/server";
import { pickWeighted, type Random } from "../seeded-random";
import {
  buildOrderCancelledPayload,
  buildOrderCreatePayload,
  buildRefundCreatePayload,
  type OrderWebhookPayload,
  type ShopifyStandin,
} from "../shopify";

// The chaos run's orders: a seeded mix of every way an order reaches the app, each with the
// outcome it must end in whatever the faults did along the way. Each order has a click of its
// own, made at the sandbox service just before the order, so every click lives through the run
// and the service's per-click call count is a per-order count. What happens to an order next is
// planned with it: about 15% get one or two partial refunds, about 5% are cancelled (with the
// refund of everything left that Shopify sends beside the cancellation), about 10% are edited
// once (their lines' total set up or down, never to or below what the partial refunds give
// back, committed in the Shopify stand-in before the refunds: decision 045).

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
/** Shares of orders partly refunded (once or twice) and cancelled; drawn apart, so a few are both. */
const PARTLY_REFUNDED = 0.15;
const CANCELLED = 0.05;
const EDITED = 0.1;

/** An order line as planned: its line item in the order, unit price (shop currency) and units. */
export interface PlannedLine {
  lineItemId: number;
  price: string;
  quantity: number;
}

/** A refund as issued: units of the order's lines, and shipping, given back. */
export interface PlannedRefund {
  id: number;
  lines: { lineItemId: number; price: string; quantity: number }[];
  shipping: string;
  payload: Record<string, unknown>;
}

export interface PlannedOrder {
  index: number;
  shop: string;
  kind: OrderKind;
  /** The outcome it must end in. */
  expected: Outcome;
  clickId: string | null;
  payload: OrderWebhookPayload;
  lines: PlannedLine[];
  shipping: string;
  /** In the order they were issued; the cancellation's own refund last. */
  refunds: PlannedRefund[];
  /** The orders/cancelled payload, when the order is cancelled. */
  cancellation: OrderWebhookPayload | null;
  /** The order's edit, when it was edited: its lines' total after it, and its orders/edited payload. */
  edit: { id: number; linesTotal: string; payload: Record<string, unknown> } | null;
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
        // The shopper came through the creator's link: Shopify records it as the visit's landing page.
        const link = new URLSearchParams({ [CLICK_ID_PARAM]: click.clickId });
        if (arrivedTag !== null) link.set("tag", expectedTag);
        landingSite = `/?${link.toString()}`;
        noteAttributes[CART_ATTRIBUTES.clickId] = click.clickId;
        noteAttributes[CART_ATTRIBUTES.capturedAt] = click.timestamp;
        if (arrivedTag !== null) noteAttributes[CART_ATTRIBUTES.arrivedTag] = arrivedTag;
      }
      const currency = pick(CURRENCIES);
      // Whole minor units, as prices are: yen has none.
      const amount = (minor: number) =>
        currency === "JPY" ? String(minor) : `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, "0")}`;
      const lineCount = 1 + Math.floor(random() * 3);
      const described = Array.from({ length: lineCount }, (_, i) => ({
        title: `Chaos widget ${i + 1}`,
        price: amount(1 + Math.floor(random() * 50_000)),
        quantity: 1 + Math.floor(random() * 3),
      }));
      const shipping = random() < 0.5 ? amount(1 + Math.floor(random() * 1_500)) : "0";
      const id = options.firstId + index;
      const payload = buildOrderCreatePayload({
        id,
        number: 1000 + index,
        shop,
        currency,
        lineItems: described,
        shipping,
        noteAttributes,
        landingSite,
        createdAt: now,
      });
      shopify.createOrder(shop, payload);
      const lines = (payload.line_items as { id: number }[]).map((item, i) => ({
        lineItemId: item.id,
        price: described[i]!.price,
        quantity: described[i]!.quantity,
      }));
      const cancelled = random() < CANCELLED;
      const partlyRefunded = random() < PARTLY_REFUNDED;
      const refunds = planRefunds(random, { orderId: id, currency, lines, shipping, partlyRefunded, cancelled, now });
      const cancellation = cancelled ? buildOrderCancelledPayload(payload, { at: now }) : null;
      // Shopify holds the edit, the refunds and the cancellation whether or not their webhooks arrive.
      const edit = random() < EDITED ? planEdit(random, shopify, shop, { id, currency, lines, refunds }) : null;
      for (const refund of refunds) shopify.store.addRefund(shop, refund.payload);
      if (cancellation) shopify.store.cancelOrder(shop, cancellation);
      return {
        index,
        shop,
        kind,
        expected: ORDER_KINDS[kind],
        clickId: click?.clickId ?? null,
        payload,
        lines,
        shipping,
        refunds,
        cancellation,
        edit,
      };
    },
  };
}

/**
 * An edit committed in the stand-in: the order's lines' total set to a random amount from 60% to
 * 140% of what it was (never the same), in whole minor units, and above what the partial refunds give back, so
 * an edit alone never takes a record to zero (only a cancellation or a whole refund does).
 */
function planEdit(
  random: Random,
  shopify: ShopifyStandin,
  shop: string,
  order: { id: number; currency: string; lines: PlannedLine[]; refunds: PlannedRefund[] },
): PlannedOrder["edit"] {
  const digits = order.currency === "JPY" ? 0 : 2;
  const unit = 10 ** digits;
  const minor = (items: { price: string; quantity: number }[]) =>
    items.reduce((sum, line) => sum + Math.round(Number(line.price) * unit) * line.quantity, 0);
  const total = minor(order.lines);
  const refunded = Math.max(
    0,
    ...order.refunds.map((_, k) => minor(order.refunds.slice(0, k + 1).flatMap((r) => r.lines))),
  );
  const low = Math.max(refunded + 1, Math.floor(total * 0.6));
  const high = Math.max(low, Math.ceil(total * 1.4));
  const drawn = low + Math.floor(random() * (high - low + 1));
  // An edit that leaves the total where it was moves nothing, and the sweep rightly finds nothing
  // when its webhook is dropped: one minor unit more, so every planned edit is a change.
  const edited = drawn === total ? total + 1 : drawn;
  const linesTotal = (edited / unit).toFixed(digits);
  const payload = shopify.store.editOrder(shop, order.id, linesTotal);
  return { id: Number((payload.order_edit as { id: number }).id), linesTotal, payload };
}

/**
 * The order's refunds as Shopify issues them: line refunds of whole units (one or two partial
 * ones, each leaving at least one unit unrefunded, the first sometimes with the shipping), and
 * for a cancelled order one more giving back every unit and the shipping still unrefunded.
 */
function planRefunds(
  random: Random,
  order: {
    orderId: number;
    currency: string;
    lines: PlannedLine[];
    shipping: string;
    partlyRefunded: boolean;
    cancelled: boolean;
    now: Date;
  },
): PlannedRefund[] {
  const left = order.lines.map((line) => line.quantity);
  const units = left.reduce((a, b) => a + b, 0);
  let shippingLeft = order.shipping;
  const plans: { lines: PlannedRefund["lines"]; shipping: string }[] = [];
  const partial = order.partlyRefunded ? Math.min(1 + Math.floor(random() * 2), units - 1) : 0;
  let refunded = 0;
  for (let k = 0; k < partial; k++) {
    // Room for the refunds still to come, one unit each, and for the unit that stays.
    let take = 1 + Math.floor(random() * (units - refunded - 1 - (partial - k - 1)));
    refunded += take;
    const lines: PlannedRefund["lines"] = [];
    const start = Math.floor(random() * left.length);
    for (let step = 0; step < left.length && take > 0; step++) {
      const i = (start + step) % left.length;
      const n = Math.min(take, left[i]!);
      if (n === 0) continue;
      left[i] = left[i]! - n;
      take -= n;
      lines.push({ lineItemId: order.lines[i]!.lineItemId, price: order.lines[i]!.price, quantity: n });
    }
    const withShipping = k === 0 && shippingLeft !== "0" && random() < 0.3;
    plans.push({ lines, shipping: withShipping ? shippingLeft : "0" });
    if (withShipping) shippingLeft = "0";
  }
  if (order.cancelled) {
    const lines = order.lines.flatMap((line, i) =>
      left[i]! > 0 ? [{ lineItemId: line.lineItemId, price: line.price, quantity: left[i]! }] : [],
    );
    plans.push({ lines, shipping: shippingLeft });
  }
  return plans.map((plan, k) => {
    // Distinct per order and per refund (three at most), and apart from the order ids.
    const id = 4 * order.orderId + k;
    return {
      id,
      ...plan,
      payload: buildRefundCreatePayload({
        id,
        orderId: order.orderId,
        currency: order.currency,
        lines: plan.lines.map((line) => ({ ...line, title: "Chaos widget" })),
        shipping: plan.shipping,
        createdAt: order.now,
      }),
    };
  });
}
