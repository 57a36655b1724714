import { Prisma } from "@prisma/client";
import { rowsMatching, sql, type Sql, updateWhere } from "../database/sql.server";
import { countReconciled } from "../metrics/registry.server";
import { env } from "../platform/env.server";
import type { Transition } from "../queue/job-states";
import type { JobContext, JobHandler } from "../queue/runner.server";
import {
  requestAdmin,
  type AdminCallResult,
  type AdminData,
  type AdminFailure,
  type AdminGraphql,
} from "../shopify-admin/admin-client.server";
import { apiVersion } from "../shopify-admin/api-version";
import { RECONCILE_ORDER, RECONCILE_ORDERS, RECONCILE_REFUND } from "../shopify-admin/documents";
import type { OfflineAdmin } from "../shopify-admin/offline-admin.server";
import { readOrderAmounts } from "../shopify-admin/orders.server";
import { noteSpent, noteThrottled, reserveRead } from "../shopify-admin/write-schedule.server";
import { recordOrderDelivery, recordOrderEventDelivery, type IntakeResult } from "../verification/intake.server";
import type { VerifiedDelivery } from "../webhooks/receive.server";
import type { WebhookTopic } from "../webhooks/topics";
import { editCandidates, foundEditPayload, valueMoved } from "./edits-found.server";
import { reconciliationOf } from "./reconciliation.server";
import {
  cancellationPayloadFrom,
  orderPayloadFrom,
  refundPayloadFrom,
  type OrderNode,
  type RefundNode,
} from "./shopify-readings";
import { ShopReconciliation } from "../database/tables";

// The job "reconcile-shop": lists the orders of a shop changed since its watermark, through the
// Admin API, and records each order, refund and cancellation no webhook brought exactly as its
// delivery would have been recorded (intake, source "reconciled"), so it is verified, tagged and
// credited like any other. What the app has already recorded is recognised by intake's own keys
// (the order id, the refund id, the cancelled order), so a webhook arriving after the sweep, or
// the sweep after a webhook, makes one order, one event (decision 034).
//
// The listing stays RECONCILE_LAG_MS behind real time, so a webhook still on its way is not raced.
// The watermark moves, a page at a time, only past orders whose missing parts are recorded; a
// failed page leaves it where it was and the next sweep lists that page again. Every call asks
// the shop's API bucket first and goes only while it is at least half full (reserveRead), so
// verdicts' tag writes never wait behind a sweep. The job is standing: it defers itself to its
// next turn rather than finishing.

export interface SweepDeps {
  shopifyAdmin(shop: string): Promise<OfflineAdmin>;
}

/** Orders listed a page at a time. */
const PAGE_SIZE = 50;
/** Pages one run goes through before it hands the worker back (and comes again at once). */
const PAGES_PER_RUN = 10;
/** What each call is assumed to cost until Shopify says: the listing, an order read whole, a refund, an order's amounts. */
const COST = { list: 160, order: 90, refund: 180, amounts: 7 } as const;

type PageInfo = { hasNextPage: boolean; endCursor?: string | null };
type Found = { orders: number; refunds: number; cancellations: number; edits: number };

const NOTHING_FOUND: Found = { orders: 0, refunds: 0, cancellations: 0, edits: 0 };

export function reconcileShopHandler(deps: SweepDeps): JobHandler {
  return {
    run: (ctx) => sweep(ctx, deps),
    // Only crashes use up a sweep's attempts (it defers on every failure it sees). It is started
    // again when an instance starts or the merchant asks; until then the admin says why it stopped.
    giveUp: async (ctx, reason) => {
      await ctx.write((tx) => noteFailure(tx, ctx.job.shop, ctx.now(), reason));
    },
  };
}

/** The shop's API bucket is less than half full: the sweep comes back in `waitMs`. */
class BucketBusy extends Error {
  constructor(readonly waitMs: number) {
    super("waiting for the shop's Admin API bucket to be half full");
  }
}

class SweepFailed extends Error {
  constructor(
    message: string,
    readonly throttledForMs?: number,
  ) {
    super(message);
  }
}

