import { randomUUID } from "node:crypto";
import { Prisma, type Commission, type CommissionEntry } from "@prisma/client";
import { isUniqueViolation } from "../database/db.server";
import { lockRows, rowLock } from "../database/dialect-sql.server";
import { insertRows, rowsOf, sql, type Sql, updateWhere } from "../database/sql.server";
import { t } from "../i18n";
import { formatMoney, type MoneyText } from "../units/money";
import { minorToAmount } from "./commission-amount";
import { openAdjustments, parseBalanceKey } from "./payable-balances.server";
import { IDS_PER_UPDATE, nettedLater, reopenPayoutRecords } from "./payout-reopen.server";
import { fieldErrors, PayoutForm, VoidForm, type ChosenBalance } from "./payout-forms";
import {
  Commission as CommissionTable,
  CommissionEntry as CommissionEntryTable,
  Payout,
  PayoutLine,
  CreatorStanding,
} from "../database/tables";
import { HELD_STATES } from "./creator-standing";

// Payouts: the merchant pays creators their approved balances outside the app and records it
// here. A payout marks the approved records it covers as paid and nets every clawback (a
// refund or cancellation after an earlier payment) of that creator and currency, in one
// transaction. The form carries an idempotency key, unique per shop: submitting it again finds
// the payout already recorded, and a record already paid is never in a second payout. It also
// carries each balance as the page showed it, which is what the merchant paid: a balance that
// has changed since (the approval sweep approved more, a refund took some back) is refused, so
// the ledger never records as paid an amount that was not.

export type RecordPayoutResult =
  { ok: true; payoutId: string; duplicate: boolean; lines: number } | { ok: false; errors: Record<string, string> };

/** A chosen balance as the form sent it: whose, in which currency, and the amount the page showed. */
export interface ChosenDue {
  creatorId: string;
  currency: string;
  shownMinor: bigint;
}

/** The balances a form chose, each once (a form sent by hand may name one twice), unreadable keys left out. */
export function chosenDues(balances: ChosenBalance[]): ChosenDue[] {
  const byKey = new Map(balances.map((balance) => [balance.key, balance]));
  return [...byKey.values()].flatMap(({ key, shownMinor }) => {
    const balance = parseBalanceKey(key);
    return balance ? [{ ...balance, shownMinor: BigInt(shownMinor) }] : [];
  });
}

class NothingToPay extends Error {}

class BalancesChanged extends Error {}

class CreatorHeld extends Error {
  constructor(readonly creatorId: string) {
    super(`${creatorId} is held`);
  }
}

/**
 * Whether the creator's commissions are held (suspected or blocked), read with the standing row
 * locked: a decision or a new suspicion waits for this payout to commit, or this payout for it.
 */
async function heldFor(tx: Sql, shop: string, creatorId: string): Promise<boolean> {
  const [standing] = await tx.rows<{ state: string }>(Prisma.sql`
    SELECT ${CreatorStanding.state} FROM ${CreatorStanding}
    WHERE ${CreatorStanding.shop} = ${shop} AND ${CreatorStanding.creatorId} = ${creatorId} ${rowLock()}`);
  return standing !== undefined && (HELD_STATES as readonly string[]).includes(standing.state);
}

export async function recordPayout(
  shop: string,
  input: { idempotencyKey: string; reference: string; paidOn: string; balances: ChosenBalance[] },
  now: Date = new Date(),
  money: MoneyText = formatMoney,
): Promise<RecordPayoutResult> {
  const parsed = PayoutForm.safeParse(input);
  if (!parsed.success) return { ok: false, errors: fieldErrors(parsed.error) };
  const form = parsed.data;
  const chosen = chosenDues(form.balances);
  const earlier = await findPayout(shop, form.idempotencyKey);
  if (earlier) return earlier;
  // One payment is one transfer in one currency: a payout mixing them could not match any
  // single bank or PayPal record the merchant reconciles it against.
  const currencies = [...new Set(chosen.map((balance) => balance.currency))].sort();
  if (currencies.length > 1)
    return { ok: false, errors: { balances: t("payouts.mixedCurrencies", { currencies: currencies.join(", ") }) } };
  try {
    return await sql.transaction(async (tx) => {
      const payoutId = randomUUID();
      await insertRows(tx, "Payout", [
        {
          id: payoutId,
          shop,
          idempotencyKey: form.idempotencyKey,
          reference: form.reference,
          paidOn: new Date(`${form.paidOn}T00:00:00Z`),
          createdAt: now,
        },
      ]);
      const dues = await checkedDues(tx, shop, chosen, now, money);
      for (const { due, ...balance } of dues) await payBalance(tx, shop, payoutId, balance, due, now, "paid");
      return { ok: true as const, payoutId, duplicate: false, lines: dues.length };
    });
  } catch (error) {
    const refused = refusalOf(error);
    if (refused) return { ok: false, errors: refused };
    // The same form submitted twice at once: the other submission recorded it.
    if (isUniqueViolation(error)) {
      const recorded = await findPayout(shop, form.idempotencyKey);
      if (recorded) return recorded;
    }
    throw error;
  }
}

