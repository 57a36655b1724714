import { DEFAULT_LOCALE, formatCurrency, timesIn, UTC, type ShopFormat } from "../units/shop-format";
import { CLICK_LIFETIME_MS } from "../click-service/contract";
import { orderStory, type OrderStory } from "./order-story";
import { creatorNames } from "../commissions/creator-profiles.server";
import { orderCreators } from "../creators/order-creators.server";
import { adminOrderUrl } from "../units/shopify-ids";
import { shopFormat } from "../shop-profile/shop-profile.server";
import {
  Prisma,
  type Commission,
  type CommissionEntry,
  type OrderEvent,
  type Verification,
  type VerificationAttempt,
} from "@prisma/client";
import { CART_ATTRIBUTES } from "../attribution/cart-attributes";
import { parseTagHistory } from "../attribution/click-claims";
import {
  witnessOf,
  type Claim,
  type TamperEvidence,
  type Witness,
  type WitnessSummary,
} from "../attribution/witnesses";
import { editMoves, type EditMoves } from "../commissions/order-edits";
import { readContest, type StoredContest } from "../commissions/review.server";
import { rowsOf, sql } from "../database/sql.server";
import { getPublicSettings } from "../settings/shop-settings.server";
import { journeyOf } from "../landing/journey.server";
import { jobOf } from "../queue/queue.server";
import { canRetry } from "../verification/manual-retry.server";
import { parseStoredFacts, verificationWhere } from "../verification/order-facts";
import {
  ClickRecord,
  Commission as CommissionTable,
  CommissionEntry as CommissionEntryTable,
  OrderEvent as OrderEventTable,
  Verification as VerificationTable,
  VerificationAttempt as VerificationAttemptTable,
} from "../database/tables";

// One order's story for the order page: what arrived, each attempt, the service's verdict,
// the tag written, the commission. Looked up by our verification id or by Shopify's order id,
// always inside the session's shop, so another shop's order is simply "not found".

export interface OrderDetail {
  id: string;
  /** The sentence the page opens with: what happened and what it meant for the money. */
  story: OrderStory;
  /** When the shopper clicked, as far as the app knows, and what that says of the click's hour. */
  click: {
    clickedAt: string | null;
    validUntil: string | null;
    /** The order came after the click's hour had ended. */
    expiredBeforeOrder: boolean;
  };
  /** Every time on the page as the merchant reads it (the shop's zone), by its ISO text. */
  times: Record<string, string>;
  /** The zone those times are in, and whether it is Shopify's word or the UTC fallback. */
  timeZone: { name: string; known: boolean };
  orderId: string;
  orderName: string | null;
  adminOrderUrl: string;
  state: string;
  outcome: string | null;
  reason: string | null;
  lastError: string | null;
  orderCreatedAt: string;
  recordedAt: string;
  completedAt: string | null;
  arrived: {
    captureSource: string | null;
    clickId: string | null;
    arrivedTag: string | null;
    capturedAt: string | null;
    deadlineAt: string | null;
    tagHistory: { tag: string; at: string }[];
  };
  attempts: {
    number: number;
    step: string;
    result: string;
    error: string | null;
    startedAt: string;
    finishedAt: string | null;
  }[];
  /** The discount codes the order carried (from its stored orders/create facts), beside the verdict. */
  discountCodes: { code: string; amount: string; type: string | null }[];
  verdict: {
    expectedTag: string | null;
    creatorId: string | null;
    verdict: string | null;
    recorded: boolean | null;
    /** true: the service answered the report; false: its answer was lost and lookup-click settled the verdict. */
    reportConfirmed: boolean | null;
    /** "service" or "landing" (the click as looked up when the shopper landed). */
    source: string | null;
  };
  /** The cart's journey as the storefront reported it through the app proxy. */
  journey: {
    touches: { clickId: string; tag: string | null; seenAt: string }[];
    clicks: {
      clickId: string;
      state: string;
      expectedTag: string | null;
      creatorId: string | null;
      lookedUpAt: string | null;
    }[];
  };
  /** What the cart's attributes claimed against the server's records, and competing clicks, when they disagreed. */
  tamper: TamperEvidence | null;
  /** The witness whose click decided the order (decision 030); null: none had one. */
  witness: Witness | null;
  /** What each witness named when the order was attributed; null for orders attributed before it was kept. */
  witnesses: WitnessSummary | null;
  /**
   * The claims of a contested order (docs/attribution.md), each with the creator the app knows
   * for it now, and the merchant's decision once made; null when the order was not contested.
   */
  contest: {
    reason: string;
    claims: (Claim & { creatorNow: string | null })[];
    decision: NonNullable<StoredContest["decision"]> | null;
    /** The record still waits for the merchant. */
    open: boolean;
  } | null;
  tagging: { taggedAt: string | null; hijackTag: string | null; evidenceAt: string | null };
  commission: {
    id: string;
    creatorId: string;
    amount: string;
    /** amount, orderValue and each entry's amount as the merchant's locale writes them. */
    amountText: string;
    orderValueText: string;
    currency: string;
    rate: string;
    orderValue: string;
    status: string;
    redirected: boolean;
    createdAt: string;
    holdUntil: string | null;
    /**
     * The record's ledger entries, oldest first: the credit, then what refunds, edits and a
     * cancellation moved. `edit`: for an entry an order edit made, the order's value and the
     * commission before and after it, as its event said when applied, in the shop's money.
     */
    entries: { kind: string; amount: string; amountText: string; createdAt: string; edit: EditMoves | null }[];
  } | null;
  /** The order's refunds, edits and cancellation as received, and what applying them did. */
  events: { kind: string; receivedAt: string; appliedAt: string | null; result: string | null }[];
  canRetry: boolean;
}

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

