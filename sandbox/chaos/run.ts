import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import { createDatabaseClient } from "../../app/database/connect.server";
import { DEFAULT_SETTINGS } from "../../app/settings/defaults";
import { startClickService, type RunningClickService } from "../click-service/server";
import { APP_SCOPES, ensureBuild, migrate, standinAppEnv } from "../demo/app-process";
import { saveSettings, type Stack } from "../demo/run-scenario";
import { deriveSeed, seededRandom, type Random } from "../seeded-random";
import { startShopifyStandin, type ShopifyStandin } from "../shopify";
import { chaosDatabase, type ChaosDatabase } from "./database";
import { deliverCopies, eventsOf, shuffle, type DeliveryCounts } from "./deliveries";
import { startFleet, type Fleet } from "./fleet";
import { startFront, type Front } from "./front";
import { metricsScraper } from "./metrics";
import { payoutPages } from "./payout-pages";
import { playPayouts } from "./payouts";
import { startPaypalStandin, type PaypalStandin } from "../paypal/server";
import type { CommissionTerms } from "./ledger";
import { orderFactory, type PlannedOrder } from "./orders";
import {
  ledgerMismatches,
  lostOrders,
  observeOrders,
  safetyFigures,
  unexpectedOutcomes,
  type ChaosReport,
} from "./report";

// One chaos run: the app's production build as several processes on one PostgreSQL database,
// a click service that fails about 30% of calls, a Shopify that throttles about 20% of
// mutations, every webhook delivered two or three times at once and out of order, and app
// instances killed with kill -9 mid-run and restarted, refunds and cancellations among the
// orders. Then: did every order end exactly once, and its commission exactly where it must?

export interface ChaosOptions {
  orders: number;
  instances: number;
  kills: number;
  seed: number;
  /** Share of click-service calls that fail. */
  serviceFaultRate: number;
  /** Share of Shopify mutations throttled. */
  throttleRate: number;
  shops: number;
  /** Times PostgreSQL is stopped mid-run and started again, down for DATABASE_DOWN_MS each. */
  databaseRestarts: number;
  /** Share of events (orders, refunds, cancellations) never delivered at all: the sweep must find them. */
  dropDeliveries: number;
  /** Once the orders have settled, pay the creators by every method through the Payouts page (payouts.ts). */
  payouts: boolean;
  log: (line: string) => void;
  /** Where the run registers how to undo what it started (processes, the database), newest last. */
  cleanups: (() => Promise<unknown> | unknown)[];
}

/**
 * After the last delivery, how long the orders get to reach an outcome before those without
 * one count as lost: room for a crashed instance's leases to run out (WORKER_LEASE_MS below), for
 * a job's retries with backoff (app/queue/backoff.ts: a few minutes at most once a fault
 * repeats), and for slow replies past the client's timeout.
 */
export const DRAIN_MS = 10 * 60_000;
/** A crashed instance's jobs are taken over after this: short, so takeovers happen within the run. */
const WORKER_LEASE_MS = 15_000;
/** Orders sent but not yet decided, at most: the run keeps pace with the app, so no click outlives its hour waiting. */
const IN_FLIGHT_ORDERS = 300;
/** How long each restart keeps PostgreSQL down: a restart, not an outage Shopify's retries would outlast. */
const DATABASE_DOWN_MS = 3_000;
/**
 * The reconciliation sweep on the run's time scale: every few seconds, a few seconds behind, so
 * that what was never delivered is found within the drain (production: 5 min, 2 min behind).
 */
const RECONCILE = { intervalMs: 5_000, lagMs: 10_000 };
/**
 * How long everything must stay applied before the drain ends: past the sweep's lag and two of
 * its turns, so an edit whose webhook was dropped is found and applied (decision 045).
 */
const SWEEP_TURN_MS = RECONCILE.lagMs + 2 * RECONCILE.intervalMs;
/** Share of the Shopify mutations it applied whose answer is lost, while payouts are played. */
const LOSE_ANSWER_RATE = 0.15;
/**
 * How long after a store credit or gift card attempt whose answer was lost the app looks (2 min in
 * production): the stand-in's listings are up to date at once, so the run's time scale.
 */
