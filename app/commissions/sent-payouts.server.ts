import { randomUUID } from "node:crypto";
import { Prisma } from "@prisma/client";
import { insertRows, type Sql, updateWhere } from "../database/sql.server";
import { Commission as CommissionTable, Payout } from "../database/tables";
import type { MoneyText } from "../units/money";
import { minorToAmount } from "./commission-amount";
import { reopenPayoutRecords } from "./payout-reopen.server";
import { checkedDues, payBalance, type ChosenDue } from "./payouts.server";

// The ledger's side of a payout the app sends through a provider (app/payouts): one Payout per
// creator and currency, its records `paying` from the moment the intent is written until the
// provider says the item was paid (then `paid`) or bounced (then approved again, as a void
// leaves them, the Payout marked voided with the provider's status as its reason). The same
// checks as a recorded payout's: held creators refused, each balance as the page showed it.

export interface SentLine {
  payoutId: string;
  creatorId: string;
  currency: string;
  amount: string;
}

/** Reserves the chosen balances for a sent payout, in the caller's transaction (throws checkedDues' refusals). */
export async function reserveSentPayouts(
  tx: Sql,
  shop: string,
  run: { id: string; method: string; reference: string; idempotencyKey: string },
  chosen: ChosenDue[],
  now: Date,
  money: MoneyText,
): Promise<SentLine[]> {
  const dues = await checkedDues(tx, shop, chosen, now, money);
  const lines: SentLine[] = [];
  for (const { due, ...balance } of dues) {
    const payoutId = randomUUID();
    await insertRows(tx, "Payout", [
      {
        id: payoutId,
        shop,
        idempotencyKey: `${run.idempotencyKey}:${balance.currency}:${balance.creatorId}`,
        reference: run.reference,
        paidOn: new Date(`${now.toISOString().slice(0, 10)}T00:00:00Z`),
        createdAt: now,
        method: run.method,
        runId: run.id,
      },
    ]);
    await payBalance(tx, shop, payoutId, balance, due, now, "paying");
    lines.push({ payoutId, ...balance, amount: minorToAmount(due.total, balance.currency) });
  }
  return lines;
}

const open = (shop: string, payoutId: string) =>
  Prisma.sql`${Payout.shop} = ${shop} AND ${Payout.id} = ${payoutId} AND ${Payout.voidedAt} IS NULL`;

/** The provider's latest word on a sent payout, without moving its records. */
export async function noteSentPayout(
  tx: Sql,
  shop: string,
  payoutId: string,
  provider: { status: string; itemId: string | null },
): Promise<void> {
  await updateWhere(tx, "Payout", Prisma.sql`${Payout.shop} = ${shop} AND ${Payout.id} = ${payoutId}`, {
    providerStatus: provider.status,
    providerItemId: provider.itemId,
  });
}

/** The provider paid it: its `paying` records become paid. Once: a second word finds it settled. */
export async function settleSentPayout(
  tx: Sql,
  shop: string,
  payoutId: string,
  provider: { status: string; itemId: string | null },
  now: Date,
): Promise<boolean> {
  // The conditional update is the gate: of two writers (the run's job, a late retry) one moves the records.
  const marked = await updateWhere(tx, "Payout", Prisma.sql`${open(shop, payoutId)} AND ${Payout.settledAt} IS NULL`, {
    settledAt: now,
    providerStatus: provider.status,
    providerItemId: provider.itemId,
  });
  if (marked === 0) return false;
  await updateWhere(
    tx,
    "Commission",
    Prisma.sql`${CommissionTable.shop} = ${shop} AND ${CommissionTable.payoutId} = ${payoutId} AND ${CommissionTable.status} = 'paying'`,
    { status: "paid", paidAt: now },
  );
  return true;
}

/** The money came back (or never left): its records are payable again, and the Payout says why. */
export async function bounceSentPayout(
  tx: Sql,
  shop: string,
  payoutId: string,
  provider: { status: string; itemId: string | null; reason: string },
  now: Date,
): Promise<boolean> {
  const marked = await updateWhere(tx, "Payout", open(shop, payoutId), {
    voidedAt: now,
    voidReason: provider.reason,
    providerStatus: provider.status,
    providerItemId: provider.itemId,
  });
  if (marked === 0) return false;
  await reopenPayoutRecords(tx, shop, payoutId, now);
  return true;
}
