import { Prisma, type Verification } from "@prisma/client";
import { reopenEventsWithoutCommission } from "../commissions/order-events.server";
import { rowsOf, sql, updateWhere } from "../database/sql.server";
import { knownClick } from "../landing/journey.server";
import { requeue } from "../queue/queue.server";
import { wakeWorker } from "../queue/wake.server";
import { verificationWhere } from "./order-facts";
import { Verification as VerificationTable } from "../database/tables";

// "Retry now" on the order page. Only orders that ended badly (failed, parked as rejected for a
// bad key, or hijacked without the tag Shopify would not take) can go again, only in the
// merchant's own shop, and only while their click can still be looked up, unless the service's
// verdict is already stored (what is left, tagging the order and crediting the creator, no
// longer needs the click) or the click was looked up when the shopper landed (that record
// decides once the service has forgotten it, decision 011). The order's job starts again with a
// fresh set of attempts, and the refunds and cancellation that found no commission while it had
// failed are applied to the one it gets.

export const RETRYABLE_OUTCOMES = ["failed", "rejected"] as const;

export type ManualRetryResult = { ok: true } | { ok: false; reason: "not-found" | "not-retryable" | "click-expired" };

interface RetryFacts {
  shop: string;
  outcome: string | null;
  deadlineAt: Date | null;
  hijacked: boolean | null;
  taggedAt: Date | null;
  clickId: string | null;
}

/** Failed, parked, or a hijack whose tag could not be written (its credit stands; the run writes the tag). */
function endedBadly(row: RetryFacts): boolean {
  if (row.outcome === "hijacked") return row.taggedAt === null;
  return (RETRYABLE_OUTCOMES as readonly (string | null)[]).includes(row.outcome);
}

/** The click can still be looked up, the verdict is stored, or the landing record knows the click (read last, only then). */
async function clickStillUseful(row: RetryFacts, now: Date): Promise<boolean> {
  if (row.deadlineAt === null || row.deadlineAt > now || row.hijacked !== null) return true;
  return row.clickId ? Boolean((await knownClick(row.shop, row.clickId))?.expectedTag) : false;
}

/** Whether the order page should offer the button. */
export async function canRetry(row: RetryFacts, now: Date = new Date()): Promise<boolean> {
  return endedBadly(row) && (await clickStillUseful(row, now));
}

/** idOrOrderId: our verification id, or Shopify's numeric order id (as the order page's URL allows). */
export async function retryVerificationNow(
  shop: string,
  idOrOrderId: string,
  now: Date = new Date(),
): Promise<ManualRetryResult> {
  const where = verificationWhere(shop, idOrOrderId);
  const [row] = await rowsOf<Pick<Verification, "id" | "orderId"> & RetryFacts>(
    sql,
    "Verification",
    Prisma.sql`
      SELECT ${VerificationTable.columns("id", "shop", "orderId", "outcome", "deadlineAt", "hijacked", "taggedAt", "clickId")} FROM ${VerificationTable}
      WHERE ${VerificationTable.shop} = ${where.shop} AND ${"orderId" in where ? Prisma.sql`${VerificationTable.orderId} = ${where.orderId}` : Prisma.sql`${VerificationTable.id} = ${where.id}`}
      LIMIT 1`,
  );
  if (!row) return { ok: false, reason: "not-found" };
  if (!endedBadly(row)) return { ok: false, reason: "not-retryable" };
  if (!(await clickStillUseful(row, now))) return { ok: false, reason: "click-expired" };
  // The job moves back to the queue and the order's outcome clears together, or neither does:
  // a second click, or a worker, cannot both win.
  const requeued = await sql.transaction(async (tx) => {
    if (!(await requeue(tx, "verify-order", row.id, now))) return false;
    const cleared = await updateWhere(tx, "Verification", Prisma.sql`${VerificationTable.id} = ${row.id}`, {
      outcome: null,
      reason: null,
      completedAt: null,
      updatedAt: now,
    });
    // A job whose order is gone is not requeued: the transaction rolls back.
    if (cleared !== 1) throw new Error(`verification ${row.id} no longer exists`);
    await reopenEventsWithoutCommission(tx, row.shop, row.orderId);
    return true;
  });
  if (!requeued) return { ok: false, reason: "not-retryable" };
  wakeWorker();
  return { ok: true };
}