const PAYOUT_LOOK_AFTER_MS = 5_000;
/** How often the instances' metrics endpoints are scraped (a Prometheus's usual 15 s, shortened to the run's scale). */
const METRICS_SCRAPE_MS = 2_000;
/** Orders whose events are shuffled together. */
const BATCH = 50;
/** Events delivered at once (each with its two or three copies). */
const PARALLEL_EVENTS = 24;
/** Every shop's commission terms, saved through the settings page; the ledger check plans with them. */
const TERMS: CommissionTerms = {
  commissionRate: "10",
  orderValueBasis: DEFAULT_SETTINGS.orderValueBasis,
  holdDays: DEFAULT_SETTINGS.holdDays,
};

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  const { log, cleanups } = options;
  try {
    ensureBuild(log);
    const database = await chaosDatabase(process.env.DATABASE_URL?.trim() || undefined, options.databaseRestarts > 0);
    cleanups.push(() => database.drop());
    log(`Playing on a new PostgreSQL database on ${database.where}; seed ${options.seed}`);
    migrate(database.url);
    const db = createDatabaseClient(database.url);
    cleanups.push(() => db.$disconnect());

    const apiKey = randomBytes(16).toString("hex");
    const apiSecret = randomBytes(32).toString("hex");
    const clicks = await startClickService();
    cleanups.push(() => clicks.close());
    const shopify = await startShopifyStandin({ appSecret: apiSecret, apiKey, scopes: APP_SCOPES });
    cleanups.push(() => shopify.close());
    const random = (part: string): Random => seededRandom(deriveSeed(options.seed, part));
    // With --payouts: PayPal, and the load balancer its webhooks reach the instances through.
    let fleetRef: Fleet | null = null;
    let paying: { paypal: PaypalStandin; front: Front } | null = null;
    if (options.payouts) {
      const paypal = await startPaypalStandin();
      cleanups.push(() => paypal.close());
      const front = await startFront(() => fleetRef?.pick() ?? null);
      cleanups.push(() => front.close());
      paying = { paypal, front };
    }

    const metrics = metricsScraper();
    const fleet = await startFleet(
      options.instances,
      {
        ...standinAppEnv({
          apiKey,
          apiSecret,
          databaseUrl: database.url,
          shopifyUrl: shopify.url,
          clickServiceUrl: clicks.url,
        }),
        WORKER_CONCURRENCY: "16",
        WORKER_POLL_INTERVAL_MS: "1000",
        WORKER_LEASE_MS: String(WORKER_LEASE_MS),
        RECONCILE_INTERVAL_MS: String(RECONCILE.intervalMs),
        RECONCILE_LAG_MS: String(RECONCILE.lagMs),
        LOG_LEVEL: "error",
        ...(paying && { PAYPAL_API_ORIGIN: paying.paypal.url, PAYOUT_LOOK_AFTER_MS: String(PAYOUT_LOOK_AFTER_MS) }),
      },
      random("instances"),
      log,
      metrics,
    );
    cleanups.push(() => fleet.stop());
    fleetRef = fleet;
    // As an operator's Prometheus would: every few seconds, while the run lasts.
    const scraping = setInterval(() => void metrics.scrapeAll(), METRICS_SCRAPE_MS);
    cleanups.push(() => clearInterval(scraping));

    const shops = await installShops(options.shops, { apiKey, apiSecret, db, clicks, shopify, fleet });
    log(`Installed ${shops.length} shops through the app's settings page`);

    clicks.chaos({ seed: deriveSeed(options.seed, "click-service"), rate: options.serviceFaultRate });
    shopify.chaos({ seed: deriveSeed(options.seed, "shopify"), throttleMutations: options.throttleRate });
    const counts: DeliveryCounts = { sent: 0, abandoned: 0, answers: {} };
    const { orders, kills, databaseRestarts, droppedDeliveries, droppedEdits } = await sendOrders(options, {
      db,
      database,
      fleet,
      apiSecret,
      counts,
      random: random("orders"),
      drops: random("drops"),
      factory: orderFactory({ random: random("order-kinds"), shops, clicks, shopify, firstId: 8_100_000_000_000 }),
    });
    const refunds = orders.reduce((n, order) => n + order.refunds.length, 0);
    const cancellations = orders.filter((order) => order.cancellation).length;
    const edits = orders.filter((order) => order.edit).length;
    log(
      `Sent ${counts.sent} deliveries for ${orders.length} orders, ${edits} edits, ${refunds} refunds and ${cancellations} cancellations ` +
        `(answers: ${JSON.stringify(counts.answers)}), withheld every copy of ${droppedDeliveries} events ` +
        `(${droppedEdits} of them edits, which the sweep records only where one would move a commission); ` +
        `waiting up to ${DRAIN_MS / 60_000} min for their outcomes...`,
    );
    await drain(db, { orders: orders.length, events: refunds + cancellations }, DRAIN_MS, log);
    const reconciled = await reconciledEvents(db);
    log(`The reconciliation sweep recorded ${JSON.stringify(reconciled)} that no webhook had brought`);

    log(await eventTimings(db));
    const observations = await observeOrders(db, orders, clicks, shopify, {
      ...TERMS,
      hijackTag: DEFAULT_SETTINGS.hijackTag,
    });
    const unexpected = unexpectedOutcomes(orders, observations);
    log(`${unexpected.length} orders ended otherwise than planned${unexpected.length ? ":" : ""}`);
    for (const line of unexpected.slice(0, 20)) log(`  ${JSON.stringify(line)}`);
    const lost = lostOrders(orders, observations);
    if (lost.length > 0) log(`${lost.length} orders lost:`);
    for (const line of lost.slice(0, 20)) log(`  ${JSON.stringify(line)}`);
    const mismatches = ledgerMismatches(orders, observations);
    const records = orders.filter((_, i) => observations[i]!.ledger !== null);
    const moved = records.filter(
      (order) => order.refunds.length > 0 || order.cancellation !== null || order.edit !== null,
    ).length;
    log(
      `${mismatches.length} of ${records.length} commission records differ from the plan ` +
        `(${moved} of them edited, refunded or cancelled)${mismatches.length ? ":" : ""}`,
    );
    for (const line of mismatches.slice(0, 20)) log(`  ${JSON.stringify(line)}`);
    // The orders are observed first: paying them moves their records on from where the plan ends them.
    const payouts = paying
      ? await playPayouts({
          db,
          fleet,
          shopify,
          ...paying,
          pages: payoutPages({ pickInstance: () => fleet.pick(), apiKey, apiSecret }),
          shops,
          seed: options.seed,
          kills: options.kills,
          throttleRate: options.throttleRate,
          loseAnswerRate: LOSE_ANSWER_RATE,
          log,
        })
      : null;
    if (counts.abandoned > 0) log(`${counts.abandoned} delivery copies never got a 200`);
    const errors = fleet.errors();
    if (errors.length > 0)
      log(`The instances logged these errors (count, message) in ${fleet.errorLines()} lines, repeats folded:`);
    for (const [message, count] of errors.slice(0, 15)) log(`  ${count} ${message}`);
    clearInterval(scraping);
    await metrics.scrapeAll();
    const scraped = metrics.figures();
    log(`Their metrics endpoints, scraped every ${METRICS_SCRAPE_MS / 1000} s: ${JSON.stringify(scraped)}`);

    return {
      orders: orders.length,
      deliveries: counts.sent,
      instances: fleet.size,
      database: "postgresql",
      kills: kills + (payouts?.kills ?? 0),
      databaseRestarts,
      droppedDeliveries,
      reconciled: reconciled.orders + reconciled.refunds + reconciled.cancellations + reconciled.edits,
      faultsInjected: {
        ...clicks.faultsInjected(),
        ...shopify.faultsInjected(),
        ...paying?.paypal.faultsInjected(),
        ...payouts?.faults,
      },
      ...safetyFigures(observations),
      ...payouts?.report,
      errorLogLines: fleet.errorLines(),
      metrics: scraped,
      wallSeconds: Math.round((Date.now() - started) / 1000),
    };
  } finally {
    await cleanUp(cleanups);
  }
}