async function sweep(ctx: JobContext, deps: SweepDeps): Promise<Transition> {
  const { shop } = ctx.job;
  const state = await reconciliationOf(sql, shop);
  // Uninstalled (the row goes with it): the next authorization begins again.
  if (!state) return { to: "finish" };
  const access = await deps.shopifyAdmin(shop);
  if (!access.ok) {
    if (access.reason === "no-session") return { to: "finish" };
    return failed(ctx, access.message);
  }
  const until = new Date(ctx.now().getTime() - env().RECONCILE_LAG_MS);
  let watermark = state.watermark;
  let after: string | null = null;
  // What the page under way has recorded: counted even when the run ends inside the page.
  let found: Found = { ...NOTHING_FOUND };
  try {
    for (let page = 0; page < PAGES_PER_RUN; page++) {
      if (until <= watermark) break;
      bucketTurn(ctx, COST.list);
      const listed: AdminCallResult<AdminData<typeof RECONCILE_ORDERS>> = await requestAdmin(
        access.graphql,
        RECONCILE_ORDERS,
        { query: updatedBetween(watermark, until), first: PAGE_SIZE, after },
        { maxAttempts: 1 },
      );
      if (!listed.ok) throw adminFailure("listing the shop's orders", listed);
      noteSpent(shop, ctx.now(), listed.cost);
      const { nodes } = listed.data.orders;
      const pageInfo: PageInfo = listed.data.orders.pageInfo;
      await recordMissing(ctx, access.graphql, state.since, nodes, found);
      const last = nodes.at(-1);
      const through =
        // Stryker disable next-line EqualityOperator: a last order changed at the watermark itself moves it to where it is
        last && new Date(last.updatedAt as string) > watermark ? new Date(last.updatedAt as string) : null;
      const done = !pageInfo.hasNextPage || !pageInfo.endCursor;
      await ctx.write((tx) => noteProgress(tx, shop, ctx.now(), found, { through, done }));
      found = { ...NOTHING_FOUND };
      if (through) watermark = through;
      if (done) return nextTurn(ctx, env().RECONCILE_INTERVAL_MS, "next sweep");
      after = pageInfo.endCursor!;
    }
  } catch (error) {
    if (!(error instanceof BucketBusy || error instanceof SweepFailed)) throw error;
    if (found.orders + found.refunds + found.cancellations + found.edits > 0)
      await ctx.write((tx) => noteProgress(tx, shop, ctx.now(), found, { through: null, done: false }));
    if (error instanceof BucketBusy) return nextTurn(ctx, error.waitMs, error.message);
    if (error.throttledForMs !== undefined) {
      noteThrottled(shop, ctx.now(), error.throttledForMs);
      return nextTurn(ctx, error.throttledForMs, "the shop's Admin API bucket is empty");
    }
    return failed(ctx, error.message);
  }
  // More pages than one run takes, or nothing to list yet: on with the next turn.
  return until <= watermark
    ? nextTurn(ctx, env().RECONCILE_INTERVAL_MS, "next sweep")
    : nextTurn(ctx, 0, "more orders to list");
}

/** Shopify's search syntax for orders changed in [from, to]; times to the second, as Shopify keeps them. */
function updatedBetween(from: Date, to: Date): string {
  // Stryker disable next-line Regex: toISOString ends in .sssZ and has it nowhere else
  const at = (time: Date) => `'${time.toISOString().replace(/\.\d{3}Z$/, "Z")}'`;
  return `updated_at:>=${at(from)} AND updated_at:<=${at(to)}`;
}

type ListedOrder = {
  id: string;
  legacyResourceId: unknown;
  updatedAt: unknown;
  cancelledAt?: unknown;
  edited?: unknown;
  refunds: { id: string; legacyResourceId: unknown }[];
};

/**
 * Records what the app lacks of the listed orders: each order it never saw (placed since
 * `since`), each refund, each cancellation and each edit, counted into `found` as each is recorded. Intake
 * decides what is new; what it calls a duplicate (a webhook came in between) is not found.
 */
