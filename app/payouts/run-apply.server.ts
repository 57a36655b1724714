import { Prisma, type Payout, type PayoutRun } from "@prisma/client";
import { bounceSentPayout, noteSentPayout, settleSentPayout } from "../commissions/sent-payouts.server";
import { rowsOf, type Sql, updateWhere } from "../database/sql.server";
import { Payout as PayoutTable, PayoutRun as PayoutRunTable } from "../database/tables";
import { t } from "../i18n";
import { outcomeOf, type RunChange, type RunState, type RunView } from "./run-steps";
import type { LineChange } from "./shopify-steps";

// The one place a payout run's decisions are written (run-steps.ts decides them): the run's row,
// each line's provider status, and the ledger's moves for an item paid or bounced
// (app/commissions/sent-payouts.server.ts). Always in the caller's transaction: the run's job
// writes through its lease's fence, so a worker that lost the run writes nothing.

/** The run and its lines as the steps read them; null when the shop has no such run. */
export async function runView(db: Sql, runId: string): Promise<(RunView & { shop: string; row: PayoutRun }) | null> {
  const [row] = await rowsOf<PayoutRun>(
    db,
    "PayoutRun",
    Prisma.sql`SELECT * FROM ${PayoutRunTable} WHERE ${PayoutRunTable.id} = ${runId}`,
  );
  if (!row) return null;
  const payouts = await rowsOf<Payout>(
    db,
    "Payout",
    Prisma.sql`SELECT * FROM ${PayoutTable} WHERE ${PayoutTable.shop} = ${row.shop} AND ${PayoutTable.runId} = ${runId} ORDER BY ${PayoutTable.id}`,
  );
  return {
    id: row.id,
    shop: row.shop,
    row,
    state: row.state as RunState,
    providerBatchId: row.providerBatchId,
    createdAt: row.createdAt,
    sentAt: row.sentAt,
    lines: payouts.map((p) => ({
      payoutId: p.id,
      providerItemId: p.providerItemId,
      providerStatus: p.providerStatus,
      outcome: p.voidedAt ? "bounced" : p.settledAt ? "paid" : "waiting",
    })),
  };
}

export async function applyRunChange(
  tx: Sql,
  shop: string,
  runId: string,
  change: RunChange,
  now: Date,
): Promise<void> {
  const run = Object.fromEntries(Object.entries(change.run).filter(([, value]) => value !== undefined));
  await updateWhere(tx, "PayoutRun", Prisma.sql`${PayoutRunTable.shop} = ${shop} AND ${PayoutRunTable.id} = ${runId}`, {
    ...run,
    updatedAt: now,
  });
  for (const item of change.items) {
    const provider = { status: item.status, itemId: item.providerItemId };
    if (item.move === "settle") await settleSentPayout(tx, shop, item.payoutId, provider, now);
    else if (item.move === "bounce")
      await bounceSentPayout(tx, shop, item.payoutId, { ...provider, reason: bounceReason(item.status) }, now);
    else await noteSentPayout(tx, shop, item.payoutId, provider);
  }
  if (change.release) {
    const lines = await tx.rows<{ id: string }>(
      Prisma.sql`SELECT ${PayoutTable.id} FROM ${PayoutTable} WHERE ${PayoutTable.shop} = ${shop} AND ${PayoutTable.runId} = ${runId} AND ${PayoutTable.voidedAt} IS NULL`,
    );
    const reason = t("payouts.run.refusedReason", { error: change.run.lastError ?? "" });
    for (const line of lines)
      await bounceSentPayout(tx, shop, line.id, { status: "NOT_SENT", itemId: null, reason }, now);
  }
}

/** What the Payouts page says of a bounced line: PayPal's status, in the merchant's words. */
export function bounceReason(status: string): string {
  return outcomeOf(status) === "bounced" ? t(`payouts.run.bounce.${status}`) : t("payouts.run.bounce.FAILED");
}

/**
 * A store credit or gift card line's decision (shopify-steps.ts): its customer, mark, attempt and
 * status on the Payout, then the ledger's move. In the caller's transaction, through the job's fence.
 */
export async function applyLineChange(tx: Sql, shop: string, change: LineChange, now: Date): Promise<void> {
  const columns = Object.fromEntries(
    Object.entries({
      providerAccount: change.customerId,
      providerMark: change.mark,
      attemptedAt: change.attemptedAt,
      providerStatus: change.status,
      providerItemId: change.itemId,
    }).filter(([, value]) => value !== undefined),
  );
  const open = Prisma.sql`${PayoutTable.shop} = ${shop} AND ${PayoutTable.id} = ${change.payoutId} AND ${PayoutTable.voidedAt} IS NULL AND ${PayoutTable.settledAt} IS NULL`;
  if (Object.keys(columns).length > 0) await updateWhere(tx, "Payout", open, columns);
  const provider = { status: change.status ?? "", itemId: change.itemId ?? null };
  if (change.move === "settle") await settleSentPayout(tx, shop, change.payoutId, provider, now);
  if (change.move === "bounce")
    await bounceSentPayout(tx, shop, change.payoutId, { ...provider, reason: change.reason ?? "" }, now);
}
