import type { PrismaClient } from "@prisma/client";
import Decimal from "decimal.js";
import { ExactDecimal, minorDigits } from "../../app/units/minor-units";
import { CART_ATTRIBUTES, CLICK_ID_PARAM } from "../../app/attribution/cart-attributes";
import { CLICK_LIFETIME_MS } from "../../app/click-service/contract";
import { embeddedRequest } from "./embedded-request";
import {
  buildOrderCancelledPayload,
  buildOrderCreatePayload,
  buildRefundCreatePayload,
  DEFAULT_API_VERSION,
  signSessionToken,
  webhookHeaders,
  type ShopifyStandin,
} from "../shopify";
import { signedProxyQuery } from "../storefront/app-proxy";
import type { PixelVisitor } from "../storefront/web-pixel";
import { witnessOf, type Witness } from "../../app/attribution/witnesses";
import { APP_PROXY_APP_PATH } from "../../app/attribution/cart-attributes";
import { reported, type DemoPixel } from "./pixel-journey";
import type { Scenario, ScenarioOrder } from "./scenario";
import { shopperJourney } from "./shopper-journey";

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
  /** Where the verdict came from: "service", "landing" (the click as looked up at landing) or null. */
  source: string | null;
  /** The cart's attributes disagreed with the landing touches. */
  tampered: boolean;
  /** Where the click id that decided the order came from (decision 030); null: none reached it. */
  witness: Witness | null;
  tags: string[];
  /** The codes the app stored for the order, with the discount each took. */
  discountCodes: { code: string; amount: string }[];
  commission: {
    creatorId: string;
    expectedTag: string;
    arrivedTag: string;
    /** Net of edits, refunds and a cancellation. */
    amount: string;
    currency: string;
    redirected: boolean;
    status: string;
  } | null;
}

/** Captures the storefront's cart attributes for one order; the browser step replaces the default. */
export type CaptureCart = (input: CaptureInput) => Promise<Record<string, string>>;

export interface CaptureInput {
  clickId: string;
  expectedTag: string | null;
  arrivedTag: string | null;
  tagParam: string;
  /** The journey's touches reach the app through the app proxy (the order's "landing": true). */
  landing?: boolean;
}

/** The same journey, with the cart's token as well (null when the journey had no cart). */
export type CaptureShopper = (
  input: CaptureInput,
) => Promise<{ attributes: Record<string, string>; cartToken: string | null }>;

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
/** What saving settings through the app's own settings route needs of a stack. */
export type SettingsTarget = Pick<
  Stack,
  "appUrl" | "shop" | "apiKey" | "apiSecret" | "clickServiceUrl" | "clickServiceApiKey"
>;

export function sessionToken(stack: SettingsTarget): string {
  return signSessionToken({ shop: stack.shop, apiKey: stack.apiKey, secret: stack.apiSecret });
}