async function recordMissing(
  ctx: JobContext,
  graphql: AdminGraphql,
  since: Date,
  listed: ListedOrder[],
  found: Found,
): Promise<void> {
  const { shop } = ctx.job;
  const orders = listed.map((order) => ({ ...order, orderId: String(order.legacyResourceId) }));
  const known = new Set(
    (
      await rowsMatching(
        sql,
        "Verification",
        ["orderId"],
        orders.map((o) => ({ shop, orderId: o.orderId })),
      )
    ).map((row) => row.orderId),
  );
  const eventKeys = orders.flatMap((order) => [
    ...order.refunds.map((refund) => ({ shop, kind: "refund", sourceId: String(refund.legacyResourceId) })),
    ...(order.cancelledAt ? [{ shop, kind: "cancel", sourceId: order.orderId }] : []),
  ]);
  const knownEvents = new Set(
    (await rowsMatching(sql, "OrderEvent", ["kind", "sourceId"], eventKeys)).map((e) => `${e.kind} ${e.sourceId}`),
  );
  for (const order of orders) {
    if (!known.has(order.orderId)) {
      const whole = await readOrder(ctx, graphql, order.id);
      // Gone since it was listed (deleted), or placed before the app was installed: not ours.
      if (!whole || new Date(whole.created_at as string) < since) continue;
      if (counts(await recordOrderDelivery(delivery(shop, "orders/create", `order-${order.orderId}`, whole)))) {
        found.orders += 1;
        countReconciled("order");
      }
    }
    for (const refund of order.refunds) {
      const refundId = String(refund.legacyResourceId);
      if (knownEvents.has(`refund ${refundId}`)) continue;
      const payload = await readRefund(ctx, graphql, refund.id);
      if (!payload) continue;
      if (counts(await recordOrderEventDelivery(delivery(shop, "refunds/create", `refund-${refundId}`, payload)))) {
        found.refunds += 1;
        countReconciled("refund");
      }
    }
    if (order.cancelledAt && !knownEvents.has(`cancel ${order.orderId}`)) {
      const payload = cancellationPayloadFrom(order);
      if (
        counts(await recordOrderEventDelivery(delivery(shop, "orders/cancelled", `cancel-${order.orderId}`, payload)))
      ) {
        found.cancellations += 1;
        countReconciled("cancellation");
      }
    }
  }
  // Orders the app knew whose value moved with no orders/edited recorded (decision 045).
  const candidates = await editCandidates(
    shop,
    // Stryker disable next-line MethodExpression: an order read whole by this sweep was credited on its edited amounts, so it has no commission yet or one on the value a read would give: no edit either way
    orders.filter((order) => known.has(order.orderId)),
  );
  for (const candidate of candidates) {
    bucketTurn(ctx, COST.amounts);
    const read = await readOrderAmounts(graphql, candidate.orderGid, { maxAttempts: 1 });
    if (!read.ok) throw adminFailure(`reading order ${candidate.orderGid}'s amounts`, read);
    noteSpent(shop, ctx.now(), read.cost);
    if (!read.amounts || !valueMoved(candidate, read.amounts)) continue;
    const { eventId, payload } = foundEditPayload(candidate);
    if (counts(await recordOrderEventDelivery(delivery(shop, "orders/edited", eventId, payload)))) {
      found.edits += 1;
      countReconciled("edit");
    }
  }
}

/** Recorded as new: an order queued, an event recorded. A refusal of the reading is recorded as a delivery's would be, and not found. */
const counts = (result: IntakeResult) => result.status === "queued" || result.status === "recorded";

/** The sweep's reading as a delivery: one event id per order, refund or cancellation, so a second sweep is a duplicate. */
function delivery(
  shop: string,
  topic: WebhookTopic,
  eventId: string,
  payload: Record<string, unknown>,
): VerifiedDelivery {
  const rawBody = JSON.stringify(payload);
  return {
    shop,
    topic,
    apiVersion,
    webhookId: `reconciled-${eventId}`,
    eventId: `reconciled-${eventId}`,
    triggeredAt: null,
    payload,
    bodySlice: rawBody.slice(0, 2_000),
    rawBody,
    source: "reconciled",
  };
}

/**
 * One order or refund, whole: `read` fetches it with a page of its lines after a cursor, and
 * `linesOf` gives the page's lines and where the next page starts. Null when it is gone.
 */