export async function getOrderDetail(
  shop: string,
  idOrOrderId: string,
  now: Date = new Date(),
  format: ShopFormat & { zoneKnown?: boolean } = { locale: DEFAULT_LOCALE, timeZone: UTC },
): Promise<OrderDetail | null> {
  const [row] = await rowsOf<Verification>(
    sql,
    "Verification",
    Prisma.sql`SELECT * FROM ${VerificationTable} WHERE ${whereVerification(shop, idOrOrderId)} LIMIT 1`,
  );
  if (!row) return null;
  const facts = parseStoredFacts(row.orderFacts);
  const [settings, job, journey, attemptLog, [c], entries, events] = await Promise.all([
    row.taggedAt ? getPublicSettings(shop) : null,
    jobOf("verify-order", row.id),
    journeyOf(shop, facts?.cartToken ?? null),
    rowsOf<VerificationAttempt>(
      sql,
      "VerificationAttempt",
      Prisma.sql`SELECT * FROM ${VerificationAttemptTable} WHERE ${VerificationAttemptTable.verificationId} = ${row.id} ORDER BY ${VerificationAttemptTable.number}, ${VerificationAttemptTable.startedAt}`,
    ),
    rowsOf<Commission>(
      sql,
      "Commission",
      Prisma.sql`SELECT * FROM ${CommissionTable} WHERE ${CommissionTable.verificationId} = ${row.id}`,
    ),
    rowsOf<CommissionEntry>(
      sql,
      "CommissionEntry",
      Prisma.sql`SELECT e.* FROM ${CommissionEntryTable} e JOIN ${CommissionTable} c ON c.${CommissionTable.id} = e.${CommissionEntryTable.commissionId}
                 WHERE c.${CommissionTable.verificationId} = ${row.id} ORDER BY e.${CommissionEntryTable.createdAt}, e.${CommissionEntryTable.amountMinor} DESC`,
    ),
    rowsOf<OrderEvent>(
      sql,
      "OrderEvent",
      Prisma.sql`SELECT * FROM ${OrderEventTable} WHERE ${OrderEventTable.shop} = ${shop} AND ${OrderEventTable.orderId} = ${row.orderId}
                 ORDER BY ${OrderEventTable.receivedAt}, ${OrderEventTable.id} LIMIT 100`,
    ),
  ]);
  const money = (amount: string, currency: string) => formatCurrency(amount, currency, format.locale);
  const clickedAt = clickTime(row.clickId, row.capturedAt, journey.touches);
  const validUntil = clickedAt ? new Date(clickedAt.getTime() + CLICK_LIFETIME_MS) : null;
  const expiredBeforeOrder = validUntil !== null && row.orderCreatedAt > validUntil;
  const detail: Omit<OrderDetail, "times"> = {
    id: row.id,
    story: orderStory({
      outcome: row.outcome,
      state: job?.state ?? "done",
      expectedTag: row.expectedTag,
      arrivedTag: row.arrivedTag,
      creatorId: row.creatorId,
      taggedWith: row.taggedAt ? (settings?.hijackTag ?? null) : null,
      commission: c ? { creatorId: c.creatorId, amountText: money(c.amount, c.currency) } : null,
      clickExpiredBeforeOrder: expiredBeforeOrder,
      fromLanding: row.verdictSource === "landing",
    }),
    click: { clickedAt: iso(clickedAt), validUntil: iso(validUntil), expiredBeforeOrder },
    timeZone: { name: format.timeZone, known: format.zoneKnown ?? format.timeZone !== UTC },
    orderId: row.orderId,
    orderName: row.orderName,
    adminOrderUrl: adminOrderUrl(row.orderId),
    state: job?.state ?? "done",
    outcome: row.outcome,
    reason: row.reason,
    lastError: row.lastError,
    orderCreatedAt: row.orderCreatedAt.toISOString(),
    recordedAt: row.createdAt.toISOString(),
    completedAt: iso(row.completedAt),
    arrived: {
      captureSource: row.captureSource,
      clickId: row.clickId,
      arrivedTag: row.arrivedTag,
      capturedAt: iso(row.capturedAt),
      deadlineAt: iso(row.deadlineAt),
      tagHistory: parseTagHistory(facts?.cartAttributes.find((a) => a.name === CART_ATTRIBUTES.tagHistory)?.value),
    },
    attempts: attemptLog.map((a) => ({
      number: a.number,
      step: a.step,
      result: a.result,
      error: a.error,
      startedAt: a.startedAt.toISOString(),
      finishedAt: iso(a.finishedAt),
    })),
    discountCodes: (facts?.discountCodes ?? []).map((d) => ({
      code: d.code,
      amount: money(d.amount, row.currency ?? facts?.currency ?? "USD"),
      type: d.type,
    })),
    verdict: {
      expectedTag: row.expectedTag,
      creatorId: row.creatorId,
      verdict: row.verdict,
      recorded: row.recorded,
      reportConfirmed: row.reportConfirmed,
      source: row.verdictSource,
    },
    journey: {
      touches: journey.touches.map((t) => ({ clickId: t.clickId, tag: t.tag, seenAt: t.seenAt.toISOString() })),
      clicks: journey.clicks.map((c) => ({
        clickId: c.clickId,
        state: c.state,
        expectedTag: c.expectedTag,
        creatorId: c.creatorId,
        lookedUpAt: iso(c.lookedUpAt),
      })),
    },
    tamper: readTamper(row.tamperEvidence),
    witness: witnessOf(row.captureSource),
    witnesses: readWitnesses(row.witnesses),
    contest: await contestOf(shop, row, c ?? null),
    tagging: {
      taggedAt: iso(row.taggedAt),
      hijackTag: row.taggedAt ? (settings?.hijackTag ?? null) : null,
      evidenceAt: iso(row.evidenceAt),
    },
    commission: c
      ? {
          id: c.id,
          creatorId: c.creatorId,
          amount: c.amount,
          amountText: money(c.amount, c.currency),
          orderValueText: money(c.orderValue, c.currency),
          currency: c.currency,
          rate: c.rate,
          orderValue: c.orderValue,
          status: c.status,
          redirected: c.redirected,
          createdAt: c.createdAt.toISOString(),
          holdUntil: iso(c.holdUntil),
          entries: entries.map((e) => ({
            kind: e.kind,
            amount: e.amount,
            amountText: money(e.amount, c.currency),
            createdAt: e.createdAt.toISOString(),
            edit: editOf(
              events.find((event) => event.id === e.eventId),
              (amount) => money(amount, c.currency),
            ),
          })),
        }
      : null,
    events: events.map((e) => ({
      kind: e.kind,
      receivedAt: e.receivedAt.toISOString(),
      appliedAt: iso(e.appliedAt),
      result: e.result,
    })),
    canRetry: await canRetry(row, now),
  };
  return { ...detail, times: timesIn(detail, format) };
}