/** Undoes what a run started, newest first; each step once, even when called again on a signal. */
export async function cleanUp(cleanups: (() => Promise<unknown> | unknown)[]): Promise<void> {
  for (const step of cleanups.reverse().splice(0)) await Promise.resolve(step()).catch(() => {});
}

async function installShops(
  count: number,
  parts: {
    apiKey: string;
    apiSecret: string;
    db: PrismaClient;
    clicks: RunningClickService;
    shopify: ShopifyStandin;
    fleet: Fleet;
  },
): Promise<string[]> {
  const shops = Array.from({ length: count }, (_, i) => `chaos-${i + 1}.myshopify.com`);
  for (const shop of shops) {
    const stack: Stack = {
      appUrl: parts.fleet.pick()!,
      shop,
      apiKey: parts.apiKey,
      apiSecret: parts.apiSecret,
      db: parts.db,
      clickServiceUrl: parts.clicks.url,
      clickServiceApiKey: parts.clicks.createApiKey(),
      shopify: parts.shopify,
    };
    await saveSettings(stack, { ...TERMS, hijackTag: DEFAULT_SETTINGS.hijackTag, tagParams: ["tag"] });
  }
  return shops;
}

async function sendOrders(
  options: ChaosOptions,
  parts: {
    db: PrismaClient;
    database: ChaosDatabase;
    fleet: Fleet;
    apiSecret: string;
    counts: DeliveryCounts;
    random: Random;
    /** Decides which events are withheld, apart from `random`, so a run with drops shuffles as one without. */
    drops: Random;
    factory: ReturnType<typeof orderFactory>;
  },
): Promise<{
  orders: PlannedOrder[];
  kills: number;
  databaseRestarts: number;
  droppedDeliveries: number;
  droppedEdits: number;
}> {
  const { db, database, fleet, counts, random, drops, factory } = parts;
  let droppedDeliveries = 0;
  let droppedEdits = 0;
  const sender = { pickInstance: () => fleet.pick(), apiSecret: parts.apiSecret };
  const killAt = Array.from({ length: options.kills }, (_, k) =>
    Math.floor((options.orders * (k + 1)) / (options.kills + 1)),
  );
  const kills: Promise<void>[] = [];
  // Between the kills, so that each fault is seen on its own.
  const restartAt = Array.from({ length: options.databaseRestarts }, (_, k) =>
    Math.floor((options.orders * (2 * k + 1)) / (2 * (options.databaseRestarts + 1))),
  );
  const restarts: Promise<void>[] = [];
  const orders: PlannedOrder[] = [];
  let reported = 0;
  for (let start = 0; start < options.orders; start += BATCH) {
    await belowInFlight(db, orders.length, IN_FLIGHT_ORDERS);
    const batch = Array.from({ length: Math.min(BATCH, options.orders - start) }, (_, i) => factory.make(start + i));
    orders.push(...batch);
    const events = shuffle(
      batch.flatMap((order) => eventsOf(order)),
      random,
    ).filter((event) => {
      // As if Shopify gave up on it: not one copy reaches the app.
      const dropped = drops() < options.dropDeliveries;
      if (dropped) droppedDeliveries += 1;
      if (dropped && event.topic === "orders/edited") droppedEdits += 1;
      return !dropped;
    });
    const copies = events.map(() => 2 + Math.floor(random() * 2));
    for (const [k, at] of restartAt.entries()) {
      if (restarts.length === k && orders.length >= at) {
        options.log(`  PostgreSQL stopped for ${DATABASE_DOWN_MS / 1000} s (restart ${k + 1} of ${restartAt.length})`);
        // While this batch's deliveries are arriving: intake must refuse what it cannot store.
        restarts.push(pause(200).then(() => database.restart!(DATABASE_DOWN_MS)));
      }
    }
    let next = 0;
    await Promise.all(
      Array.from({ length: PARALLEL_EVENTS }, async () => {
        while (next < events.length) {
          const i = next++;
          await deliverCopies(sender, events[i]!, copies[i]!, counts);
        }
      }),
    );
    for (const [k, at] of killAt.entries()) {
      if (kills.length === k && orders.length >= at) kills.push(killMidRun(db, fleet, k % fleet.size));
    }
    if (orders.length - reported >= options.orders / 10) {
      reported = orders.length;
      options.log(`  ${orders.length} orders sent`);
    }
  }
  await Promise.all([...kills, ...restarts]);
  return { orders, kills: kills.length, databaseRestarts: restarts.length, droppedDeliveries, droppedEdits };
}