export async function saveSettings(stack: SettingsTarget, settings: Scenario["settings"]): Promise<void> {
  const form = new URLSearchParams({
    intent: "save",
    clickServiceUrl: stack.clickServiceUrl,
    apiKey: stack.clickServiceApiKey,
    tagParams: settings.tagParams.join(", "),
    hijackTag: settings.hijackTag,
    commissionRate: settings.commissionRate,
    orderValueBasis: settings.orderValueBasis,
    autoVerify: "true",
    ...(settings.holdDays !== undefined && { holdDays: String(settings.holdDays) }),
  });
  const response = await embeddedRequest(stack.appUrl, "settings", sessionToken(stack), form);
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

export interface CreatedClick {
  clickId: string;
  expectedTag: string;
  /** Minutes to age the click once its landing was looked up: the shopper landed while it was fresh. */
  ageAfterLanding: number | null;
}

export async function createClicks(stack: Stack, scenario: Scenario): Promise<Map<string, CreatedClick>> {
  const clicks = new Map<string, CreatedClick>();
  for (const click of scenario.clicks) {
    const landedFresh =
      click.ageMinutes > CLICK_LIFETIME_MS / 60_000 &&
      scenario.orders.some((order) => order.landing && order.click === click.ref);
    const ageNow = landedFresh ? 0 : click.ageMinutes;
    const response = await fetch(`${stack.clickServiceUrl}/sandbox/clicks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        expectedTag: click.expectedTag,
        creatorId: click.creatorId,
        timestamp: new Date(Date.now() - ageNow * 60_000).toISOString(),
      }),
    });
    if (response.status !== 201)
      throw new Error(
        `the click service refused click "${click.ref}": HTTP ${response.status} ${await response.text()}`,
      );
    const record = (await response.json()) as { clickId: string };
    clicks.set(click.ref, {
      clickId: record.clickId,
      expectedTag: click.expectedTag,
      ageAfterLanding: landedFresh ? click.ageMinutes : null,
    });
  }
  return clicks;
}

export async function placeOrders(
  stack: Stack,
  scenario: Scenario,
  clicks: Map<string, CreatedClick>,
  capture: CaptureShopper,
  pixel: DemoPixel | null = null,
): Promise<Map<string, { orderId: string; orderName: string }>> {
  const placed = new Map<string, { orderId: string; orderName: string }>();
  const base = 7_000_000_000_000 + (Date.now() % 1_000_000) * 100;
  for (const [index, order] of scenario.orders.entries()) {
    const click = order.click ? clicks.get(order.click) : undefined;
    const clickId = click?.clickId ?? order.clickId ?? null;
    const { payload, visitor } = await orderPayload(
      stack,
      order,
      base + index,
      { clickId, click: click ?? null, clicks },
      scenario.settings.tagParams[0]!,
      capture,
      pixel,
    );
    stack.shopify.createOrder(stack.shop, payload);
    if (visitor) {
      // The thank-you page: Shopify publishes checkout_completed to the pixel, which reports it
      // before the order's webhook is sent (the demo does not play the race between the two).
      const attributes = Object.fromEntries(payload.note_attributes.map((a) => [a.name, String(a.value)]));
      const { checkout_token: checkoutToken } = payload as { checkout_token?: unknown };
      visitor.checkoutCompleted(
        String(payload.id),
        attributes,
        typeof checkoutToken === "string" ? checkoutToken : null,
      );
      await reported(visitor, "checkout");
    }
    await sendWebhook(stack, order, "orders/create", payload, `demo-evt-${payload.id}`);
    // What happened to the order next, sent at once, while it may still be being verified.
    for (const edit of order.edits) {
      // Shopify commits the edit (a new version of the order), then sends orders/edited.
      const edited = stack.shopify.store.editOrder(stack.shop, payload.id, edit.subtotal);
      const editId = String((edited.order_edit as { id: unknown }).id);
      await sendWebhook(stack, order, "orders/edited", edited, `demo-evt-edit-${editId}`);
    }
    for (const refund of order.refunds) {
      const refundPayload = buildRefundCreatePayload({
        orderId: payload.id,
        currency: order.currency,
        lines: [{ title: "Demo product", price: refund.subtotal }],
      });
      // Shopify holds what its webhooks describe: the reconciliation sweep reads the same refund.
      stack.shopify.store.addRefund(stack.shop, refundPayload);
      await sendWebhook(stack, order, "refunds/create", refundPayload, `demo-evt-refund-${String(refundPayload.id)}`);
    }
    if (order.cancel) {
      const cancellation = buildOrderCancelledPayload(payload);
      stack.shopify.store.cancelOrder(stack.shop, cancellation);
      await sendWebhook(stack, order, "orders/cancelled", cancellation, `demo-evt-cancel-${payload.id}`);
    }
    placed.set(order.ref, { orderId: String(payload.id), orderName: String(payload.name) });
  }
  return placed;
}

/** The order's `deliveries` identical deliveries (same headers, same body), all at once: what Shopify's retries look like. */
function sendWebhook(stack: Stack, order: ScenarioOrder, topic: string, payload: unknown, eventId: string) {
  return deliverWebhook(stack, topic, payload, eventId, { deliveries: order.deliveries, what: `order "${order.ref}"` });
}

/**
 * A webhook as Shopify delivers it to the app: signed with the app's secret, with Shopify's
 * headers; `deliveries` identical copies at once. Fails unless the app answered each with 200.
 */
export async function deliverWebhook(
  stack: Pick<Stack, "appUrl" | "shop" | "apiSecret">,
  topic: string,
  payload: unknown,
  eventId: string,
  { deliveries = 1, what = "the order" }: { deliveries?: number; what?: string } = {},
): Promise<void> {
  const body = JSON.stringify(payload);
  const headers = webhookHeaders({
    topic,
    shop: stack.shop,
    apiVersion: DEFAULT_API_VERSION,
    body,
    secret: stack.apiSecret,
    eventId,
  });
  const statuses = await Promise.all(
    Array.from(
      { length: deliveries },
      async () => (await fetch(`${stack.appUrl}/webhooks/${topic}`, { method: "POST", headers, body })).status,
    ),
  );
  if (statuses.some((status) => status !== 200))
    throw new Error(`${what}: the app answered ${statuses.join(", ")} to its ${topic} deliveries`);
}

async function orderPayload(
  stack: Stack,
  order: ScenarioOrder,
  id: number,
  named: { clickId: string | null; click: CreatedClick | null; clicks: Map<string, CreatedClick> },
  tagParam: string,
  capture: CaptureShopper,
  pixel: DemoPixel | null,
) {
  const { clickId, click } = named;
  const arrivedTag = order.arrivedTag ?? null;
  let noteAttributes: Record<string, string> = {};
  let landingSite = "/";
  let cartToken: string | null = null;
  let visitor: PixelVisitor | null = null;
  if (clickId && order.capture === "cart_attributes") {
    const input = { clickId, expectedTag: click?.expectedTag ?? null, arrivedTag, tagParam, landing: order.landing };
    // Shopify records the first page of the shopper's visit as the order's landing_site: the
    // creator's link, as the shopper's journey begins (shopper-journey.ts).
    landingSite = shopperJourney(input)[0]!;
    // The app embed: off for a landing that says `embed: false` (no cart attributes, no touches).
    if (!order.landing || order.embed) {
      const shopper = await capture(input);
      noteAttributes = shopper.attributes;
      cartToken = shopper.cartToken;
    }
    if (order.landing) {
      // The web pixel sees the same pages, unless the order says `pixel: false`.
      if (order.pixel) {
        if (!pixel) throw new Error(`order "${order.ref}": the demo runs no web pixel`);
        visitor = pixel.visitor();
        // A shopper's pages come seconds apart, each report received before the next page is
        // seen: sent all at once, they could reach the app in another order than they were seen.
        for (const page of shopperJourney(input)) {
          visitor.pageViewed(page);
          await reported(visitor, "landing");
        }
      }
      if (order.embed || order.pixel) await landed(stack, clickId, click?.ageAfterLanding ?? null);
      if (order.tamper) {
        noteAttributes = tampered(noteAttributes, order.tamper, named.clicks);
        if (order.tamper.touch && cartToken) await tamperingTouch(stack, noteAttributes, cartToken);
      }
    }
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
  // The scenario's subtotal as written, never through a float. It is the subtotal after the
  // codes: the lines cost that much more before them.
  const codes = discountCodesOf(order);
  const discounts = codes.reduce((sum, c) => sum.plus(c.amount), new ExactDecimal(0));
  const digits = minorDigits(order.currency);
  return {
    payload: {
      ...payload,
      ...(cartToken && { cart_token: cartToken }),
      subtotal_price: order.subtotal,
      current_subtotal_price: order.subtotal,
      total_line_items_price: new ExactDecimal(order.subtotal).plus(discounts).toFixed(digits),
      total_price: order.subtotal,
      total_discounts: discounts.toFixed(digits),
      current_total_discounts: discounts.toFixed(digits),
      discount_codes: codes.map((c) => ({ code: c.code, amount: c.amount, type: "fixed_amount" })),
    },
    visitor,
  };
}

/** Each code's discount: as the scenario gives it, else 10% of the subtotal, to the currency's minor unit. */
export function discountCodesOf(order: ScenarioOrder): { code: string; amount: string }[] {
  const digits = minorDigits(order.currency);
  return order.discountCodes.map((c) => ({
    code: c.code,
    amount: new ExactDecimal(c.amount ?? new ExactDecimal(order.subtotal).dividedBy(10))
      .toDecimalPlaces(digits, Decimal.ROUND_HALF_UP)
      .toFixed(digits),
  }));
}

/**
 * The scenario's `deactivate`: each code switched off through the admin's Codes page, as a
 * merchant would once they have granted the optional discount scopes (App Bridge's
 * scopes.request, which the stand-in is told directly). The app finds the discount by its code
 * and deactivates it in the stand-in.
 */
export async function deactivateCodes(stack: Stack, codes: string[]): Promise<void> {
  if (codes.length === 0) return;
  stack.shopify.store.grantScopes(stack.shop, ["read_discounts", "write_discounts"]);
  for (const code of codes) {
    const response = await embeddedRequest(
      stack.appUrl,
      "codes",
      sessionToken(stack),
      new URLSearchParams({ intent: "switch-off", code }),
    );
    const body = (await response.json().catch(() => null)) as { ok?: boolean; message?: string } | null;
    if (!response.ok || !body?.ok)
      throw new Error(`the app did not switch off code ${code}: HTTP ${response.status} ${body?.message ?? ""}`);
  }
}

/**
 * The script that rewrote the cart also reports its click through the app proxy, as the embed
 * reports one (issue 38, finding 2): one signed touch naming the cart's new click and tag.
 */
async function tamperingTouch(stack: Stack, attributes: Record<string, string>, cartToken: string): Promise<void> {
  const clickId = attributes[CART_ATTRIBUTES.clickId];
  if (!clickId) return;
  const query = signedProxyQuery("", { shop: stack.shop, apiSecret: stack.apiSecret });
  const response = await fetch(`${stack.appUrl}${APP_PROXY_APP_PATH}/touch?${query.toString()}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ clickId, tag: attributes[CART_ATTRIBUTES.arrivedTag] ?? null, cartToken }),
  });
  if (response.status !== 202) throw new Error(`the app answered ${response.status} to the tampering script's touch`);
}

