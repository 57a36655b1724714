import { randomUUID } from "node:crypto";
import { Prisma, type Commission, type CommissionEntry, type Payout, type PayoutLine } from "@prisma/client";
import { z } from "zod";
import { dialect, isUniqueViolation } from "../database/db.server";
import { insertRows, readDate, rowsOf, sql, type Sql, updateWhere } from "../database/sql.server";
import { t } from "../i18n";
import { formatMoney, type MoneyText } from "../units/money";
import { minorToAmount } from "./commission-amount";
import { creatorProfiles } from "./creator-profiles.server";

// Payouts: the merchant pays creators their approved balances outside the app and records it
// here. A payout marks the approved records it covers as paid and nets every clawback (a
// refund or cancellation after an earlier payment) of that creator and currency, in one
// transaction. The form carries an idempotency key, unique per shop: submitting it again finds
// the payout already recorded, and a record already paid is never in a second payout. It also
// carries each balance as the page showed it, which is what the merchant paid: a balance that
// has changed since (the approval sweep approved more, a refund took some back) is refused, so
// the ledger never records as paid an amount that was not.

export interface PayableBalance {
  /** `${currency}:${creatorId}`: what the form sends back for a chosen balance. */
  key: string;
  creatorId: string;
  currency: string;
  approved: string;
  /** Clawbacks not netted yet (negative or zero). */
  owed: string;
  balance: string;
  balanceMinor: string;
  records: number;
  payable: boolean;
}

export function balanceKey(creatorId: string, currency: string): string {
  return `${currency}:${creatorId}`;
}

function parseBalanceKey(key: string): { creatorId: string; currency: string } | null {
  const match = /^([A-Z]{3}):(.{1,200})$/s.exec(key);
  return match ? { currency: match[1]!, creatorId: match[2]! } : null;
}

/** Every creator and currency with approved records or clawbacks to net; payable when the sum is positive. */
export async function payableBalances(shop: string, money: MoneyText = formatMoney): Promise<PayableBalance[]> {
  // Sums as decimal text: one type from both drivers, read exactly into bigints.
  const [approved, owed] = await Promise.all([
    sql.rows<{ creatorId: string; currency: string; approved: string; records: number | bigint | string }>(Prisma.sql`
      SELECT "creatorId", "currency", CAST(SUM("amountMinor") AS TEXT) AS "approved", COUNT(*) AS "records"
      FROM "Commission" WHERE "shop" = ${shop} AND "status" = 'approved'
      GROUP BY "creatorId", "currency"`),
    sql.rows<{ creatorId: string; currency: string; owed: string }>(Prisma.sql`
      SELECT c."creatorId", c."currency", CAST(SUM(e."amountMinor") AS TEXT) AS "owed"
      FROM "CommissionEntry" e JOIN "Commission" c ON c."id" = e."commissionId"
      WHERE e."shop" = ${shop} AND e."kind" = 'clawback' AND e."payoutId" IS NULL
      GROUP BY c."creatorId", c."currency"`),
  ]);
  const balances = new Map<
    string,
    { creatorId: string; currency: string; approved: bigint; owed: bigint; records: number }
  >();
  const entry = (creatorId: string, currency: string) => {
    const key = balanceKey(creatorId, currency);
    const found = balances.get(key) ?? { creatorId, currency, approved: 0n, owed: 0n, records: 0 };
    balances.set(key, found);
    return found;
  };
  for (const row of approved) {
    const balance = entry(row.creatorId, row.currency);
    balance.approved += BigInt(row.approved);
    balance.records += Number(row.records);
  }
  for (const row of owed) entry(row.creatorId, row.currency).owed += BigInt(row.owed);
  return [...balances.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, b]) => ({
      key,
      creatorId: b.creatorId,
      currency: b.currency,
      approved: money(b.approved, b.currency),
      owed: money(b.owed, b.currency),
      balance: money(b.approved + b.owed, b.currency),
      balanceMinor: String(b.approved + b.owed),
      records: b.records,
      payable: b.records > 0 && b.approved + b.owed > 0n,
    }));
}

