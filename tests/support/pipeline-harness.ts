import { Session } from "@shopify/shopify-api";
import { afterAll, afterEach, beforeAll } from "vitest";
import { createClickServiceClient } from "../../app/click-service";
import { sessionStorage } from "../../app/shopify.server";
import { databaseClient } from "../../app/database/db.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import type { SettingsInput } from "../../app/settings/settings-schema";
import { routeShopifyTrafficTo, type StandinRouting } from "../../app/platform/shopify-standin-routing.server";
import type { JobRunner } from "../../app/queue/runner.server";
import type { PipelineDeps } from "../../app/verification/order-run.server";
import { offlineAdmin } from "../../app/shopify.server";
import { startWorker } from "../../app/worker/worker.server";
import { CART_ATTRIBUTES } from "../../app/attribution/cart-attributes";
import { LOOKUP_CLICK_PATH, VERIFY_CLICK_PATH } from "../../app/click-service/contract";
import { startClickService, type RunningClickService } from "../../sandbox/click-service/server";
import {
  buildOrderCancelledPayload,
  buildRefundCreatePayload,
  startShopifyStandin,
  type OrderDescription,
  type OrderWebhookPayload,
  type ShopifyStandin,
} from "../../sandbox/shopify";
import { servePublicRoutes } from "./app-routes";
import { deliver, TEST_SECRET } from "./deliver";
import { orderPayload, storeOfflineSession } from "./fixtures";
import type { RouteServer } from "./route-server";

const prisma = databaseClient();

// Everything the order pipeline talks to, for real: the app's webhook routes over HTTP, the
// sandbox click service over HTTP, and the Shopify stand-in reached through the library's
// own Admin client (global fetch rerouted from *.myshopify.com), on a real SQLite file.

/**
 * The one clock of a harness: the worker's `now`, the click sandbox's (click lifetimes, record
 * times) and the Shopify stand-in's (token expiry, throttle refill). Wall time until a test
 * sets `now`; moving it moves all three together.
 */
export class HarnessClock {
  now: Date | null = null;
  readonly date = (): Date => this.now ?? new Date();
  readonly ms = (): number => this.date().getTime();
}

export interface Harness {
  app: RouteServer;
  clicks: RunningClickService;
  shopify: ShopifyStandin;
  routing: StandinRouting;
  apiKey: string;
  clock: HarnessClock;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const clock = new HarnessClock();
  const clicks = await startClickService({ clock: clock.date });
  const shopify = await startShopifyStandin({ appSecret: TEST_SECRET, apiKey: "test-api-key", clock: clock.ms });
  const routing = routeShopifyTrafficTo(shopify.url);
  const app = await servePublicRoutes();
  return {
    app,
    clicks,
    shopify,
    routing,
    apiKey: clicks.createApiKey(),
    clock,
    async close() {
      await app.close();
      await routing.restore();
      await shopify.close();
      await clicks.close();
    },
  };
}

export async function installShop(h: Harness, shop: string, settings: Partial<SettingsInput> = {}): Promise<void> {
  const saved = await saveSettings(shop, { clickServiceUrl: h.clicks.url, apiKey: h.apiKey, ...settings });
  if (!saved.ok) throw new Error(`settings refused: ${JSON.stringify(saved.errors)}`);
  await storeOfflineSession(shop, h.shopify.issueToken(shop, { scope: ["read_orders", "write_orders"] }).token);
}

/**
 * Installs a shop whose offline token is an expiring one (as the app asks Shopify for) issued
 * `minutesAgo` on the harness clock: past 60 minutes the worker must refresh it to tag an order.
 */
export async function installShopWithExpiringToken(h: Harness, shop: string, minutesAgo: number): Promise<void> {
  const saved = await saveSettings(shop, { clickServiceUrl: h.clicks.url, apiKey: h.apiKey });
  if (!saved.ok) throw new Error(`settings refused: ${JSON.stringify(saved.errors)}`);
  const now = h.clock.now;
  h.clock.now = new Date(h.clock.ms() - minutesAgo * 60_000);
  const issued = h.shopify.issueToken(shop, { scope: ["read_orders", "write_orders"], expiring: true });
  h.clock.now = now;
  await sessionStorage.storeSession(
    new Session({
      id: `offline_${shop}`,
      shop,
      state: "",
      isOnline: false,
      scope: issued.scope.join(","),
      accessToken: issued.token,
      expires: new Date(issued.expiresAt!),
      refreshToken: issued.refreshToken!,
      refreshTokenExpires: new Date(issued.refreshTokenExpiresAt!),
    }),
  );
}

