import type { PrismaClient } from "@prisma/client";
import { CART_ATTRIBUTES, CLICK_ID_PARAM } from "../../app/attribution/cart-attributes";
import { BROWSER_USER_AGENT } from "../storefront/chromium";
import { buildOrderCreatePayload, signSessionToken, webhookHeaders, type ShopifyStandin } from "../shopify";
import type { Scenario, ScenarioOrder } from "./scenario";

// Plays a scenario against a running stack exactly as the outside world would: clicks through
// the click service's HTTP management API, settings through the app's own settings route
// (which also installs the shop by token exchange), orders as signed webhook deliveries.

export interface Stack {
  appUrl: string;
  shop: string;
  apiKey: string;
  apiSecret: string;
  /** The demo's own database, read through Prisma like the app (SQLite or PostgreSQL alike). */
  db: PrismaClient;
  clickServiceUrl: string;
  clickServiceApiKey: string;
  shopify: ShopifyStandin;
}

export interface OrderReport {
  ref: string;
  orderId: string;
  orderName: string;
  outcome: string | null;
  tags: string[];
  commission: {
    creatorId: string;
    expectedTag: string;
    arrivedTag: string;
    amount: string;
    currency: string;
    redirected: boolean;
  } | null;
}

/** Captures the storefront's cart attributes for one order; the browser step replaces the default. */
export type CaptureCart = (input: {
  clickId: string;
  expectedTag: string | null;
  arrivedTag: string | null;
  tagParam: string;
}) => Promise<Record<string, string>>;

export const syntheticCapture: CaptureCart = async ({ clickId, expectedTag, arrivedTag }) => {
  // What the storefront extension writes, for machines without a browser.
  const now = new Date().toISOString();
  const history = [expectedTag, arrivedTag].filter(
    (tag, i, all): tag is string => tag !== null && all.indexOf(tag) === i,
  );
  return {
    [CART_ATTRIBUTES.clickId]: clickId,
    [CART_ATTRIBUTES.capturedAt]: now,
    ...(arrivedTag !== null && { [CART_ATTRIBUTES.arrivedTag]: arrivedTag }),
    ...(history.length > 0 && { [CART_ATTRIBUTES.tagHistory]: JSON.stringify(history.map((tag) => [tag, now])) }),
  };
};

/** A fresh session token for one request: Shopify's live 60 seconds, so none is reused. */
export function sessionToken(stack: Stack): string {
  return signSessionToken({ shop: stack.shop, apiKey: stack.apiKey, secret: stack.apiSecret });
}

export async function saveSettings(stack: Stack, settings: Scenario["settings"]): Promise<void> {
  const form = new URLSearchParams({
    intent: "save",
    clickServiceUrl: stack.clickServiceUrl,
    apiKey: stack.clickServiceApiKey,
    tagParams: settings.tagParams.join(", "),
    hijackTag: settings.hijackTag,
    commissionRate: settings.commissionRate,
    orderValueBasis: settings.orderValueBasis,
    autoVerify: "true",
  });
  const response = await fetch(`${stack.appUrl}/app/settings?_data=${encodeURIComponent("routes/app.settings")}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${sessionToken(stack)}`,
      "content-type": "application/x-www-form-urlencoded",
      "user-agent": BROWSER_USER_AGENT,
    },
    body: form,
  });
  const body = (await response.json().catch(() => null)) as { ok?: boolean; errors?: Record<string, string> } | null;
  if (!response.ok || !body?.ok) {
    const detail = body?.errors
      ? Object.entries(body.errors)
          .map(([field, message]) => `settings.${field}: ${message}`)
          .join("; ")
      : `HTTP ${response.status}`;
    throw new Error(`the app refused the scenario's settings: ${detail}`);
  }
}

