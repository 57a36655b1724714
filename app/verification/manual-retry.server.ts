import prisma from "../db.server";
import { wakeWorker } from "./wake.server";

// "Retry now" on the order page. Only orders that ended badly (failed, or parked as rejected for
// a bad key) can go again, only in the merchant's own shop, and only while their click can
// still be looked up, unless the service's verdict is already stored: then what is left
// (tagging the order, crediting the creator) no longer needs the click. The worker's normal
// policy applies from there on.

export const RETRYABLE_OUTCOMES = ["failed", "rejected"] as const;

export type ManualRetryResult = { ok: true } | { ok: false; reason: "not-found" | "not-retryable" | "click-expired" };

/** Whether the order page should offer the button. */
export function canRetry(
  row: { outcome: string | null; state: string; deadlineAt: Date | null; hijacked: boolean | null },
  now: Date = new Date(),
): boolean {
  return (
    (RETRYABLE_OUTCOMES as readonly (string | null)[]).includes(row.outcome) &&
    (row.state === "done" || row.state === "parked") &&
    (row.deadlineAt === null || row.deadlineAt > now || row.hijacked !== null)
  );
}

/** idOrOrderId: our verification id, or Shopify's numeric order id (as the order page's URL allows). */
export async function retryVerificationNow(
  shop: string,
  idOrOrderId: string,
  now: Date = new Date(),
): Promise<ManualRetryResult> {
  const key = /^\d{1,20}$/.test(idOrOrderId) ? { shop, orderId: idOrOrderId } : { shop, id: idOrOrderId };
  // One conditional UPDATE: a worker or a second click cannot both win it.
  const { count } = await prisma.verification.updateMany({
    where: {
      ...key,
      outcome: { in: [...RETRYABLE_OUTCOMES] },
      state: { in: ["done", "parked"] },
      OR: [{ deadlineAt: null }, { deadlineAt: { gt: now } }, { hijacked: { not: null } }],
    },
    data: {
      state: "queued",
      outcome: null,
      reason: null,
      completedAt: null,
      nextAttemptAt: now,
      leaseOwner: null,
      leaseExpiresAt: null,
    },
  });
  if (count === 1) {
    wakeWorker();
    return { ok: true };
  }
  const row = await prisma.verification.findFirst({
    where: key,
    select: { outcome: true, state: true, deadlineAt: true },
  });
  if (!row) return { ok: false, reason: "not-found" };
  if (
    (RETRYABLE_OUTCOMES as readonly (string | null)[]).includes(row.outcome) &&
    row.deadlineAt &&
    row.deadlineAt <= now
  ) {
    return { ok: false, reason: "click-expired" };
  }
  return { ok: false, reason: "not-retryable" };
}