/** Pipeline dependencies with the click client's in-call backoff not slept. */
export function testDeps(overrides: Partial<PipelineDeps> = {}): PipelineDeps {
  return {
    clickService: (settings) =>
      createClickServiceClient({
        baseUrl: settings.clickServiceUrl,
        apiKey: settings.apiKey,
        sleep: async () => {},
        maxAttempts: 2,
      }),
    shopifyAdmin: offlineAdmin,
    ...overrides,
  };
}

/** A dependency that always throws `message`: a fault inside the app, not an answer from outside. */
export function alwaysThrowing(message: string): () => never {
  return () => {
    throw new Error(message);
  };
}

export interface WorkerSetup {
  deps?: Partial<PipelineDeps>;
  owner?: string;
  concurrency?: number;
  leaseMs?: number;
  /** Hourly unless a test is about polling: work then runs only when asked for or woken. */
  pollIntervalMs?: number;
}

/** A worker on the harness clock that only runs when a test says so (runOnce) or work is queued here. */
export function worker(h: Harness, setup: WorkerSetup = {}): JobRunner {
  return startWorker({
    owner: setup.owner,
    concurrency: setup.concurrency ?? 4,
    leaseMs: setup.leaseMs,
    pollIntervalMs: setup.pollIntervalMs ?? 3_600_000,
    now: h.clock.date,
    random: () => 0.5,
    deps: testDeps(setup.deps),
  });
}

export interface OrderSpec {
  shop: string;
  expectedTag?: string;
  creatorId?: string;
  /** null: the click id arrived without any tag. */
  arrivedTag?: string | null;
  capture?: "cart_attributes" | "landing_site" | "none";
  clickAgeMinutes?: number;
  /** Use this click id instead of creating a click in the sandbox. */
  clickId?: string;
  subtotal?: string;
  currency?: string;
  deliveries?: number;
  attributes?: Record<string, string>;
  /** The order's cart_token (the landing touches of that cart attribute it). */
  cartToken?: string;
  /** Where the shopper paid from, as Shopify records it: browser_ip and client_details.user_agent. */
  paidFrom?: { browserIp: string; userAgent: string };
  /** Where the webhook goes: the harness's app unless another instance is named. */
  appUrl?: string;
  /** The order's money beyond one line at `subtotal`: several lines, a discount, tax, shipping. */
  amounts?: Pick<OrderDescription, "lineItems" | "discount" | "tax" | "shipping">;
  /**
   * The order's landing_site. By default what Shopify records for the capture: the creator's
   * link the shopper landed through (the expected tag on it; none when the tag was stripped)
   * for cart_attributes, the page with the arrived tag for landing_site, the home page for none.
   */
  landingSite?: string | null;
}

