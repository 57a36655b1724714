import { buildOrderCreatePayload, DEFAULT_API_VERSION, webhookHeaders } from "../sandbox/shopify";

// Signed orders/create deliveries and sandbox clicks for the benchmarks.

export interface Delivery {
  body: string;
  headers: Record<string, string>;
}

let nextOrderId = 9_000_000_000_000 + (Date.now() % 1_000_000) * 1_000;

export interface OrderInput {
  shop: string;
  secret: string;
  clickId: string | null;
  arrivedTag: string | null;
  subtotal?: string;
}

export interface OrderDelivery extends Delivery {
  orderId: string;
  shop: string;
}

/** A fresh order (its own id and event id), signed as Shopify signs it. */
export function orderDelivery(input: OrderInput): OrderDelivery {
  nextOrderId += 1;
  const id = nextOrderId;
  const attributes: Record<string, string> = {};
  if (input.clickId) attributes._lb_click = input.clickId;
  if (input.clickId && input.arrivedTag !== null) attributes._lb_tag = input.arrivedTag;
  const payload = buildOrderCreatePayload({
    id,
    number: id % 100_000,
    lineItems: [{ title: "Bench", price: input.subtotal ?? "42.00" }],
    noteAttributes: attributes,
  });
  const body = JSON.stringify(payload);
  const headers = webhookHeaders({
    topic: "orders/create",
    shop: input.shop,
    apiVersion: DEFAULT_API_VERSION,
    body,
    secret: input.secret,
    eventId: `bench-evt-${id}`,
  });
  return { orderId: String(id), shop: input.shop, body, headers };
}

/** Puts the orders into the Shopify stand-in, so the hijacked ones can be tagged there. */
export async function registerOrders(shopifyUrl: string, orders: OrderDelivery[]): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < orders.length) {
      const order = orders[next++]!;
      const response = await fetch(`${shopifyUrl}/standin/orders`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ shop: order.shop, order: JSON.parse(order.body) }),
      });
      if (response.status !== 201) throw new Error(`the Shopify stand-in refused an order: HTTP ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
}

/** Creates clicks at the sandbox service, a few at a time; returns their ids. */
export async function createClicks(
  clickServiceUrl: string,
  count: number,
  creator = { expectedTag: "alice-20", creatorId: "cr_alice" },
): Promise<string[]> {
  const ids: string[] = [];
  const one = async () => {
    const response = await fetch(`${clickServiceUrl}/sandbox/clicks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(creator),
    });
    if (response.status !== 201) throw new Error(`the sandbox refused a click: HTTP ${response.status}`);
    ids.push(((await response.json()) as { clickId: string }).clickId);
  };
  for (let made = 0; made < count; made += 16) {
    await Promise.all(Array.from({ length: Math.min(16, count - made) }, one));
  }
  return ids;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