/** What an edit's event said it moved, each amount in the shop's money. */
function editOf(event: OrderEvent | undefined, money: (amount: string) => string): EditMoves | null {
  const moves = event?.kind === "edit" && event.result ? editMoves(event.result) : null;
  if (!moves) return null;
  return {
    valueBefore: money(moves.valueBefore),
    valueAfter: money(moves.valueAfter),
    commissionBefore: money(moves.commissionBefore),
    commissionAfter: money(moves.commissionAfter),
  };
}

/** A contested order's claims, each with the creator lookup-click knows for it now (it may have learned it since). */
async function contestOf(shop: string, row: Verification, record: Commission | null): Promise<OrderDetail["contest"]> {
  const contest = readContest(row.contest);
  if (!contest) return null;
  const clickIds = contest.claims.map((claim) => claim.clickId);
  const known =
    clickIds.length === 0
      ? []
      : await sql.rows<{ clickId: string; creatorId: string | null }>(Prisma.sql`
          SELECT ${ClickRecord.clickId}, ${ClickRecord.creatorId} FROM ${ClickRecord}
          WHERE ${ClickRecord.shop} = ${shop} AND ${ClickRecord.state} = 'known' AND ${ClickRecord.clickId} IN (${Prisma.join(clickIds)})`);
  const creatorNow = (clickId: string) =>
    (row.clickId === clickId ? row.creatorId : null) ?? known.find((k) => k.clickId === clickId)?.creatorId ?? null;
  return {
    reason: contest.reason,
    claims: contest.claims.map((claim) => ({ ...claim, creatorNow: creatorNow(claim.clickId) })),
    decision: contest.decision ?? null,
    open: !contest.decision && record?.status === "review",
  };
}