export async function placeOrder(h: Harness, spec: OrderSpec) {
  const age = (spec.clickAgeMinutes ?? 5) * 60_000;
  const clickedAt = new Date(h.clock.ms() - age);
  const clickId =
    spec.clickId ??
    h.clicks.addClick({
      expectedTag: spec.expectedTag ?? "alice-20",
      creatorId: spec.creatorId ?? "cr_alice",
      timestamp: clickedAt.toISOString(),
    }).clickId;
  const arrivedTag = spec.arrivedTag === undefined ? (spec.expectedTag ?? "alice-20") : spec.arrivedTag;
  const capture = spec.capture ?? "cart_attributes";
  const attributes: Record<string, string> = { ...spec.attributes };
  let landingSite: string | null = "/";
  if (capture === "cart_attributes") {
    attributes[CART_ATTRIBUTES.clickId] = clickId;
    attributes[CART_ATTRIBUTES.capturedAt] = clickedAt.toISOString();
    if (arrivedTag !== null) attributes[CART_ATTRIBUTES.arrivedTag] = arrivedTag;
    const link = new URLSearchParams({ lb_click: clickId });
    if (arrivedTag !== null) link.set("tag", spec.expectedTag ?? "alice-20");
    landingSite = `/?${link.toString()}`;
  } else if (capture === "landing_site") {
    const query = new URLSearchParams({ lb_click: clickId });
    if (arrivedTag !== null) query.set("tag", arrivedTag);
    landingSite = `/products/widget?${query.toString()}`;
  }
  const payload = orderPayload({
    currency: spec.currency ?? "USD",
    lineItems: [{ title: "Widget", price: spec.subtotal ?? "120.00" }],
    ...spec.amounts,
    noteAttributes: attributes,
    landingSite: spec.landingSite === undefined ? landingSite : spec.landingSite,
    createdAt: h.clock.date(),
  });
  if (spec.cartToken) payload.cart_token = spec.cartToken;
  if (spec.paidFrom) {
    payload.browser_ip = spec.paidFrom.browserIp;
    payload.client_details = { browser_ip: spec.paidFrom.browserIp, user_agent: spec.paidFrom.userAgent };
  }
  h.shopify.createOrder(spec.shop, payload);
  const eventId = `evt-${payload.id}`;
  const responses = await Promise.all(
    Array.from({ length: spec.deliveries ?? 1 }, () =>
      deliver(spec.appUrl ?? h.app.url, "/webhooks/orders/create", {
        topic: "orders/create",
        shop: spec.shop,
        body: payload,
        eventId,
        webhookId: `wh-${payload.id}`,
      }),
    ),
  );
  return { payload, clickId, statuses: responses.map((response) => response.status) };
}

/** An order's verification with its commission, its attempt log and its job. */
export async function verificationOf(shop: string, orderId: number | string) {
  const verification = await prisma.verification.findUniqueOrThrow({
    where: { shop_orderId: { shop, orderId: String(orderId) } },
    include: { commission: true, attemptLog: { orderBy: [{ startedAt: "asc" }, { number: "asc" }] } },
  });
  const job = await prisma.job.findUniqueOrThrow({
    where: { kind_subject: { kind: "verify-order", subject: verification.id } },
  });
  return { ...verification, job };
}

/** The shop's record of a click (what lookup-click learned of it when the shopper landed). */
export function clickRecordOf(shop: string, clickId: string) {
  return prisma.clickRecord.findUniqueOrThrow({ where: { shop_clickId: { shop, clickId } } });
}

export function tagsAddCalls(h: Harness, orderGid: string): number {
  return h.shopify
    .requests()
    .filter(
      (request) => request.operationName === "TagGuardMarkOrderHijacked" && request.status === 200 && !request.fault,
    )
    .filter((request) => (request.variables as { id?: string } | undefined)?.id === orderGid).length;
}

export function orderTags(h: Harness, orderId: number): string[] {
  return h.shopify.store.findOrder(orderId)?.order.tags ?? [];
}

/**
 * Sends refunds/create for `subtotal` of the order (one refund line of that amount), `deliveries`
 * times at once under one event id, as Shopify's retries do; returns the refund's payload.
 */
export async function refundOrder(
  h: Harness,
  shop: string,
  order: OrderWebhookPayload,
  options: { subtotal: string; shipping?: string; deliveries?: number; currency?: string },
) {
  const refund = buildRefundCreatePayload({
    orderId: order.id,
    currency: options.currency ?? String(order.currency),
    lines: [{ price: options.subtotal }],
    shipping: options.shipping,
    createdAt: h.clock.date(),
  });
  // Shopify holds the refund whether or not its webhook reaches the app (deliveries: 0).
  if (h.shopify.store.findOrder(order.id)) h.shopify.store.addRefund(shop, refund);
  const statuses = await sendTimes(
    h,
    "refunds/create",
    shop,
    refund,
    `evt-refund-${String(refund.id)}`,
    options.deliveries,
  );
  return { refund, statuses };
}

/**
 * Commits an edit of the order in the stand-in (its subtotal after discounts becomes `subtotal`)
 * and sends orders/edited `deliveries` times at once under one event id (0: Shopify never
 * delivered it); returns the edit's payload.
 */
