import { Prisma, type Verification } from "@prisma/client";
import { reopenEventsWithoutCommission } from "../commissions/order-events.server";
import { rowsOf, sql, updateWhere } from "../database/sql.server";
import { bringForward, requeue } from "../queue/queue.server";
import { wakeWorker } from "../queue/wake.server";
import { parseStoredFacts } from "./order-facts";
import { Verification as VerificationTable } from "../database/tables";

// Shopify publishes the pixel's checkout_completed on the thank-you page, about when it sends
// orders/create: the order may have been judged before the pixel's report arrived. No late
// claims (docs/attribution.md): a report that arrives after the order was judged is evidence
// and never moves credit on its own. Only an order that ended unattributed, judged without any
// bound checkout report, is judged again, once, while the report is fresh, and only for a report
// whose checkout token is the one orders/create carried for it (a report naming the order's id
// alone binds nothing). It is judged by the same policy as any order: what the report claims
// against Shopify's record of the visit is weighed there. An order not judged yet, waiting for
// its pixel's report (attribution-step.ts), is brought forward when the report comes.

/** How long after an order ended a late checkout report still reopens it. */
export const LATE_WITNESS_WINDOW_MS = 60 * 60 * 1000;

export async function reconsiderForLateCheckout(
  shop: string,
  report: { orderId: string; checkoutToken: string },
  now: Date = new Date(),
): Promise<boolean> {
  const [row] = await rowsOf<
    Pick<Verification, "id" | "outcome" | "captureSource" | "completedAt" | "witnesses" | "orderFacts">
  >(
    sql,
    "Verification",
    Prisma.sql`
      SELECT ${VerificationTable.columns("id", "outcome", "captureSource", "completedAt", "witnesses", "orderFacts")} FROM ${VerificationTable}
      WHERE ${VerificationTable.shop} = ${shop} AND ${VerificationTable.orderId} = ${report.orderId} LIMIT 1`,
  );
  // Bound by Shopify's data, or nothing: the order's own checkout token must be the report's.
  if (!row || parseStoredFacts(row.orderFacts)?.checkoutToken !== report.checkoutToken) return false;
  // Not judged yet: an order waiting for this very report (attribute-step.ts) is judged now.
  if (row.outcome === null) return bringJudgementForward(row.id, now);
  if (row.outcome !== "unattributed" || row.captureSource !== null || !row.completedAt) return false;
  if (now.getTime() - row.completedAt.getTime() > LATE_WITNESS_WINDOW_MS) return false;
  // Judged with a checkout report already: this one is a second report, not a late one.
  if (sawCheckout(row.witnesses)) return false;
  const reopened = await sql
    .transaction(async (tx) => {
      if (!(await requeue(tx, "verify-order", row.id, now))) return false;
      const cleared = await updateWhere(
        tx,
        "Verification",
        Prisma.sql`${VerificationTable.id} = ${row.id} AND ${VerificationTable.outcome} = 'unattributed' AND ${VerificationTable.captureSource} IS NULL`,
        { outcome: null, reason: null, completedAt: null, updatedAt: now },
      );
      // Another report reopened it first: roll the requeue back with this transaction.
      if (cleared !== 1) throw new LostRace();
      // Refunds and a cancellation marked applied for want of a commission wait for the new credit.
      await reopenEventsWithoutCommission(tx, shop, report.orderId);
      return true;
    })
    .catch((error: unknown) => {
      if (error instanceof LostRace) return false;
      throw error;
    });
  if (reopened) wakeWorker();
  return reopened;
}

async function bringJudgementForward(verificationId: string, now: Date): Promise<boolean> {
  const brought = await sql.transaction((tx) => bringForward(tx, "verify-order", verificationId, now));
  if (brought) wakeWorker();
  return brought;
}

class LostRace extends Error {}

function sawCheckout(witnesses: string | null): boolean {
  if (!witnesses) return false;
  try {
    return (JSON.parse(witnesses) as { pixelCheckout?: unknown }).pixelCheckout != null;
  } catch {
    return false;
  }
}
