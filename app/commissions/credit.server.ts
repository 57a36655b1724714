import type { Db } from "../db.server";
import { commissionAmount } from "./commission-amount";

export interface CommissionInput {
  shop: string;
  verificationId: string;
  orderId: string;
  orderName: string | null;
  /** The creator of the EXPECTED tag, as the click service reports it. */
  creatorId: string;
  expectedTag: string;
  arrivedTag: string;
  orderValue: string;
  currency: string;
  ratePercent: string;
  hijacked: boolean;
}

/**
 * Credits the order's commission to the creator of the expected tag, never the arrived one.
 * Exactly one record per order: called inside the order job's fenced transaction (only the
 * lease holder writes), and the unique key on the verification backs that up.
 */
export async function creditCommission(tx: Db, input: CommissionInput): Promise<{ id: string; created: boolean }> {
  const existing = await tx.commission.findUnique({
    where: { verificationId: input.verificationId },
    select: { id: true },
  });
  if (existing) return { id: existing.id, created: false };
  const { amount, amountMinor } = commissionAmount(input.orderValue, input.ratePercent, input.currency);
  const record = await tx.commission.create({
    data: {
      shop: input.shop,
      verificationId: input.verificationId,
      orderId: input.orderId,
      orderName: input.orderName,
      creatorId: input.creatorId,
      expectedTag: input.expectedTag,
      arrivedTag: input.arrivedTag,
      orderValue: input.orderValue,
      currency: input.currency,
      rate: input.ratePercent,
      amount,
      amountMinor,
      status: "pending",
      redirected: input.hijacked,
    },
    select: { id: true },
  });
  return { id: record.id, created: true };
}
