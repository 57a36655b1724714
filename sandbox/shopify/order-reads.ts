// The stand-in's answers to reading orders the way a reconciliation does: the `orders` connection
// with Shopify's search syntax on updated_at/created_at, sorted and paged by cursor, and the
// fields of an order and a refund under their GraphQL names, from the same REST payloads its
// webhooks carry (so what the webhook says and what the API says are one order).
// Shopify's reference: Admin GraphQL 2026-10 `orders` (query, sortKey, first/after, at most 250)
// and the search syntax (https://shopify.dev/docs/api/usage/search-syntax).
import Decimal from "decimal.js";
import { GraphQLError } from "graphql";
import type { OrderRecord, ShopState } from "./store";

type Payload = Record<string, any>;

/** A Decimal as the Admin API prints one: "25.0", "19.99" (REST's "25.00" loses its trailing zero). */
function decimal(value: Decimal.Value): string {
  const d = new Decimal(value);
  return d.toFixed(Math.max(1, d.decimalPlaces()));
}

/** A MoneyBag from a REST `*_set` (shop_money / presentment_money). */
function moneyBag(set: Payload | null | undefined, fallbackCurrency: string) {
  if (!set?.shop_money) return null;
  const money = (m: Payload | undefined) => ({
    amount: decimal(String(m?.amount ?? set.shop_money.amount)),
    currencyCode: String(m?.currency_code ?? set.shop_money.currency_code ?? fallbackCurrency),
  });
  return { shopMoney: money(set.shop_money), presentmentMoney: money(set.presentment_money) };
}

const bagOf = (amount: Decimal, currency: string) => ({
  shopMoney: { amount: decimal(amount), currencyCode: currency },
  presentmentMoney: { amount: decimal(amount), currencyCode: currency },
});

/** A connection over `items` paged by opaque cursors (their index), as Shopify's `first`/`after`. */
export function pagedConnection<T>(items: T[], args: { first?: number | null; after?: string | null }) {
  const first = args.first ?? 50;
  if (first > 250) throw new GraphQLError("The maximum number of items returned is 250 (first).");
  const start = args.after ? Number(Buffer.from(args.after, "base64url").toString()) + 1 : 0;
  if (!Number.isInteger(start) || start < 0) throw new GraphQLError(`Invalid cursor: ${args.after}`);
  const slice = items.slice(start, start + first);
  const cursor = (i: number) => Buffer.from(String(start + i)).toString("base64url");
  return {
    nodes: slice,
    edges: slice.map((node, i) => ({ node, cursor: cursor(i) })),
    pageInfo: {
      hasNextPage: start + slice.length < items.length,
      hasPreviousPage: start > 0,
      startCursor: slice.length ? cursor(0) : null,
      endCursor: slice.length ? cursor(slice.length - 1) : null,
    },
  };
}

const TERM = /^(updated_at|created_at):(>=|<=|>|<)?'?([^']+)'?$/;

/** Orders matching a search of `updated_at`/`created_at` comparisons joined by AND; other terms are refused. */
export function searchOrders(orders: OrderRecord[], query: string | null | undefined): OrderRecord[] {
  const terms = (query ?? "").split(/\s+AND\s+/).filter((term) => term.trim() !== "");
  const tests = terms.map((term) => {
    const match = TERM.exec(term.trim());
    const at = match ? Date.parse(match[3]!) : NaN;
    if (!match || Number.isNaN(at))
      throw new GraphQLError(`The stand-in understands only updated_at/created_at comparisons, got "${term}"`);
    const field = match[1] === "updated_at" ? "updatedAt" : "createdAt";
    const op = match[2] ?? "=";
    return (order: OrderRecord) => {
      const value = Date.parse(field === "updatedAt" ? order.updatedAt : String(order.payload.created_at));
      return op === ">="
        ? value >= at
        : op === "<="
          ? value <= at
          : op === ">"
            ? value > at
            : op === "<"
              ? value < at
              : value === at;
    };
  });
  return orders.filter((order) => tests.every((test) => test(order)));
}

const SORTS: Record<string, (order: OrderRecord) => number> = {
  UPDATED_AT: (order) => Date.parse(order.updatedAt),
  CREATED_AT: (order) => Date.parse(String(order.payload.created_at)),
  ID: (order) => order.id,
};

/**
 * The orders connection: sorted, and paged by cursors that hold the sort value and id of the
 * last order seen, as Shopify's do. So an order that changes between two pages (a tag written,
 * a refund) never shifts another out of the listing, as an index would.
 */
export function ordersConnection(
  orders: OrderRecord[],
  args: { first?: number | null; after?: string | null; sortKey?: string | null; reverse?: boolean | null },
) {
  const key = SORTS[args.sortKey ?? "ID"];
  if (!key) throw new GraphQLError(`The stand-in does not sort orders by ${args.sortKey}`);
  const direction = args.reverse ? -1 : 1;
  const keyOf = (order: OrderRecord): [number, number] => [key(order), order.id];
  const compare = (a: [number, number], b: [number, number]) => direction * (a[0] - b[0] || a[1] - b[1]);
  let sorted = [...orders].sort((a, b) => compare(keyOf(a), keyOf(b)));
  if (args.after) {
    let last: [number, number];
    try {
      last = JSON.parse(Buffer.from(args.after, "base64url").toString()) as [number, number];
    } catch {
      throw new GraphQLError(`Invalid cursor: ${args.after}`);
    }
    sorted = sorted.filter((order) => compare(keyOf(order), last) > 0);
  }
  const first = args.first ?? 50;
  if (first > 250) throw new GraphQLError("The maximum number of items returned is 250 (first).");
  const slice = sorted.slice(0, first);
  const cursor = (order: OrderRecord) => Buffer.from(JSON.stringify(keyOf(order))).toString("base64url");
  return {
    slice,
    cursor,
    pageInfo: {
      hasNextPage: slice.length < sorted.length,
      hasPreviousPage: Boolean(args.after),
      startCursor: slice.length ? cursor(slice[0]!) : null,
      endCursor: slice.length ? cursor(slice.at(-1)!) : null,
    },
  };
}

