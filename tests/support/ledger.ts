import { payableBalances } from "../../app/commissions/payable-balances.server";
import { databaseClient } from "../../app/database/db.server";
import { verificationOf } from "./pipeline-harness";

// The ledger as the commission suites read it back: an order's record with its entries, its
// refunds, edits and cancellation as received, and the balances as the Payouts page shows them.

const prisma = databaseClient();

/** The order's record and its entries, oldest first: as [kind, amount], and the rows themselves. */
export async function ledgerOf(shop: string, orderId: number) {
  const v = await verificationOf(shop, orderId);
  const entries = v.commission
    ? await prisma.commissionEntry.findMany({
        where: { commissionId: v.commission.id },
        orderBy: [{ createdAt: "asc" }, { amountMinor: "desc" }],
      })
    : [];
  return { v, record: v.commission, entries: entries.map((e) => [e.kind, e.amount]), rows: entries };
}

/** The order's events (refunds, edits, cancellation), in the order they were received. */
export function eventsOf(shop: string, orderId: number) {
  return prisma.orderEvent.findMany({ where: { shop, orderId: String(orderId) }, orderBy: { receivedAt: "asc" } });
}

/** The chosen balances as the Payouts page sends them: each with the amount it shows now. */
export async function asShown(shop: string, keys: string[]) {
  const shown = new Map((await payableBalances(shop)).map((b) => [b.key, b.balanceMinor]));
  return keys.map((key) => ({ key, shownMinor: shown.get(key) ?? "0" }));
}