export async function editOrder(
  h: Harness,
  shop: string,
  order: OrderWebhookPayload,
  options: { subtotal: string; discount?: string; deliveries?: number },
) {
  const edit = h.shopify.store.editOrder(shop, order.id, options.subtotal, options.discount);
  const id = String((edit.order_edit as { id: number }).id);
  const statuses = await sendTimes(h, "orders/edited", shop, edit, `evt-edit-${id}`, options.deliveries);
  return { edit, statuses };
}

/** Sends orders/cancelled for the order, `deliveries` times at once under one event id. */
export async function cancelOrder(h: Harness, shop: string, order: OrderWebhookPayload, deliveries = 1) {
  const payload = buildOrderCancelledPayload(order, { at: h.clock.date() });
  if (h.shopify.store.findOrder(order.id)) h.shopify.store.cancelOrder(shop, payload);
  return sendTimes(h, "orders/cancelled", shop, payload, `evt-cancel-${order.id}`, deliveries);
}

async function sendTimes(h: Harness, topic: string, shop: string, body: unknown, eventId: string, times = 1) {
  const responses = await Promise.all(
    Array.from({ length: times }, () =>
      deliver(h.app.url, `/webhooks/${topic}`, { topic, shop, body, eventId, triggeredAt: h.clock.date() }),
    ),
  );
  return responses.map((response) => response.status);
}

export const VERIFY = VERIFY_CLICK_PATH;
export const LOOKUP = LOOKUP_CLICK_PATH;

/** verify-click requests that reached the sandbox service so far (faulted ones included). */
export function reportRequestCount(h: Harness): number {
  return h.clicks.state.requests.filter((request) => request.path === VERIFY).length;
}

/** Makes the sandbox service misbehave (sandbox/click-service/faults.ts says how). */
export async function clickFault(h: Harness, fault: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${h.clicks.url}/sandbox/faults`, {
    method: "POST",
    body: JSON.stringify(fault),
    headers: { "content-type": "application/json" },
  });
  if (response.status !== 201) throw new Error(`the sandbox refused the fault: ${await response.text()}`);
}

export async function clearClickFaults(h: Harness): Promise<void> {
  await fetch(`${h.clicks.url}/sandbox/faults`, { method: "DELETE" });
}

/** Runs the worker, moving the clock to each retry, until the order is done or parked (or `rounds` run out). */
export async function runOrderToEnd(h: Harness, w: JobRunner, shop: string, orderId: number, rounds = 20) {
  for (let round = 0; round < rounds; round += 1) {
    await w.runOnce();
    const v = await verificationOf(shop, orderId);
    if (v.job.state === "done" || v.job.state === "parked") return v;
    h.clock.now = new Date(v.job.runAt.getTime() + 1);
  }
  return verificationOf(shop, orderId);
}

/** One test file's harness, its shops and its workers (`useHarness`). */
export interface HarnessSuite {
  /** Started before the file's first test. */
  readonly h: Harness;
  /** This file's workers still to stop after the test. */
  readonly running: JobRunner[];
  /** A new shop domain, named after the file's prefix. */
  nextShop(): string;
  /** A new shop, installed with `settings`. */
  newShop(settings?: Partial<SettingsInput>): Promise<string>;
  /** A worker on the harness clock, stopped after the test. */
  startWorker(setup?: WorkerSetup): JobRunner;
}

/**
 * Starts a harness for the test file that calls it and closes it after; after each test its
 * workers are stopped and the clock goes back to wall time. Shops are named `<prefix>-N`.
 */
export function useHarness(shopPrefix: string): HarnessSuite {
  let harness: Harness | undefined;
  const running: JobRunner[] = [];
  let shopNumber = 0;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((w) => w.stop()));
    if (harness) harness.clock.now = null;
  });
  afterAll(() => harness?.close());
  const suite: HarnessSuite = {
    get h() {
      if (!harness) throw new Error("the harness starts in beforeAll");
      return harness;
    },
    running,
    nextShop() {
      shopNumber += 1;
      return `${shopPrefix}-${shopNumber}.myshopify.com`;
    },
    async newShop(settings = {}) {
      const shop = suite.nextShop();
      await installShop(suite.h, shop, settings);
      return shop;
    },
    startWorker(setup = {}) {
      const w = worker(suite.h, setup);
      running.push(w);
      return w;
    },
  };
  return suite;
}