/** kill -9 once the instances are busy with jobs (so leases are held and work is cut off). */
async function killMidRun(db: PrismaClient, fleet: Fleet, slot: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && (await whileRestarting(() => db.job.count({ where: { state: "running" } }))) === 0)
    await pause(50);
  await fleet.killAndRestart(slot);
}

function decidedOrders(db: PrismaClient): Promise<number> {
  return whileRestarting(() =>
    db.verification.count({ where: { AND: [{ outcome: { not: null } }, { outcome: { not: "rejected" } }] } }),
  );
}

/** The run's own reads, tried again while a restart keeps the database down. */
async function whileRestarting<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (attempt * 250 > 4 * DATABASE_DOWN_MS) throw error;
      await pause(250);
    }
  }
}

/**
 * Waits until fewer than `limit` of the orders sent so far are undecided; gives up waiting when
 * nothing was decided for DRAIN_MS (stuck orders then count as lost, and the run goes on).
 */
async function belowInFlight(db: PrismaClient, sent: number, limit: number): Promise<void> {
  let decided = await decidedOrders(db);
  let progressAt = Date.now();
  while (sent - decided >= limit && Date.now() - progressAt < DRAIN_MS) {
    await pause(200);
    const now = await decidedOrders(db);
    if (now !== decided) progressAt = Date.now();
    decided = now;
  }
}

