import { Prisma, type Payout, type PayoutLine } from "@prisma/client";
import { rowsOf, sql } from "../database/sql.server";
import { formatMoney, type MoneyText } from "../units/money";
import { formatCalendarDay } from "../units/shop-format";
import { creatorProfiles } from "./creator-profiles.server";
import { Payout as PayoutTable, PayoutLine as PayoutLineTable } from "../database/tables";

// The payouts a shop recorded, as the Payouts page lists them and as one payout's CSV carries
// them: each with its lines by creator and currency, and when and why it was voided.

export interface PayoutSummary {
  id: string;
  reference: string;
  paidOn: string;
  createdAt: string;
  /** Set once voided: when, by whom (a staff member's id, when known) and why; for a sent payout, its bounce. */
  voided: { at: string; by: string | null; reason: string } | null;
  /** manual, or the provider that sent it (paypal): then its item id and status as the provider last said. */
  method: string;
  provider: { itemId: string | null; status: string | null; settled: boolean } | null;
  lines: { creatorId: string; creatorName: string; currency: string; amount: string; records: number }[];
}

/** The shop's latest payouts; with `creatorId`, only those paying that creator, with only their lines. */
export async function listPayouts(
  shop: string,
  limit = 50,
  money: MoneyText = formatMoney,
  creatorId: string | null = null,
): Promise<PayoutSummary[]> {
  const paying = creatorId
    ? Prisma.sql`AND ${PayoutTable.id} IN (SELECT ${PayoutLineTable.payoutId} FROM ${PayoutLineTable} WHERE ${PayoutLineTable.creatorId} = ${creatorId})`
    : Prisma.empty;
  const payouts = (
    await withLines(
      await rowsOf<Payout>(
        sql,
        "Payout",
        Prisma.sql`
        SELECT * FROM ${PayoutTable} WHERE ${PayoutTable.shop} = ${shop} ${paying}
        ORDER BY ${PayoutTable.createdAt} DESC, ${PayoutTable.id} DESC LIMIT ${limit}`,
      ),
    )
  ).map((payout) => (creatorId ? { ...payout, lines: payout.lines.filter((l) => l.creatorId === creatorId) } : payout));
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
    method: payout.method,
    provider:
      payout.method === "manual"
        ? null
        : { itemId: payout.providerItemId, status: payout.providerStatus, settled: payout.settledAt !== null },
    lines: payout.lines.map((line) => ({
      creatorId: line.creatorId,
      creatorName: profiles.get(line.creatorId)?.name ?? "",
      currency: line.currency,
      amount: money(line.amountMinor, line.currency),
      records: line.records,
    })),
  }));
}

/** paidOn stays YYYY-MM-DD (the void form and the CSV name the day so); paidOnText is for reading. */
export function readablePayouts(payouts: PayoutSummary[], locale: string) {
  return payouts.map((payout) => ({ ...payout, paidOnText: formatCalendarDay(payout.paidOn, locale) }));
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
  /** manual, paypal, store_credit or gift_card. */
  method: string;
  /** The provider's id for a sent payout: PayPal's item, the store credit transaction, the gift card; empty for manual. */
  providerId: string;
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
      Prisma.sql`SELECT * FROM ${PayoutTable} WHERE ${PayoutTable.shop} = ${shop} AND ${PayoutTable.id} = ${payoutId} LIMIT 1`,
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
      method: payout.method,
      providerId: payout.providerItemId ?? "",
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
      SELECT * FROM ${PayoutLineTable} WHERE ${PayoutLineTable.payoutId} IN (${Prisma.join(payouts.map((payout) => payout.id))})
      ORDER BY ${PayoutLineTable.creatorId}, ${PayoutLineTable.currency}`,
  );
  return payouts.map((payout) => ({ ...payout, lines: lines.filter((line) => line.payoutId === payout.id) }));
}