/**
 * What each chosen balance is due now, read with the creator's standing and records locked:
 * refused (thrown) when a creator is held, nothing is due, or a balance is not what the page showed.
 */
export async function checkedDues(
  tx: Sql,
  shop: string,
  chosen: ChosenDue[],
  now: Date,
  money: MoneyText,
): Promise<(ChosenDue & { due: Due })[]> {
  const dues = [];
  for (const balance of chosen) {
    if (await heldFor(tx, shop, balance.creatorId)) throw new CreatorHeld(balance.creatorId);
    dues.push({ ...balance, due: await dueOf(tx, shop, balance, now) });
  }
  if (dues.every(({ due }) => due === null)) throw new NothingToPay();
  // Nothing due now is a change too, whatever was sent (a form sent by hand may say 0).
  const changed = dues.filter(({ due, shownMinor }) => due === null || due.total !== shownMinor);
  if (changed.length > 0) throw new BalancesChanged(changedText(changed, money));
  return dues.map(({ due, ...balance }) => ({ ...balance, due: due! }));
}

/** The form's errors for a refusal checkedDues threw; null for any other error. */
export function refusalOf(error: unknown): Record<string, string> | null {
  if (error instanceof NothingToPay)
    return { balances: "nothing is left to pay in the chosen balances; reload the page" };
  if (error instanceof BalancesChanged) return { balances: error.message };
  if (error instanceof CreatorHeld) return { balances: t("payouts.creatorHeld", { creator: error.creatorId }) };
  return null;
}

async function findPayout(shop: string, idempotencyKey: string): Promise<RecordPayoutResult | null> {
  const [payout] = await sql.rows<{ id: string; lines: number | bigint | string }>(Prisma.sql`
    SELECT p.${Payout.id}, (SELECT COUNT(*) FROM ${PayoutLine} l WHERE l.${PayoutLine.payoutId} = p.${Payout.id}) AS "lines"
    FROM ${Payout} p WHERE p.${Payout.shop} = ${shop} AND p.${Payout.idempotencyKey} = ${idempotencyKey}`);
  return payout ? { ok: true, payoutId: payout.id, duplicate: true, lines: Number(payout.lines) } : null;
}

export interface Due {
  total: bigint;
  records: number;
  /** The approved records and open clawbacks summed into `total`: what the payout marks. */
  recordIds: string[];
  clawbackIds: string[];
}

/**
 * What one creator is due in one currency now: approved records less clawbacks not yet
 * netted; null when nothing positive is due. The rows are named, not re-selected when paid: on
 * PostgreSQL a later statement of the transaction would also see a record credited approved
 * (a hold of 0 days) and committed after this sum, and mark it paid although nobody paid it.
 */
async function dueOf(
  tx: Sql,
  shop: string,
  { creatorId, currency }: { creatorId: string; currency: string },
  now: Date,
): Promise<Due | null> {
  const records = Prisma.sql`${CommissionTable.shop} = ${shop} AND ${CommissionTable.creatorId} = ${creatorId} AND ${CommissionTable.currency} = ${currency}`;
  // Held until commit, so neither a refund nor the approval sweep changes these rows between the
  // sum below and the update that pays them.
  await lockRows(tx, CommissionTable, records);
  const approved = await rowsOf<Pick<Commission, "id" | "amountMinor">>(
    tx,
    "Commission",
    Prisma.sql`SELECT ${CommissionTable.id}, ${CommissionTable.amountMinor} FROM ${CommissionTable} WHERE ${records} AND ${CommissionTable.status} = 'approved'`,
  );
  const owed = await rowsOf<Pick<CommissionEntry, "id" | "amountMinor">>(
    tx,
    "CommissionEntry",
    Prisma.sql`
      SELECT e.${CommissionEntryTable.id}, e.${CommissionEntryTable.amountMinor} FROM ${CommissionEntryTable} e
      WHERE ${openAdjustments(shop, now)}
        AND e.${CommissionEntryTable.commissionId} IN (SELECT ${CommissionTable.id} FROM ${CommissionTable} WHERE ${records})`,
  );
  const total = [...approved, ...owed].reduce((sum, row) => sum + row.amountMinor, 0n);
  // Without approved records, only top-ups make it positive: an order edited up after payment.
  if (total <= 0n) return null;
  return {
    total,
    records: approved.length,
    recordIds: approved.map((row) => row.id),
    clawbackIds: owed.map((row) => row.id),
  };
}