export async function createClicks(
  stack: Stack,
  scenario: Scenario,
): Promise<Map<string, { clickId: string; expectedTag: string }>> {
  const clicks = new Map<string, { clickId: string; expectedTag: string }>();
  for (const click of scenario.clicks) {
    const response = await fetch(`${stack.clickServiceUrl}/sandbox/clicks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        expectedTag: click.expectedTag,
        creatorId: click.creatorId,
        timestamp: new Date(Date.now() - click.ageMinutes * 60_000).toISOString(),
      }),
    });
    if (response.status !== 201)
      throw new Error(
        `the click service refused click "${click.ref}": HTTP ${response.status} ${await response.text()}`,
      );
    const record = (await response.json()) as { clickId: string };
    clicks.set(click.ref, { clickId: record.clickId, expectedTag: click.expectedTag });
  }
  return clicks;
}

export async function placeOrders(
  stack: Stack,
  scenario: Scenario,
  clicks: Map<string, { clickId: string; expectedTag: string }>,
  capture: CaptureCart,
): Promise<Map<string, { orderId: string; orderName: string }>> {
  const placed = new Map<string, { orderId: string; orderName: string }>();
  const base = 7_000_000_000_000 + (Date.now() % 1_000_000) * 100;
  for (const [index, order] of scenario.orders.entries()) {
    const click = order.click ? clicks.get(order.click) : undefined;
    const clickId = click?.clickId ?? order.clickId ?? null;
    const payload = await orderPayload(
      order,
      base + index,
      clickId,
      click?.expectedTag ?? null,
      scenario.settings.tagParams[0]!,
      capture,
    );
    stack.shopify.createOrder(stack.shop, payload);
    const body = JSON.stringify(payload);
    const headers = webhookHeaders({
      topic: "orders/create",
      shop: stack.shop,
      apiVersion: "2026-07",
      body,
      secret: stack.apiSecret,
      eventId: `demo-evt-${payload.id}`,
    });
    // Identical deliveries (same headers, same body), all at once: what Shopify's retries look like.
    const statuses = await Promise.all(
      Array.from(
        { length: order.deliveries },
        async () => (await fetch(`${stack.appUrl}/webhooks/orders/create`, { method: "POST", headers, body })).status,
      ),
    );
    if (statuses.some((status) => status !== 200))
      throw new Error(`order "${order.ref}": the app answered ${statuses.join(", ")} to its deliveries`);
    placed.set(order.ref, { orderId: String(payload.id), orderName: String(payload.name) });
  }
  return placed;
}

async function orderPayload(
  order: ScenarioOrder,
  id: number,
  clickId: string | null,
  expectedTag: string | null,
  tagParam: string,
  capture: CaptureCart,
) {
  const arrivedTag = order.arrivedTag ?? null;
  let noteAttributes: Record<string, string> = {};
  let landingSite = "/";
  if (clickId && order.capture === "cart_attributes") {
    noteAttributes = await capture({ clickId, expectedTag, arrivedTag, tagParam });
  } else if (clickId && order.capture === "landing_site") {
    const query = new URLSearchParams({ [CLICK_ID_PARAM]: clickId });
    if (arrivedTag !== null) query.set(tagParam, arrivedTag);
    landingSite = `/products/demo?${query.toString()}`;
  }
  const payload = buildOrderCreatePayload({
    id,
    number: 1000 + (id % 100_000),
    currency: order.currency,
    lineItems: [{ title: "Demo product", price: order.subtotal }],
    noteAttributes,
    landingSite,
  });
  // The scenario's subtotal as written, never through a float.
  return {
    ...payload,
    subtotal_price: order.subtotal,
    current_subtotal_price: order.subtotal,
    total_line_items_price: order.subtotal,
    total_price: order.subtotal,
  };
}

export async function waitForOutcomes(stack: Stack, orderIds: string[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // An outcome is final once written ("rejected" waits for a new key, which the demo never sends).
    const rows = await stack.db.verification.findMany({
      where: { shop: stack.shop, orderId: { in: orderIds }, outcome: { not: null } },
      select: { orderId: true },
    });
    const pending = orderIds.filter((id) => !rows.some((row) => row.orderId === id));
    if (pending.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(`orders still not verified after ${timeoutMs / 1000} s: ${pending.join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function readReport(
  stack: Stack,
  scenario: Scenario,
  placed: Map<string, { orderId: string; orderName: string }>,
): Promise<OrderReport[]> {
  return Promise.all(
    scenario.orders.map(async (order) => {
      const { orderId, orderName } = placed.get(order.ref)!;
      const row = await stack.db.verification.findUnique({
        where: { shop_orderId: { shop: stack.shop, orderId } },
        select: {
          outcome: true,
          commission: {
            select: {
              creatorId: true,
              expectedTag: true,
              arrivedTag: true,
              amount: true,
              currency: true,
              redirected: true,
            },
          },
        },
      });
      return {
        ref: order.ref,
        orderId,
        orderName,
        outcome: row?.outcome ?? null,
        tags: stack.shopify.store.findOrder(orderId)?.order.tags ?? [],
        commission: row?.commission ?? null,
      };
    }),
  );
}
