import type { PrismaClient } from "@prisma/client";
import { VERIFY_CLICK_PATH } from "../../app/click-service/contract";
import type { RunningClickService } from "../click-service/server";
import type { ShopifyStandin } from "../shopify";
import type { ScrapedMetrics } from "./metrics";
import {
  ledgerDisagreements,
  plannedCommission,
  type CommissionTerms,
  type LedgerRecord,
  type PlannedCommission,
} from "./ledger";
import type { PlannedOrder } from "./orders";

// The chaos report. Each safety figure counts something that can go wrong, read from where it
// would show (the database, the Shopify stand-in's orders, the sandbox service's call log):
// a run passes only when lost, doubleTagged, doubleCredited and hijackedWithoutTag are all 0, and
// with --payouts payoutsPaidTwice and payoutsMarkedPaidUnpaid too (counted from the providers'
// own records, payout-ledger.ts).

export interface ChaosReport {
  orders: number;
  /** Webhook POSTs sent: every copy of every event, and every re-send after a failure. */
  deliveries: number;
  instances: number;
  database: "postgresql";
  /** kill -9 of an app instance mid-run (each restarted). */
  kills: number;
  /** PostgreSQL stopped at once mid-run and started again a few seconds later (--database-restarts). */
  databaseRestarts: number;
  /** Events (orders, refunds, cancellations) of which no copy was ever delivered (--drop-deliveries). */
  droppedDeliveries: number;
  /** Orders, refunds and cancellations the reconciliation sweep recorded because no webhook had. */
  reconciled: number;
  /** By kind: the click service's (http-503, slow-reply, dropped, answer-lost) and Shopify's (throttle). */
  faultsInjected: Record<string, number>;
  /** The orders' final outcomes, by outcome. */
  outcomes: Record<string, number>;
  /**
   * Orders with no final outcome once the drain time after the last delivery was over, or with
   * a refund or cancellation that the app never applied by then (never recorded, or recorded
   * and never marked applied): an event applied zero times is lost as an order is. An event never
   * delivered and never found by the sweep is lost this way too.
   */
  lost: number;
  /** Orders to which the Shopify stand-in applied more than one tagsAdd mutation. */
  doubleTagged: number;
  /**
   * Orders with more than one commission record, or whose record is not what the plan says it
   * must end at (ledger.ts): a refund or cancellation applied twice (its event on two entries,
   * two reversals) or a wrong amount or status.
   */
  doubleCredited: number;
  /** Orders whose outcome is hijacked but whose order in Shopify lacks the hijack tag. */
  hijackedWithoutTag: number;
  /** The most verify-click requests that reached the service for one order's click, faulted ones included. */
  serviceCallsPerOrderMax: number;
  /** With --payouts (payouts.ts, payout-ledger.ts): payout runs the app started, by method. */
  payoutRuns?: Record<"paypal" | "store_credit" | "gift_card" | "manual", number>;
  /** Balances due once the holds had passed: each creator's approved records in one currency at one shop. */
  payoutsDue?: number;
  /** Due balances whose every record ended paid. */
  payoutsPaid?: number;
  /** Due balances left payable (given back after a bounce and not paid again, or never paid). */
  payoutsPayable?: number;
  /** Due balances parked for the merchant (records `paying` in a line or run to check with the provider): not marked paid. */
  payoutsParked?: number;
  /** Due balances still with a provider when the payout drain was over. */
  payoutsInFlight?: number;
  /** Due balances a provider paid more than once, or more than was due, by the providers' own records. */
  payoutsPaidTwice?: number;
  /** Commission records the app marks paid whose money no provider paid (or paid less, or took back). */
  payoutsMarkedPaidUnpaid?: number;
  /** Lines the instances wrote at level error (identical failures folded into one line per 10 s). */
  errorLogLines: number;
  /** What the instances' metrics endpoints said, scraped during the run (metrics.ts). */
  metrics: ScrapedMetrics;
  wallSeconds: number;
}

/** What was observed of one order at the end of the run. */
export interface OrderObservation {
  /** null: no final outcome ("rejected" waits for the merchant, so it is not final either). */
  outcome: string | null;
  commissionRecords: number;
  /** The order's commission record (the first, when there are several); null when it has none. */
  ledger: LedgerRecord | null;
  /** What the plan says its record must end at, if it has one. */
  plannedLedger: PlannedCommission;
  /** The order's refunds and cancellation that were never marked applied. */
  eventsNotApplied: number;
  /** Which ("refund <id>", "cancel <order>", "edited <order>"), for the person reading the run. */
  notApplied?: string[];
  tagsAddApplied: number;
  /** The order in Shopify carries the shop's hijack tag. */
  hijackTagged: boolean;
  /** verify-click requests that reached the service for the order's click. */
  verifyCalls: number;
}

export function safetyFigures(observations: OrderObservation[]) {
  return {
    outcomes: countBy(observations.flatMap((o) => (o.outcome === null ? [] : [o.outcome]))),
    lost: observations.filter((o) => o.outcome === null || o.eventsNotApplied > 0).length,
    doubleTagged: observations.filter((o) => o.tagsAddApplied > 1).length,
    doubleCredited: observations.filter((o) => o.commissionRecords > 1 || ledgerDiffers(o)).length,
    hijackedWithoutTag: observations.filter((o) => o.outcome === "hijacked" && !o.hijackTagged).length,
    serviceCallsPerOrderMax: observations.reduce((max, o) => Math.max(max, o.verifyCalls), 0),
  };
}

