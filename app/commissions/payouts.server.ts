import { z } from "zod";
import prisma, { dialect, isUniqueViolation, type Db } from "../db.server";
import { formatMoney } from "../units/money";
import { minorToAmount } from "./commission-amount";

// Payouts: the merchant pays creators their approved balances outside the app and records it
// here. A payout marks the approved records it covers as paid and nets every clawback (a
// refund or cancellation after an earlier payment) of that creator and currency, in one
// transaction. The form carries an idempotency key, unique per shop: submitting it again finds
// the payout already recorded, and a record already paid is never in a second payout.

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
export async function payableBalances(shop: string): Promise<PayableBalance[]> {
  const [approved, owed] = await Promise.all([
    prisma.commission.groupBy({
      by: ["creatorId", "currency"],
      where: { shop, status: "approved" },
      _sum: { amountMinor: true },
      _count: true,
    }),
    prisma.commissionEntry.findMany({
      where: { shop, kind: "clawback", payoutId: null },
      select: { amountMinor: true, commission: { select: { creatorId: true, currency: true } } },
    }),
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
    balance.approved += row._sum.amountMinor ?? 0n;
    balance.records += row._count;
  }
  for (const row of owed) entry(row.commission.creatorId, row.commission.currency).owed += row.amountMinor;
  return [...balances.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, b]) => ({
      key,
      creatorId: b.creatorId,
      currency: b.currency,
      approved: formatMoney(b.approved, b.currency),
      owed: formatMoney(b.owed, b.currency),
      balance: formatMoney(b.approved + b.owed, b.currency),
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
  balances: z.array(z.string()).min(1, "choose at least one balance to pay").max(1_000),
});

export type RecordPayoutResult =
  { ok: true; payoutId: string; duplicate: boolean; lines: number } | { ok: false; errors: Record<string, string> };

class NothingToPay extends Error {}

export async function recordPayout(
  shop: string,
  input: { idempotencyKey: string; reference: string; paidOn: string; balances: string[] },
  now: Date = new Date(),
): Promise<RecordPayoutResult> {
  const parsed = PayoutForm.safeParse(input);
  if (!parsed.success) {
    const errors: Record<string, string> = {};
    for (const issue of parsed.error.issues) errors[String(issue.path[0] ?? "form")] ??= issue.message;
    return { ok: false, errors };
  }
  const form = parsed.data;
  const chosen = form.balances.map(parseBalanceKey).filter((b): b is NonNullable<typeof b> => b !== null);
  const earlier = await findPayout(shop, form.idempotencyKey);
  if (earlier) return earlier;
  try {
    return await prisma.$transaction(
      async (tx) => {
        const payout = await tx.payout.create({
          data: {
            shop,
            idempotencyKey: form.idempotencyKey,
            reference: form.reference,
            paidOn: new Date(`${form.paidOn}T00:00:00Z`),
            createdAt: now,
          },
        });
        let lines = 0;
        for (const balance of chosen) if (await payBalance(tx, shop, payout.id, balance, now)) lines += 1;
        if (lines === 0) throw new NothingToPay();
        return { ok: true as const, payoutId: payout.id, duplicate: false, lines };
      },
      { timeout: 60_000 },
    );
  } catch (error) {
    if (error instanceof NothingToPay)
      return { ok: false, errors: { balances: "nothing is left to pay in the chosen balances; reload the page" } };
    // The same form submitted twice at once: the other submission recorded it.
    if (isUniqueViolation(error)) {
      const recorded = await findPayout(shop, form.idempotencyKey);
      if (recorded) return recorded;
    }
    throw error;
  }
}

async function findPayout(shop: string, idempotencyKey: string): Promise<RecordPayoutResult | null> {
  const payout = await prisma.payout.findUnique({
    where: { shop_idempotencyKey: { shop, idempotencyKey } },
    select: { id: true, _count: { select: { lines: true } } },
  });
  return payout ? { ok: true, payoutId: payout.id, duplicate: true, lines: payout._count.lines } : null;
}

/** Pays one creator's approved records in one currency, less their clawbacks; false when nothing positive is due. */
async function payBalance(
  tx: Db,
  shop: string,
  payoutId: string,
  { creatorId, currency }: { creatorId: string; currency: string },
  now: Date,
): Promise<boolean> {
  const records = { shop, creatorId, currency };
  if (dialect === "postgresql")
    // Held until commit, so neither a refund nor the approval sweep changes these rows between
    // the sum below and the update that pays them.
    await tx.$queryRaw`SELECT "id" FROM "Commission" WHERE "shop" = ${shop} AND "creatorId" = ${creatorId}
      AND "currency" = ${currency} FOR UPDATE`;
  const [approved, owed] = await Promise.all([
    tx.commission.aggregate({ where: { ...records, status: "approved" }, _sum: { amountMinor: true }, _count: true }),
    tx.commissionEntry.aggregate({
      where: { shop, kind: "clawback", payoutId: null, commission: records },
      _sum: { amountMinor: true },
    }),
  ]);
  const total = (approved._sum.amountMinor ?? 0n) + (owed._sum.amountMinor ?? 0n);
  if (approved._count === 0 || total <= 0n) return false;
  await tx.commission.updateMany({
    where: { ...records, status: "approved" },
    data: { status: "paid", paidAt: now, payoutId },
  });
  await tx.commissionEntry.updateMany({
    where: { shop, kind: "clawback", payoutId: null, commission: records },
    data: { payoutId },
  });
  await tx.payoutLine.create({
    data: {
      payoutId,
      creatorId,
      currency,
      amountMinor: total,
      amount: minorToAmount(total, currency),
      records: approved._count,
    },
  });
  return true;
}

export interface PayoutSummary {
  id: string;
  reference: string;
  paidOn: string;
  createdAt: string;
  lines: { creatorId: string; currency: string; amount: string; records: number }[];
}

export async function listPayouts(shop: string, limit = 50): Promise<PayoutSummary[]> {
  const payouts = await prisma.payout.findMany({
    where: { shop },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    include: { lines: { orderBy: [{ creatorId: "asc" }, { currency: "asc" }] } },
  });
  return payouts.map((payout) => ({
    id: payout.id,
    reference: payout.reference,
    paidOn: payout.paidOn.toISOString().slice(0, 10),
    createdAt: payout.createdAt.toISOString(),
    lines: payout.lines.map((line) => ({
      creatorId: line.creatorId,
      currency: line.currency,
      amount: formatMoney(line.amountMinor, line.currency),
      records: line.records,
    })),
  }));
}

export interface PayoutCsvRow {
  creatorId: string;
  amount: string;
  currency: string;
  records: number;
}

/** One payout's rows for its CSV, or null when the shop has no such payout. */
export async function payoutRows(
  shop: string,
  payoutId: string,
): Promise<{ reference: string; paidOn: string; rows: PayoutCsvRow[] } | null> {
  const payout = await prisma.payout.findFirst({
    where: { shop, id: payoutId },
    include: { lines: { orderBy: [{ creatorId: "asc" }, { currency: "asc" }] } },
  });
  if (!payout) return null;
  return {
    reference: payout.reference,
    paidOn: payout.paidOn.toISOString().slice(0, 10),
    rows: payout.lines.map((line) => ({
      creatorId: line.creatorId,
      amount: line.amount,
      currency: line.currency,
      records: line.records,
    })),
  };
}