const PayoutForm = z.object({
  idempotencyKey: z.string().trim().min(8, "reload the page and submit again").max(100),
  reference: z
    .string()
    .trim()
    .min(1, "enter the payment's reference (a transfer id, a batch name)")
    .max(200, "the reference is at most 200 characters"),
  paidOn: z
    .string()
    .trim()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "enter the date paid as YYYY-MM-DD")
    .refine(
      (date) =>
        !Number.isNaN(Date.parse(`${date}T00:00:00Z`)) && new Date(`${date}T00:00:00Z`).toISOString().startsWith(date),
      "enter a real date",
    ),
  balances: z
    .array(
      z.object({
        key: z.string(),
        shownMinor: z.string().regex(/^-?\d{1,30}$/, "reload the page and choose the balances again"),
      }),
    )
    .min(1, "choose at least one balance to pay")
    .max(1_000),
});

/** A balance the merchant chose: its key, and its amount (minor units) as the page showed it. */
export interface ChosenBalance {
  key: string;
  shownMinor: string;
}

export type RecordPayoutResult =
  { ok: true; payoutId: string; duplicate: boolean; lines: number } | { ok: false; errors: Record<string, string> };

class NothingToPay extends Error {}

class BalancesChanged extends Error {}

export async function recordPayout(
  shop: string,
  input: { idempotencyKey: string; reference: string; paidOn: string; balances: ChosenBalance[] },
  now: Date = new Date(),
  money: MoneyText = formatMoney,
): Promise<RecordPayoutResult> {
  const parsed = PayoutForm.safeParse(input);
  if (!parsed.success) {
    const errors: Record<string, string> = {};
    // Stryker disable next-line StringLiteral: never read, the input is always an object, so every issue names its field
    for (const issue of parsed.error.issues) errors[String(issue.path[0] ?? "form")] ??= issue.message;
    return { ok: false, errors };
  }
  const form = parsed.data;
  // A balance chosen twice (a form sent by hand) is paid once.
  const byKey = new Map(form.balances.map((balance) => [balance.key, balance]));
  const chosen = [...byKey.values()].flatMap(({ key, shownMinor }) => {
    const balance = parseBalanceKey(key);
    return balance ? [{ ...balance, shownMinor: BigInt(shownMinor) }] : [];
  });
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
      const dues = [];
      for (const balance of chosen) dues.push({ ...balance, due: await dueOf(tx, shop, balance) });
      if (dues.every(({ due }) => due === null)) throw new NothingToPay();
      // Nothing due now is a change too, whatever was sent (a form sent by hand may say 0).
      const changed = dues.filter(({ due, shownMinor }) => due === null || due.total !== shownMinor);
      if (changed.length > 0) throw new BalancesChanged(changedText(changed, money));
      for (const { due, ...balance } of dues) await payBalance(tx, shop, payoutId, balance, due!, now);
      return { ok: true as const, payoutId, duplicate: false, lines: dues.length };
    });
  } catch (error) {
    if (error instanceof NothingToPay)
      return { ok: false, errors: { balances: "nothing is left to pay in the chosen balances; reload the page" } };
    if (error instanceof BalancesChanged) return { ok: false, errors: { balances: error.message } };
    // The same form submitted twice at once: the other submission recorded it.
    if (isUniqueViolation(error)) {
      const recorded = await findPayout(shop, form.idempotencyKey);
      if (recorded) return recorded;
    }
    throw error;
  }
}

async function findPayout(shop: string, idempotencyKey: string): Promise<RecordPayoutResult | null> {
  const [payout] = await sql.rows<{ id: string; lines: number | bigint | string }>(Prisma.sql`
    SELECT p."id", (SELECT COUNT(*) FROM "PayoutLine" l WHERE l."payoutId" = p."id") AS "lines"
    FROM "Payout" p WHERE p."shop" = ${shop} AND p."idempotencyKey" = ${idempotencyKey}`);
  return payout ? { ok: true, payoutId: payout.id, duplicate: true, lines: Number(payout.lines) } : null;
}