/**
 * After a landing: waits until the app has looked the click up (its record is no longer
 * pending), then, for a click the scenario dates over an hour back, ages it at the service:
 * the shopper landed while it was fresh and orders long after.
 */
async function landed(stack: Stack, clickId: string, ageAfterLanding: number | null, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const record = await stack.db.clickRecord.findFirst({
      where: { shop: stack.shop, clickId },
      select: { state: true },
    });
    if (record && record.state !== "pending") break;
    if (Date.now() > deadline)
      throw new Error(`the app did not look up the landed click ${clickId} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (ageAfterLanding === null) return;
  const response = await fetch(`${stack.clickServiceUrl}/sandbox/clicks/${encodeURIComponent(clickId)}/age`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ minutes: ageAfterLanding }),
  });
  if (!response.ok) throw new Error(`the click service refused to age click ${clickId}: HTTP ${response.status}`);
}

/** A script's rewrite of the cart after landing: another click (or none), another tag (or none). */
function tampered(
  attributes: Record<string, string>,
  tamper: NonNullable<ScenarioOrder["tamper"]>,
  clicks: Map<string, CreatedClick>,
): Record<string, string> {
  const out = { ...attributes };
  const set = (name: string, value: string | null | undefined) => {
    if (value === undefined) return;
    if (value === null) delete out[name];
    else out[name] = value;
  };
  set(CART_ATTRIBUTES.clickId, tamper.click ? clicks.get(tamper.click)!.clickId : tamper.clickId);
  set(CART_ATTRIBUTES.arrivedTag, tamper.arrivedTag);
  return out;
}

export async function waitForOutcomes(
  stack: Pick<Stack, "db" | "shop">,
  orderIds: string[],
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // An outcome is final once written ("rejected" waits for a new key, which the demo never sends).
    const rows = await stack.db.verification.findMany({
      where: { shop: stack.shop, orderId: { in: orderIds }, outcome: { not: null } },
      select: { orderId: true },
    });
    // And every refund and cancellation applied to its order's commission.
    const events = await stack.db.orderEvent.findMany({
      where: { shop: stack.shop, orderId: { in: orderIds }, appliedAt: null },
      select: { orderId: true },
    });
    const pending = orderIds.filter(
      (id) => !rows.some((row) => row.orderId === id) || events.some((event) => event.orderId === id),
    );
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
          verdictSource: true,
          captureSource: true,
          tampered: true,
          discountCodes: { select: { code: true, amount: true }, orderBy: { code: "asc" } },
          commission: {
            select: {
              creatorId: true,
              expectedTag: true,
              arrivedTag: true,
              amount: true,
              currency: true,
              redirected: true,
              status: true,
            },
          },
        },
      });
      return {
        ref: order.ref,
        orderId,
        orderName,
        outcome: row?.outcome ?? null,
        source: row?.verdictSource ?? null,
        tampered: row?.tampered ?? false,
        witness: witnessOf(row?.captureSource ?? null),
        tags: stack.shopify.store.findOrder(orderId)?.order.tags ?? [],
        discountCodes: row?.discountCodes ?? [],
        commission: row?.commission ?? null,
      };
    }),
  );
}

export interface CodeReport {
  /** Orders of the scenario the app stored the code on. */
  orders: number;
  /** Those of them the app found hijacked. */
  hijacked: number;
  /** The code's discount is no longer active in Shopify (the stand-in). */
  deactivated: boolean;
}

/**
 * Per code (in capitals, as the Codes page counts them: Shopify matches codes without regard to
 * case): its orders, the hijacked ones, and whether it is switched off in Shopify.
 */
export function codesReport(stack: Stack, orders: OrderReport[]): Record<string, CodeReport> {
  const codes: Record<string, CodeReport> = {};
  const shop = stack.shopify.store.shop(stack.shop);
  for (const order of orders)
    for (const { code } of order.discountCodes) {
      const entry = (codes[code.toUpperCase()] ??= {
        orders: 0,
        hijacked: 0,
        deactivated: (stack.shopify.store.discountByCode(shop, code)?.status ?? "ACTIVE") !== "ACTIVE",
      });
      entry.orders += 1;
      if (order.outcome === "hijacked") entry.hijacked += 1;
    }
  return codes;
}