export function passed(
  report: Pick<
    ChaosReport,
    "lost" | "doubleTagged" | "doubleCredited" | "hijackedWithoutTag" | "payoutsPaidTwice" | "payoutsMarkedPaidUnpaid"
  >,
) {
  const payouts = (report.payoutsPaidTwice ?? 0) + (report.payoutsMarkedPaidUnpaid ?? 0);
  return report.lost + report.doubleTagged + report.doubleCredited + report.hijackedWithoutTag + payouts === 0;
}

function ledgerDiffers(observation: OrderObservation): boolean {
  return observation.ledger !== null && ledgerDisagreements(observation.ledger, observation.plannedLedger).length > 0;
}

const FINAL = (outcome: string | null) => (outcome === null || outcome === "rejected" ? null : outcome);

export async function observeOrders(
  db: PrismaClient,
  orders: readonly PlannedOrder[],
  clicks: RunningClickService,
  shopify: ShopifyStandin,
  settings: CommissionTerms & { hijackTag: string },
): Promise<OrderObservation[]> {
  const key = (shop: string, orderId: string) => `${shop} ${orderId}`;
  const verifications = new Map(
    (await db.verification.findMany({ select: { shop: true, orderId: true, outcome: true } })).map((v) => [
      key(v.shop, v.orderId),
      v.outcome,
    ]),
  );
  const events = await db.orderEvent.findMany({
    select: { id: true, shop: true, orderId: true, kind: true, sourceId: true, appliedAt: true },
  });
  const eventSource = new Map(events.map((e) => [e.id, `${e.kind} ${e.sourceId}`]));
  const applied = new Set(events.flatMap((e) => (e.appliedAt ? [`${e.shop} ${e.kind} ${e.sourceId}`] : [])));
  // Edits are held to what they must do rather than to being recorded: a dropped edit the sweep
  // had no need to record (the order it read whole already had the edit's value, or its commission
  // could not move) is rightly never applied, and one it missed leaves the record off the plan.
  // An edit recorded and never applied is lost as a refund is.
  const editWaiting = new Set(
    events.flatMap((e) => (e.kind === "edit" && !e.appliedAt ? [`${e.shop} edited ${e.orderId}`] : [])),
  );
  // Grouped by order rather than read through the verification: the unique key that forbids a
  // second record today is exactly what this figure must not take on trust.
  const commissions = new Map<string, LedgerRecord[]>();
  for (const c of await db.commission.findMany({
    select: {
      shop: true,
      orderId: true,
      amountMinor: true,
      status: true,
      entries: { select: { kind: true, amountMinor: true, eventId: true } },
    },
  })) {
    const records = commissions.get(key(c.shop, c.orderId)) ?? [];
    records.push({
      amountMinor: c.amountMinor,
      status: c.status,
      entries: c.entries.map((entry) => ({
        kind: entry.kind,
        amountMinor: entry.amountMinor,
        source: entry.eventId === null ? null : (eventSource.get(entry.eventId) ?? `unknown event ${entry.eventId}`),
      })),
    });
    commissions.set(key(c.shop, c.orderId), records);
  }
  const verifyCalls = clicks.callCounts(VERIFY_CLICK_PATH);
  return orders.map((order) => {
    const orderId = String(order.payload.id);
    const inShopify = shopify.store.findOrder(order.payload.admin_graphql_api_id)?.order;
    const records = commissions.get(key(order.shop, orderId)) ?? [];
    const sent = [
      ...order.refunds.map((refund) => `refund ${refund.id}`),
      ...(order.cancellation ? [`cancel ${orderId}`] : []),
    ];
    const notApplied = [
      ...sent.filter((event) => !applied.has(`${order.shop} ${event}`)),
      ...(editWaiting.has(`${order.shop} edited ${orderId}`) ? [`edited ${orderId}`] : []),
    ];
    return {
      outcome: FINAL(verifications.get(key(order.shop, orderId)) ?? null),
      commissionRecords: records.length,
      ledger: records[0] ?? null,
      plannedLedger: plannedCommission(order, settings),
      eventsNotApplied: notApplied.length,
      notApplied,
      tagsAddApplied: inShopify?.tagsAddApplied ?? 0,
      hijackTagged: inShopify?.tags.includes(settings.hijackTag) ?? false,
      verifyCalls: order.clickId ? (verifyCalls[order.clickId] ?? 0) : 0,
    };
  });
}

/** Orders that ended otherwise than their kind says they must: printed, for the person reading the run. */
export function unexpectedOutcomes(orders: readonly PlannedOrder[], observations: OrderObservation[]) {
  return orders.flatMap((order, i) => {
    const outcome = observations[i]!.outcome;
    return outcome !== null && outcome !== order.expected
      ? [{ order: String(order.payload.id), kind: order.kind, expected: order.expected, outcome }]
      : [];
  });
}

/** Orders lost (no final outcome, or an event never applied), and what of them: printed, as they fail the run. */
export function lostOrders(orders: readonly PlannedOrder[], observations: OrderObservation[]) {
  return orders.flatMap((order, i) => {
    const { outcome, eventsNotApplied, notApplied } = observations[i]!;
    return outcome === null || eventsNotApplied > 0
      ? [{ order: String(order.payload.id), outcome, notApplied: notApplied ?? [] }]
      : [];
  });
}

/** Commission records that differ from the plan, and how: printed, as they fail the run. */
export function ledgerMismatches(orders: readonly PlannedOrder[], observations: OrderObservation[]) {
  return orders.flatMap((order, i) => {
    const { ledger, plannedLedger } = observations[i]!;
    const found = ledger ? ledgerDisagreements(ledger, plannedLedger) : [];
    return found.length > 0 ? [{ order: String(order.payload.id), differs: found }] : [];
  });
}

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