/**
 * When the shopper clicked: the time the storefront captured with the click, else the first
 * landing touch that carried it. Never the order's own time: the click's hour runs from the
 * click, and an order can come long after it.
 */
function clickTime(clickId: string | null, capturedAt: Date | null, touches: { clickId: string; seenAt: Date }[]) {
  if (capturedAt) return capturedAt;
  const seen = touches.filter((touch) => touch.clickId === clickId).map((touch) => touch.seenAt.getTime());
  return seen.length > 0 ? new Date(Math.min(...seen)) : null;
}

/** The order by our verification id or Shopify's order id, always inside the shop. */
function whereVerification(shop: string, idOrOrderId: string): Prisma.Sql {
  const where = verificationWhere(shop, idOrOrderId);
  return "orderId" in where
    ? Prisma.sql`${VerificationTable.shop} = ${where.shop} AND ${VerificationTable.orderId} = ${where.orderId}`
    : Prisma.sql`${VerificationTable.shop} = ${where.shop} AND ${VerificationTable.id} = ${where.id}`;
}

function readWitnesses(json: string | null): WitnessSummary | null {
  if (!json) return null;
  try {
    const value = JSON.parse(json) as WitnessSummary;
    return Array.isArray(value.landing) && Array.isArray(value.pixel) ? value : null;
  } catch {
    return null;
  }
}

function readTamper(json: string | null): OrderDetail["tamper"] {
  if (!json) return null;
  try {
    const value = JSON.parse(json) as NonNullable<OrderDetail["tamper"]>;
    return Array.isArray(value.findings) ? value : null;
  } catch {
    return null;
  }
}

/** The order page's data for a merchant: times in the shop's zone, money in their locale. */
export async function getOrderDetailFor(shop: string, idOrOrderId: string, locale: string) {
  const format = await shopFormat(shop, locale);
  const detail = await getOrderDetail(shop, idOrOrderId, new Date(), format);
  if (!detail) return null;
  // The creators it named, and which of them are held (suspected or blocked).
  const creators = await orderCreators(shop, detail.id, detail.commission?.creatorId ?? null);
  const ids = [
    detail.verdict.creatorId,
    detail.commission?.creatorId,
    ...(detail.contest?.claims ?? []).map((claim) => claim.creatorNow),
    ...creators.claims.map((claim) => claim.creatorId),
  ].filter((id): id is string => Boolean(id));
  // The merchant's names for the creators the page shows (CreatorProfile).
  return { ...detail, creators, creatorNames: await creatorNames(shop, ids) };
}
