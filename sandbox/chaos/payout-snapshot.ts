import type { PrismaClient } from "@prisma/client";
import { ExactDecimal, minorDigits } from "../../app/units/minor-units";
import type { PaypalStandin } from "../paypal/server";
import type { ShopifyStandin } from "../shopify";
import { payoutState } from "../shopify/payouts";
import type { AppLine, DueBalance, PayoutMethod, PayoutSnapshot, ProviderPayment } from "./payout-ledger";

// What the payout figures are worked out from, read at the end of a `--payouts` run: each
// provider's own records of what it paid (the PayPal stand-in's items that ended SUCCESS, the
// Shopify stand-in's store credits and gift cards made during the run, the run's own list of
// what its merchant paid by hand), and the app's ledger (payouts, their lines, the records).

/** What the run's merchant paid by hand: each balance of a form the Payouts page recorded. */
export interface HandPayment {
  token: string;
  shop: string;
  balances: { key: string; creatorId: string; currency: string; shownMinor: string }[];
}

/** A provider's decimal amount in the currency's minor units, exactly. */
export function minorOf(amount: string, currency: string): bigint {
  return BigInt(new ExactDecimal(amount).times(new ExactDecimal(10).pow(minorDigits(currency))).toFixed(0));
}

const PAYOUT_ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

export async function payoutSnapshot(
  db: PrismaClient,
  parts: {
    shopify: ShopifyStandin;
    paypal: PaypalStandin;
    /** PayPal client id -> the shop whose account it is. */
    clients: Map<string, string>;
    shops: string[];
    emailOf: (shop: string, creatorId: string) => string;
    /** Store credits the merchant gave before the run: not the app's. */
    earlierCredits: Set<string>;
    handPaid: HandPayment[];
    due: DueBalance[];
  },
): Promise<PayoutSnapshot> {
  // The app's ledger first, as one picture (its runs, payouts and records in one repeatable-read
  // transaction), then the providers': the app marks a payout paid only after its provider paid,
  // so every payment behind a record read paid is already in the providers' records read after.
  // Read the other way round, or the tables one by one, a webhook applied between two reads (a
  // late PayPal SUCCESS for a parked run) shows a record paid whose payment was not yet read.
  const [runRows, payoutRows, records] = await db.$transaction(async (tx) => {
    // The chaos run's database is PostgreSQL: one snapshot for the three reads.
    await tx.$executeRawUnsafe("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
    return [
      await tx.payoutRun.findMany({ select: { id: true, state: true } }),
      await tx.payout.findMany({ include: { lines: true } }),
      await tx.commission.findMany({
        select: { id: true, shop: true, creatorId: true, currency: true, status: true, payoutId: true },
      }),
    ] as const;
  });
  const runs = new Map(runRows.map((r) => [r.id, r.state]));
  const lines: AppLine[] = payoutRows.flatMap((payout) =>
    payout.lines.map((line) => ({
      payoutId: payout.id,
      shop: payout.shop,
      method: payout.method as PayoutMethod,
      creatorId: line.creatorId,
      currency: line.currency,
      amountMinor: line.amountMinor,
      idempotencyKey: payout.idempotencyKey,
      providerItemId: payout.providerItemId,
      state: payout.voidedAt
        ? "bounced"
        : payout.method === "manual" || payout.settledAt
          ? "paid"
          : payout.providerStatus === "CHECK" || (payout.runId && runs.get(payout.runId) === "check")
            ? "parked"
            : "waiting",
    })),
  );

  const creatorOf = new Map(
    parts.due.map((d) => [`${d.shop} ${parts.emailOf(d.shop, d.creatorId).toLowerCase()}`, d.creatorId]),
  );
  const byEmail = (shop: string, email: string | undefined) =>
    email ? (creatorOf.get(`${shop} ${email.toLowerCase()}`) ?? null) : null;
  const payments: ProviderPayment[] = [];

  for (const batch of parts.paypal.ledger.batches.values()) {
    const shop = parts.clients.get(batch.clientId);
    if (!shop) continue;
    for (const item of batch.items.filter((i) => i.status === "SUCCESS"))
      payments.push({
        method: "paypal",
        shop,
        creatorId: byEmail(shop, item.receiver),
        currency: item.currency,
        amountMinor: minorOf(item.value, item.currency),
        id: item.payoutItemId,
        ref: item.senderItemId,
      });
  }
  for (const shop of parts.shops) {
    const state = payoutState(parts.shopify.store.shop(shop));
    const email = (gid: string | null) => state.customers.find((c) => c.gid === gid)?.email;
    for (const credit of state.credits.filter((c) => !parts.earlierCredits.has(c.gid)))
      payments.push({
        method: "store_credit",
        shop,
        creatorId: byEmail(shop, email(credit.customerGid)),
        currency: credit.currency,
        amountMinor: minorOf(credit.amount, credit.currency),
        id: credit.gid,
        ref: null,
      });
    for (const card of state.giftCards)
      payments.push({
        method: "gift_card",
        shop,
        creatorId: byEmail(shop, email(card.recipientGid)),
        currency: card.currency,
        amountMinor: minorOf(card.amount, card.currency),
        id: card.gid,
        ref: PAYOUT_ID.exec(card.note ?? "")?.[0] ?? null,
      });
  }
  for (const paid of parts.handPaid)
    for (const balance of paid.balances)
      payments.push({
        method: "manual",
        shop: paid.shop,
        creatorId: balance.creatorId,
        currency: balance.currency,
        amountMinor: BigInt(balance.shownMinor),
        id: `${paid.token} ${balance.key}`,
        ref: paid.token,
      });

  return { payments, lines, records, due: parts.due };
}