/**
 * Order.customerJourneySummary: the visits Shopify recorded (OrderRecord.journey), else the
 * order's landing_site as its one visit. Landing pages are URLs: a path is on the shop's own
 * domain. Before the journey's readyAt, `ready` is false and no visit is given, as Shopify
 * answers while it attributes the order's sessions; each read of `ready` is counted.
 */
function journeySummary(shop: ShopState, order: OrderRecord, landing: string | null, clock: () => number) {
  const url = (page: string) => (page.startsWith("/") ? `https://${shop.domain}${page}` : page);
  const createdAt = String((order.payload as Payload).created_at ?? new Date(clock()).toISOString());
  const visits = order.journey
    ? order.journey.visits.map((v) => ({ landingPage: url(v.landingPage), occurredAt: v.occurredAt }))
    : landing
      ? [{ landingPage: url(landing), occurredAt: new Date(Date.parse(createdAt)).toISOString() }]
      : [];
  const ready = !order.journey || clock() >= order.journey.readyAt;
  const visit = (v: (typeof visits)[number] | undefined) =>
    ready && v
      ? { __typename: "CustomerVisit", id: `gid://shopify/CustomerVisit/${order.id}-${v.occurredAt}`, ...v }
      : null;
  return {
    ready: () => {
      shop.journeyReads[ready ? "ready" : "notReady"] += 1;
      return ready;
    },
    firstVisit: visit(visits[0]),
    lastVisit: visit(visits.at(-1)),
  };
}

/** An order's fields beyond its identity, from its orders/create payload and what happened to it since. */
export function orderReadFields(shop: ShopState, order: OrderRecord, clock: () => number) {
  const p = order.payload as Payload;
  const currency = String(p.currency ?? "USD");
  const lines = (Array.isArray(p.line_items) ? p.line_items : []) as Payload[];
  const codes = (Array.isArray(p.discount_codes) ? p.discount_codes : []) as Payload[];
  const landing = typeof p.landing_site === "string" && p.landing_site !== "" ? p.landing_site : null;
  return {
    updatedAt: order.updatedAt,
    cancelledAt: order.cancelledAt,
    // Order.edited: whether any edit was committed (store.editOrder).
    edited: order.edits > 0,
    cartToken: p.cart_token ?? null,
    checkoutToken: p.checkout_token ?? null,
    subtotalPriceSet: moneyBag(p.subtotal_price_set, currency),
    totalPriceSet: moneyBag(p.total_price_set, currency),
    totalDiscountsSet: moneyBag(p.total_discounts_set, currency),
    customerJourneySummary: journeySummary(shop, order, landing, clock),
    discountApplications: (args: { first?: number | null; after?: string | null }) =>
      pagedConnection(
        codes.map((code, index) => ({
          __typename: "DiscountCodeApplication",
          code: code.code,
          index,
          allocationMethod: "ACROSS",
          targetSelection: "ALL",
          targetType: code.type === "shipping" ? "SHIPPING_LINE" : "LINE_ITEM",
          value: { __typename: "MoneyV2", amount: decimal(String(code.amount)), currencyCode: currency },
        })),
        args,
      ),
    lineItems: (args: { first?: number | null; after?: string | null }) =>
      pagedConnection(
        lines.map((line) => ({
          __typename: "LineItem",
          id: line.admin_graphql_api_id ?? `gid://shopify/LineItem/${line.id}`,
          quantity: line.quantity,
          originalUnitPriceSet: moneyBag(line.price_set, currency),
          originalTotalSet: bagOf(new Decimal(String(line.price)).times(line.quantity ?? 1), currency),
        })),
        args,
      ),
    refunds: (args: { first?: number | null }) =>
      order.refunds.slice(0, args.first ?? undefined).map((refund) => refundView(order, refund)),
  };
}

/** A refund under its GraphQL names, from its refunds/create payload. */
export function refundView(order: OrderRecord, refund: OrderRecord["refunds"][number]) {
  const p = refund.payload;
  const currency = String((order.payload as Payload).currency ?? "USD");
  const lines = (Array.isArray(p.refund_line_items) ? p.refund_line_items : []) as Payload[];
  const shipping = (Array.isArray(p.refund_shipping_lines) ? p.refund_shipping_lines : []) as Payload[];
  return {
    __typename: "Refund",
    id: refund.gid,
    legacyResourceId: refund.id,
    createdAt: p.created_at ?? null,
    order: { __typename: "Order", id: order.gid, legacyResourceId: order.gid.slice(order.gid.lastIndexOf("/") + 1) },
    refundLineItems: (args: { first?: number | null; after?: string | null }) =>
      pagedConnection(
        lines.map((line) => ({
          quantity: line.quantity,
          subtotalSet: moneyBag(line.subtotal_set, currency),
          totalTaxSet: moneyBag(line.total_tax_set, currency),
          lineItem: { originalUnitPriceSet: moneyBag(line.line_item?.price_set, currency) },
        })),
        args,
      ),
    refundShippingLines: (args: { first?: number | null; after?: string | null }) =>
      pagedConnection(
        shipping.map((line) => ({
          subtotalAmountSet: moneyBag(line.subtotal_amount_set, currency),
          taxAmountSet: moneyBag(line.tax_amount_set, currency),
        })),
        args,
      ),
  };
}