/** Edits, refunds and cancellations the order jobs have applied (or marked as finding no commission), and those still waiting. */
async function appliedEvents(db: PrismaClient): Promise<{ applied: number; waiting: number }> {
  const [applied, waiting] = await Promise.all([
    whileRestarting(() => db.orderEvent.count({ where: { appliedAt: { not: null } } })),
    whileRestarting(() => db.orderEvent.count({ where: { appliedAt: null } })),
  ]);
  return { applied, waiting };
}

/** Waits until every order is decided and every edit, refund and cancellation applied, or the time is over. */
async function drain(
  db: PrismaClient,
  sent: { orders: number; events: number },
  timeoutMs: number,
  log: (line: string) => void,
) {
  const deadline = Date.now() + timeoutMs;
  let said = Date.now();
  let settledSince: number | null = null;
  for (;;) {
    const decided = await decidedOrders(db);
    const { applied, waiting } = await appliedEvents(db);
    // Edits are not counted (a dropped one may rightly never be recorded): nothing may be
    // waiting, and that must hold across a turn of the sweep, which may still find a dropped edit.
    if (decided >= sent.orders && applied >= sent.events && waiting === 0) {
      if (settledSince === null) settledSince = Date.now();
      if (Date.now() - settledSince >= SWEEP_TURN_MS) return;
    } else settledSince = null;
    if (Date.now() > deadline)
      return log(
        `Drain time over: ${sent.orders - decided} orders without an outcome, ` +
          `${Math.max(sent.events - applied, waiting)} edits, refunds and cancellations not applied`,
      );
    if (Date.now() - said > 15_000) {
      said = Date.now();
      log(
        `  ${decided} of ${sent.orders} orders decided, ${applied} edits, refunds and cancellations applied ` +
          `(${sent.events} refunds and cancellations sent), ${waiting} waiting`,
      );
    }
    await pause(500);
  }
}

/** What the sweep recorded as deliveries (source "reconciled"), by kind. */
async function reconciledEvents(db: PrismaClient) {
  const rows = await whileRestarting(() =>
    db.webhookDelivery.groupBy({ by: ["topic"], _count: true, where: { source: "reconciled", status: "recorded" } }),
  );
  const of = (topic: string) => rows.find((row) => row.topic === topic)?._count ?? 0;
  return {
    orders: of("orders/create"),
    refunds: of("refunds/create"),
    cancellations: of("orders/cancelled"),
    edits: of("orders/edited"),
  };
}

/** Whether the run made the races it means to: events recorded before their order, and after its outcome. */
async function eventTimings(db: PrismaClient): Promise<string> {
  const [row] = await db.$queryRaw<{ early: bigint; late: bigint }[]>`
    SELECT COUNT(*) FILTER (WHERE e."receivedAt" < v."createdAt") AS early,
           COUNT(*) FILTER (WHERE e."receivedAt" > v."completedAt") AS late
    FROM "OrderEvent" e JOIN "Verification" v ON v."shop" = e."shop" AND v."orderId" = e."orderId"`;
  return (
    `${row?.early ?? 0} edits, refunds and cancellations reached the app before their order, ` +
    `${row?.late ?? 0} after its outcome`
  );
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