interface Due {
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
): Promise<Due | null> {
  const records = Prisma.sql`"shop" = ${shop} AND "creatorId" = ${creatorId} AND "currency" = ${currency}`;
  if (dialect === "postgresql")
    // Held until commit, so neither a refund nor the approval sweep changes these rows between
    // the sum below and the update that pays them.
    await tx.rows(Prisma.sql`SELECT "id" FROM "Commission" WHERE ${records} FOR UPDATE`);
  const approved = await rowsOf<Pick<Commission, "id" | "amountMinor">>(
    tx,
    "Commission",
    Prisma.sql`SELECT "id", "amountMinor" FROM "Commission" WHERE ${records} AND "status" = 'approved'`,
  );
  const owed = await rowsOf<Pick<CommissionEntry, "id" | "amountMinor">>(
    tx,
    "CommissionEntry",
    Prisma.sql`
      SELECT e."id", e."amountMinor" FROM "CommissionEntry" e
      WHERE e."shop" = ${shop} AND e."kind" = 'clawback' AND e."payoutId" IS NULL
        AND e."commissionId" IN (SELECT "id" FROM "Commission" WHERE ${records})`,
  );
  const total = [...approved, ...owed].reduce((sum, row) => sum + row.amountMinor, 0n);
  if (approved.length === 0 || total <= 0n) return null;
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

/** Ids per statement when marking rows: well under SQLite's and PostgreSQL's limits on parameters. */
const IDS_PER_UPDATE = 1_000;

/** Pays one creator's approved records in one currency, less their clawbacks: `due`, read in this transaction. */
async function payBalance(
  tx: Sql,
  shop: string,
  payoutId: string,
  { creatorId, currency }: { creatorId: string; currency: string },
  due: Due,
  now: Date,
): Promise<void> {
  const idsIn = (ids: string[]) => Prisma.sql`"id" IN (${Prisma.join(ids)})`;
  for (let at = 0; at < due.recordIds.length; at += IDS_PER_UPDATE) {
    const ids = idsIn(due.recordIds.slice(at, at + IDS_PER_UPDATE));
    await updateWhere(tx, "Commission", Prisma.sql`"shop" = ${shop} AND ${ids} AND "status" = 'approved'`, {
      status: "paid",
      paidAt: now,
      payoutId,
    });
  }
  for (let at = 0; at < due.clawbackIds.length; at += IDS_PER_UPDATE) {
    const ids = idsIn(due.clawbackIds.slice(at, at + IDS_PER_UPDATE));
    await updateWhere(tx, "CommissionEntry", Prisma.sql`"shop" = ${shop} AND ${ids} AND "payoutId" IS NULL`, {
      payoutId,
    });
  }
  await insertRows(tx, "PayoutLine", [
    {
      id: randomUUID(),
      payoutId,
      creatorId,
      currency,
      amountMinor: due.total,
      amount: minorToAmount(due.total, currency),
      records: due.records,
    },
  ]);
}

export interface PayoutSummary {
  id: string;
  reference: string;
  paidOn: string;
  createdAt: string;
  /** Set once voided: when, by whom (a staff member's id, when known) and why. */
  voided: { at: string; by: string | null; reason: string } | null;
  lines: { creatorId: string; creatorName: string; currency: string; amount: string; records: number }[];
}

export async function listPayouts(shop: string, limit = 50, money: MoneyText = formatMoney): Promise<PayoutSummary[]> {
  const payouts = await withLines(
    await rowsOf<Payout>(
      sql,
      "Payout",
      Prisma.sql`
        SELECT * FROM "Payout" WHERE "shop" = ${shop} ORDER BY "createdAt" DESC, "id" DESC LIMIT ${limit}`,
    ),
  );
  const profiles = await creatorProfiles(
    shop,
    payouts.flatMap((payout) => payout.lines.map((line) => line.creatorId)),
  );
  return payouts.map((payout) => ({
    id: payout.id,
    reference: payout.reference,
    paidOn: payout.paidOn.toISOString().slice(0, 10),
    createdAt: payout.createdAt.toISOString(),
    voided: payout.voidedAt
      ? // Stryker disable next-line StringLiteral: never read, voidPayout sets the reason with the time
        { at: payout.voidedAt.toISOString(), by: payout.voidedBy, reason: payout.voidReason ?? "" }
      : null,
    lines: payout.lines.map((line) => ({
      creatorId: line.creatorId,
      creatorName: profiles.get(line.creatorId)?.name ?? "",
      currency: line.currency,
      amount: money(line.amountMinor, line.currency),
      records: line.records,
    })),
  }));
}

export interface PayoutCsvRow {
  reference: string;
  paidOn: string;
  creatorId: string;
  creatorName: string;
  creatorEmail: string;
  amount: string;
  currency: string;
  records: number;
  /** When the payout was voided (ISO time), empty while it stands. */
  voidedAt: string;
}

/** One payout's rows for its CSV, or null when the shop has no such payout. */
export async function payoutRows(
  shop: string,
  payoutId: string,
): Promise<{ reference: string; paidOn: string; rows: PayoutCsvRow[] } | null> {
  const [payout] = await withLines(
    await rowsOf<Payout>(
      sql,
      "Payout",
      Prisma.sql`SELECT * FROM "Payout" WHERE "shop" = ${shop} AND "id" = ${payoutId} LIMIT 1`,
    ),
  );
  if (!payout) return null;
  const profiles = await creatorProfiles(
    shop,
    payout.lines.map((line) => line.creatorId),
  );
  const paidOn = payout.paidOn.toISOString().slice(0, 10);
  return {
    reference: payout.reference,
    paidOn,
    rows: payout.lines.map((line) => ({
      reference: payout.reference,
      paidOn,
      creatorId: line.creatorId,
      creatorName: profiles.get(line.creatorId)?.name ?? "",
      creatorEmail: profiles.get(line.creatorId)?.email ?? "",
      amount: line.amount,
      currency: line.currency,
      records: line.records,
      voidedAt: payout.voidedAt?.toISOString() ?? "",
    })),
  };
}

/** Each payout with its lines, by creator and currency. */
async function withLines(payouts: Payout[]): Promise<(Payout & { lines: PayoutLine[] })[]> {
  if (payouts.length === 0) return [];
  const lines = await rowsOf<PayoutLine>(
    sql,
    "PayoutLine",
    Prisma.sql`
      SELECT * FROM "PayoutLine" WHERE "payoutId" IN (${Prisma.join(payouts.map((payout) => payout.id))})
      ORDER BY "creatorId", "currency"`,
  );
  return payouts.map((payout) => ({ ...payout, lines: lines.filter((line) => line.payoutId === payout.id) }));
}

const VoidForm = z.object({
  payoutId: z.string().trim().min(1).max(100),
  reason: z
    .string()
    .trim()
    .min(1, t("payouts.voidReasonMissing"))
    .max(500, t("payouts.voidReasonTooLong"))
    .refine((text) => /^\P{Cc}*$/u.test(text.replace(/\r?\n/g, "")), t("payouts.voidReasonControl")),
});

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
  if (!parsed.success) {
    const errors: Record<string, string> = {};
    // Stryker disable next-line StringLiteral: never read, the input is always an object, so every issue names its field
    for (const issue of parsed.error.issues) errors[String(issue.path[0] ?? "form")] ??= issue.message;
    return { ok: false, errors };
  }
  const { payoutId, reason } = parsed.data;
  try {
    return await sql.transaction(async (tx) => {
      const [payout] = await tx.rows<{ voidedAt: unknown }>(
        Prisma.sql`SELECT "voidedAt" FROM "Payout" WHERE "shop" = ${shop} AND "id" = ${payoutId}`,
      );
      if (!payout) throw new VoidRefused(t("payouts.voidNotFound"));
      // The conditional update is the guard against voiding twice: on PostgreSQL a second void
      // waits on this row and then finds it voided; on SQLite transactions take turns.
      const marked = await updateWhere(
        tx,
        "Payout",
        Prisma.sql`"shop" = ${shop} AND "id" = ${payoutId} AND "voidedAt" IS NULL`,
        { voidedAt: now, voidedBy: by, voidReason: reason },
      );
      if (marked === 0) throw new VoidRefused(t("payouts.voidAlready"));
      const ofPayout = Prisma.sql`"shop" = ${shop} AND "payoutId" = ${payoutId}`;
      if (dialect === "postgresql")
        // Held until commit: a refund on one of these records waits, then sees it approved.
        await tx.rows(Prisma.sql`SELECT "id" FROM "Commission" WHERE ${ofPayout} FOR UPDATE`);
      const records = await tx.rows<{ id: string }>(
        Prisma.sql`SELECT "id" FROM "Commission" WHERE ${ofPayout} AND "status" = 'paid'`,
      );
      const recordIds = records.map((row) => row.id);
      const nettedLater =
        recordIds.length === 0
          ? []
          : await tx.rows<{ reference: string; paidOn: unknown }>(Prisma.sql`
              SELECT DISTINCT p."reference", p."paidOn" FROM "CommissionEntry" e JOIN "Payout" p ON p."id" = e."payoutId"
              WHERE e."shop" = ${shop} AND e."kind" = 'clawback' AND e."payoutId" <> ${payoutId}
                AND e."commissionId" IN (${Prisma.join(recordIds)})`);
      if (nettedLater.length > 0)
        throw new VoidRefused(
          t("payouts.voidNettedLater", {
            payouts: nettedLater
              .map((p) => `${p.reference} (${readDate(p.paidOn).toISOString().slice(0, 10)})`)
              .join(", "),
          }),
        );
      const reopened = await tx.rows<{ id: string; commissionId: string }>(
        Prisma.sql`SELECT "id", "commissionId" FROM "CommissionEntry" WHERE "shop" = ${shop} AND "kind" = 'clawback' AND "payoutId" = ${payoutId}`,
      );
      for (let at = 0; at < recordIds.length; at += IDS_PER_UPDATE) {
        const ids = Prisma.join(recordIds.slice(at, at + IDS_PER_UPDATE));
        await updateWhere(tx, "Commission", Prisma.sql`"id" IN (${ids}) AND "status" = 'paid'`, {
          status: "approved",
          paidAt: null,
          payoutId: null,
        });
        // Refunds after the payment that no payout netted: the record's amount already shows them.
        await updateWhere(
          tx,
          "CommissionEntry",
          Prisma.sql`"commissionId" IN (${ids}) AND "kind" = 'clawback' AND "payoutId" IS NULL`,
          { payoutId },
        );
      }
      for (let at = 0; at < reopened.length; at += IDS_PER_UPDATE) {
        const ids = Prisma.join(reopened.slice(at, at + IDS_PER_UPDATE).map((row) => row.id));
        await updateWhere(tx, "CommissionEntry", Prisma.sql`"id" IN (${ids})`, { payoutId: null });
      }
      const touched = [...new Set([...recordIds, ...reopened.map((row) => row.commissionId)])];
      for (let at = 0; at < touched.length; at += IDS_PER_UPDATE) {
        const batch = await tx.rows<{ id: string; currency: string }>(
          Prisma.sql`SELECT "id", "currency" FROM "Commission" WHERE "id" IN (${Prisma.join(touched.slice(at, at + IDS_PER_UPDATE))})`,
        );
        await insertRows(
          tx,
          "CommissionEntry",
          batch.map(({ id: commissionId, currency }) => ({
            id: randomUUID(),
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
      return { ok: true as const, payoutId, records: recordIds.length, clawbacks: reopened.length };
    });
  } catch (error) {
    if (error instanceof VoidRefused) return { ok: false, errors: { void: error.message } };
    throw error;
  }
}