async function readWhole<Whole, Line>(
  ctx: JobContext,
  { what, cost }: { what: string; cost: number },
  read: (linesAfter: string | null) => Promise<AdminCallResult<Whole | null | undefined>>,
  linesOf: (whole: Whole) => { nodes: Line[]; pageInfo: PageInfo },
): Promise<{ whole: Whole; lines: Line[] } | null> {
  const lines: Line[] = [];
  for (let linesAfter: string | null = null; ;) {
    bucketTurn(ctx, cost);
    const answer = await read(linesAfter);
    if (!answer.ok) throw adminFailure(`reading ${what}`, answer);
    noteSpent(ctx.job.shop, ctx.now(), answer.cost);
    if (!answer.data) return null;
    const page = linesOf(answer.data);
    lines.push(...page.nodes);
    if (!page.pageInfo.hasNextPage || !page.pageInfo.endCursor) return { whole: answer.data, lines };
    linesAfter = page.pageInfo.endCursor;
  }
}

async function readOrder(ctx: JobContext, graphql: AdminGraphql, id: string) {
  const read = await readWhole(
    ctx,
    { what: `order ${id}`, cost: COST.order },
    async (linesAfter) => {
      const answer = await requestAdmin(graphql, RECONCILE_ORDER, { id, linesAfter }, { maxAttempts: 1 });
      return answer.ok ? { ...answer, data: answer.data.order } : answer;
    },
    (order: OrderNode) => order.lineItems,
  );
  return (
    read &&
    orderPayloadFrom(
      read.whole,
      read.lines.map((line) => String(line.originalTotalSet.shopMoney.amount)),
    )
  );
}

async function readRefund(ctx: JobContext, graphql: AdminGraphql, id: string) {
  const read = await readWhole(
    ctx,
    { what: `refund ${id}`, cost: COST.refund },
    async (linesAfter) => {
      const answer = await requestAdmin(graphql, RECONCILE_REFUND, { id, linesAfter }, { maxAttempts: 1 });
      return answer.ok ? { ...answer, data: answer.data.refund } : answer;
    },
    (refund: RefundNode) => refund.refundLineItems,
  );
  return read && refundPayloadFrom(read.whole, read.lines);
}

/**
 * A read goes only while the bucket is half full; otherwise the run ends here and the job comes
 * back when it is (no worker slot is held waiting). What this page recorded so far stays
 * recorded; the page is listed again, and what is now known is passed over.
 */
function bucketTurn(ctx: JobContext, cost: number): void {
  const wait = reserveRead(ctx.job.shop, ctx.now(), cost);
  if (wait > 0) throw new BucketBusy(wait);
}

function adminFailure(what: string, failure: AdminFailure): SweepFailed {
  return new SweepFailed(`${what}: ${failure.message}`, failure.throttledForMs);
}

/** A page recorded: what it found, the watermark past it, and when the sweep went through (`done`). */
async function noteProgress(
  tx: Sql,
  shop: string,
  now: Date,
  found: Found,
  { through, done }: { through: Date | null; done: boolean },
): Promise<void> {
  await updateWhere(tx, "ShopReconciliation", Prisma.sql`${ShopReconciliation.shop} = ${shop}`, {
    ...(through && { watermark: through }),
    ...(done && { sweptAt: now, lastError: null }),
    foundOrders: Prisma.sql`${ShopReconciliation.foundOrders} + ${found.orders}`,
    foundRefunds: Prisma.sql`${ShopReconciliation.foundRefunds} + ${found.refunds}`,
    foundCancellations: Prisma.sql`${ShopReconciliation.foundCancellations} + ${found.cancellations}`,
    foundEdits: Prisma.sql`${ShopReconciliation.foundEdits} + ${found.edits}`,
    updatedAt: now,
  });
}

function noteFailure(tx: Sql, shop: string, now: Date, message: string): Promise<number> {
  return updateWhere(tx, "ShopReconciliation", Prisma.sql`${ShopReconciliation.shop} = ${shop}`, {
    failedAt: now,
    lastError: message.slice(0, 500),
    updatedAt: now,
  });
}

/** A sweep that could not go through: said on the admin, and tried again at the next turn. */
async function failed(ctx: JobContext, message: string): Promise<Transition> {
  await ctx.write((tx) => noteFailure(tx, ctx.job.shop, ctx.now(), message));
  return nextTurn(ctx, env().RECONCILE_INTERVAL_MS, message);
}

function nextTurn(ctx: JobContext, inMs: number, reason: string): Transition {
  return { to: "defer", at: new Date(ctx.now().getTime() + inMs), reason };
}