/** Why the payout was refused: each balance that is not what the page showed. */
function changedText(
  changed: { creatorId: string; currency: string; shownMinor: bigint; due: Due | null }[],
  money: MoneyText,
): string {
  // Written as the page wrote the balances, so the merchant can compare the two.
  const each = changed.map(
    ({ creatorId, currency, shownMinor, due }) =>
      `${creatorId} was ${money(shownMinor, currency)} when the page loaded and ` +
      (due ? `is ${money(due.total, currency)} now` : "has nothing due now"),
  );
  return `The balances changed since the page loaded: ${each.join("; ")}. Check what you paid against the balances as they are now, and choose again.`;
}

/**
 * Pays one creator's approved records in one currency, less their clawbacks: `due`, read in this
 * transaction. `paying`: a payout the app sends, whose provider has not said yet that it paid.
 */
export async function payBalance(
  tx: Sql,
  shop: string,
  payoutId: string,
  { creatorId, currency }: { creatorId: string; currency: string },
  due: Due,
  now: Date,
  status: "paid" | "paying",
): Promise<void> {
  const idsIn = (ids: string[]) => Prisma.sql`${CommissionTable.id} IN (${Prisma.join(ids)})`;
  for (let at = 0; at < due.recordIds.length; at += IDS_PER_UPDATE) {
    const ids = idsIn(due.recordIds.slice(at, at + IDS_PER_UPDATE));
    await updateWhere(
      tx,
      "Commission",
      Prisma.sql`${CommissionTable.shop} = ${shop} AND ${ids} AND ${CommissionTable.status} = 'approved'`,
      { status, paidAt: status === "paid" ? now : null, payoutId },
    );
  }
  for (let at = 0; at < due.clawbackIds.length; at += IDS_PER_UPDATE) {
    const ids = idsIn(due.clawbackIds.slice(at, at + IDS_PER_UPDATE));
    await updateWhere(
      tx,
      "CommissionEntry",
      Prisma.sql`${CommissionEntryTable.shop} = ${shop} AND ${ids} AND ${CommissionEntryTable.payoutId} IS NULL`,
      {
        payoutId,
      },
    );
  }
  await insertRows(tx, "PayoutLine", [
    {
      payoutId,
      creatorId,
      currency,
      amountMinor: due.total,
      amount: minorToAmount(due.total, currency),
      records: due.records,
    },
  ]);
}

export type VoidPayoutResult =
  { ok: true; payoutId: string; records: number; clawbacks: number } | { ok: false; errors: Record<string, string> };

class VoidRefused extends Error {}

/**
 * Voids a recorded payout: the merchant says it was not paid (or not as recorded). Its records
 * go back to approved and the clawbacks it netted back to open, so their balances are due
 * again; refunds that reached its records after it (clawbacks nobody netted yet) are settled by
 * the void, since the record's own amount already went down by them and the creator was never
 * paid it. Each record touched gets a `payout_void` entry of zero naming the payout: the
 * ledger only grows, and the entry is what says why a paid record is approved again. The
 * payout stays, marked voided with who, when and why. A record of it whose later refund was
 * netted by another payout is refused: undoing this payout alone would take that refund twice.
 */
export async function voidPayout(
  shop: string,
  input: { payoutId: string; reason: string },
  by: string | null,
  now: Date = new Date(),
): Promise<VoidPayoutResult> {
  const parsed = VoidForm.safeParse(input);
  if (!parsed.success) return { ok: false, errors: fieldErrors(parsed.error) };
  const { payoutId, reason } = parsed.data;
  try {
    return await sql.transaction(async (tx) => {
      const [payout] = await tx.rows<{ voidedAt: unknown; method: string }>(
        Prisma.sql`SELECT ${Payout.voidedAt}, ${Payout.method} FROM ${Payout} WHERE ${Payout.shop} = ${shop} AND ${Payout.id} = ${payoutId}`,
      );
      if (!payout) throw new VoidRefused(t("payouts.voidNotFound"));
      // A payout the app sent is settled by what its provider says, never by hand.
      if (payout.method !== "manual") throw new VoidRefused(t("payouts.voidSent"));
      // The conditional update is the guard against voiding twice: on PostgreSQL a second void
      // waits on this row and then finds it voided; on SQLite transactions take turns.
      const marked = await updateWhere(
        tx,
        "Payout",
        Prisma.sql`${Payout.shop} = ${shop} AND ${Payout.id} = ${payoutId} AND ${Payout.voidedAt} IS NULL`,
        { voidedAt: now, voidedBy: by, voidReason: reason },
      );
      if (marked === 0) throw new VoidRefused(t("payouts.voidAlready"));
      const later = await nettedLater(tx, shop, payoutId);
      if (later.length > 0)
        throw new VoidRefused(
          t("payouts.voidNettedLater", { payouts: later.map((p) => `${p.reference} (${p.paidOn})`).join(", ") }),
        );
      const { records, clawbacks } = await reopenPayoutRecords(tx, shop, payoutId, now);
      return { ok: true as const, payoutId, records, clawbacks };
    });
  } catch (error) {
    if (error instanceof VoidRefused) return { ok: false, errors: { void: error.message } };
    throw error;
  }
}
