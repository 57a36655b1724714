import { CART_ATTRIBUTES } from "../attribution/cart-attributes";
import { parseTagHistory } from "../attribution/find-click";
import prisma from "../db.server";
import { getPublicSettings } from "../settings/shop-settings.server";
import { jobOf } from "../queue/queue.server";
import { canRetry } from "../verification/manual-retry.server";
import { parseStoredFacts, verificationWhere } from "../verification/order-facts";

// One order's story for the order page: what arrived, each attempt, the service's verdict,
// the tag written, the commission. Looked up by our verification id or by Shopify's order id,
// always inside the session's shop, so another shop's order is simply "not found".

export interface OrderDetail {
  id: string;
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
  verdict: {
    expectedTag: string | null;
    creatorId: string | null;
    verdict: string | null;
    recorded: boolean | null;
    /** true: the service answered the report; false: its answer was lost and lookup-click settled the verdict. */
    reportConfirmed: boolean | null;
  };
  tagging: { taggedAt: string | null; hijackTag: string | null; evidenceAt: string | null };
  commission: {
    id: string;
    creatorId: string;
    amount: string;
    currency: string;
    rate: string;
    orderValue: string;
    status: string;
    redirected: boolean;
    createdAt: string;
  } | null;
  canRetry: boolean;
}

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

export async function getOrderDetail(
  shop: string,
  idOrOrderId: string,
  now: Date = new Date(),
): Promise<OrderDetail | null> {
  const row = await prisma.verification.findFirst({
    where: verificationWhere(shop, idOrOrderId),
    include: { attemptLog: { orderBy: [{ number: "asc" }, { startedAt: "asc" }] }, commission: true },
  });
  if (!row) return null;
  const [settings, job] = await Promise.all([
    row.taggedAt ? getPublicSettings(shop) : null,
    jobOf("verify-order", row.id),
  ]);
  const c = row.commission;
  return {
    id: row.id,
    orderId: row.orderId,
    orderName: row.orderName,
    adminOrderUrl: `shopify://admin/orders/${row.orderId}`,
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
      tagHistory: parseTagHistory(
        parseStoredFacts(row.orderFacts)?.cartAttributes.find((a) => a.name === CART_ATTRIBUTES.tagHistory)?.value,
      ),
    },
    attempts: row.attemptLog.map((a) => ({
      number: a.number,
      step: a.step,
      result: a.result,
      error: a.error,
      startedAt: a.startedAt.toISOString(),
      finishedAt: iso(a.finishedAt),
    })),
    verdict: {
      expectedTag: row.expectedTag,
      creatorId: row.creatorId,
      verdict: row.verdict,
      recorded: row.recorded,
      reportConfirmed: row.reportConfirmed,
    },
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
          currency: c.currency,
          rate: c.rate,
          orderValue: c.orderValue,
          status: c.status,
          redirected: c.redirected,
          createdAt: c.createdAt.toISOString(),
        }
      : null,
    canRetry: canRetry(row, now),
  };
}
