import { Prisma } from "@prisma/client";
import { lockRows } from "../database/dialect-sql.server";
import { insertRows, readDate, type Sql, updateWhere } from "../database/sql.server";
import { Commission as CommissionTable, CommissionEntry as CommissionEntryTable, Payout } from "../database/tables";
import { minorToAmount } from "./commission-amount";
import { ADJUSTMENT_KINDS } from "./payable-balances.server";

// Putting a payout's records back to payable: a void (the merchant says it was not paid) and a
// bounce (the provider says the money came back) do the same to the ledger. The payout's records
// (paid, or `paying` while a provider still had them) go back to approved and the clawbacks it
// netted back to open, so their balances are due again; refunds that reached its records after it
// (clawbacks nobody netted yet) are settled by it, since the record's own amount already went down
// by them and the creator was never paid it. Each record touched gets a `payout_void` entry of
// zero naming the payout: the ledger only grows, and the entry is what says why.

/** Ids per statement when marking rows: well under SQLite's and PostgreSQL's limits on parameters. */
export const IDS_PER_UPDATE = 1_000;

/** A later payout netted a refund on one of the payout's records: reopening it alone would take that refund twice. */
export interface NettedLater {
  reference: string;
  paidOn: string;
}

/** The later payouts that netted a refund on one of `payoutId`'s records (none: it can be reopened alone). */
export async function nettedLater(tx: Sql, shop: string, payoutId: string): Promise<NettedLater[]> {
  const ofPayout = Prisma.sql`${CommissionTable.shop} = ${shop} AND ${CommissionTable.payoutId} = ${payoutId}`;
  // Held until commit: a refund on one of these records waits for the reopening to commit.
  await lockRows(tx, CommissionTable, ofPayout);
  // The records named by the query, not by their ids: a payout may hold more records than one
  // statement takes values (32,766 on SQLite).
  const rows = await tx.rows<{ reference: string; paidOn: unknown }>(Prisma.sql`
    SELECT DISTINCT p.${Payout.reference}, p.${Payout.paidOn} FROM ${CommissionEntryTable} e JOIN ${Payout} p ON p.${Payout.id} = e.${CommissionEntryTable.payoutId}
    WHERE e.${CommissionEntryTable.shop} = ${shop} AND e.${CommissionEntryTable.kind} IN ${ADJUSTMENT_KINDS} AND e.${CommissionEntryTable.payoutId} <> ${payoutId}
      AND e.${CommissionEntryTable.commissionId} IN (SELECT ${CommissionTable.id} FROM ${CommissionTable} WHERE ${ofPayout} AND ${CommissionTable.status} IN ('paid', 'paying'))`);
  return rows.map((row) => ({ reference: row.reference, paidOn: readDate(row.paidOn).toISOString().slice(0, 10) }));
}

/** Puts the payout's records back to approved and its netted clawbacks back to open, in `tx`. */
export async function reopenPayoutRecords(
  tx: Sql,
  shop: string,
  payoutId: string,
  now: Date,
): Promise<{ records: number; clawbacks: number }> {
  const ofPayout = Prisma.sql`${CommissionTable.shop} = ${shop} AND ${CommissionTable.payoutId} = ${payoutId}`;
  // Held until commit: a refund on one of these records waits, then sees it approved.
  await lockRows(tx, CommissionTable, ofPayout);
  const records = await tx.rows<{ id: string }>(
    Prisma.sql`SELECT ${CommissionTable.id} FROM ${CommissionTable} WHERE ${ofPayout} AND ${CommissionTable.status} IN ('paid', 'paying')`,
  );
  const recordIds = records.map((row) => row.id);
  const reopened = await tx.rows<{ id: string; commissionId: string }>(
    Prisma.sql`SELECT ${CommissionEntryTable.id}, ${CommissionEntryTable.commissionId} FROM ${CommissionEntryTable} WHERE ${CommissionEntryTable.shop} = ${shop} AND ${CommissionEntryTable.kind} IN ${ADJUSTMENT_KINDS} AND ${CommissionEntryTable.payoutId} = ${payoutId}`,
  );
  for (let at = 0; at < recordIds.length; at += IDS_PER_UPDATE) {
    const ids = Prisma.join(recordIds.slice(at, at + IDS_PER_UPDATE));
    await updateWhere(
      tx,
      "Commission",
      Prisma.sql`${CommissionTable.id} IN (${ids}) AND ${CommissionTable.status} IN ('paid', 'paying')`,
      { status: "approved", paidAt: null, payoutId: null },
    );
    // Refunds after the payment that no payout netted: the record's amount already shows them.
    await updateWhere(
      tx,
      "CommissionEntry",
      Prisma.sql`${CommissionEntryTable.commissionId} IN (${ids}) AND ${CommissionEntryTable.kind} IN ${ADJUSTMENT_KINDS} AND ${CommissionEntryTable.payoutId} IS NULL`,
      { payoutId },
    );
  }
  for (let at = 0; at < reopened.length; at += IDS_PER_UPDATE) {
    const ids = Prisma.join(reopened.slice(at, at + IDS_PER_UPDATE).map((row) => row.id));
    await updateWhere(tx, "CommissionEntry", Prisma.sql`${CommissionEntryTable.id} IN (${ids})`, { payoutId: null });
  }
  const touched = [...new Set([...recordIds, ...reopened.map((row) => row.commissionId)])];
  for (let at = 0; at < touched.length; at += IDS_PER_UPDATE) {
    const batch = await tx.rows<{ id: string; currency: string }>(
      Prisma.sql`SELECT ${CommissionTable.id}, ${CommissionTable.currency} FROM ${CommissionTable} WHERE ${CommissionTable.id} IN (${Prisma.join(touched.slice(at, at + IDS_PER_UPDATE))})`,
    );
    await insertRows(
      tx,
      "CommissionEntry",
      batch.map(({ id: commissionId, currency }) => ({
        shop,
        commissionId,
        kind: "payout_void",
        amountMinor: 0n,
        amount: minorToAmount(0n, currency),
        eventId: `payout-void:${payoutId}`,
        payoutId,
        createdAt: now,
      })),
    );
  }
  return { records: recordIds.length, clawbacks: reopened.length };
}
