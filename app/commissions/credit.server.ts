import prisma, { isUniqueViolation } from "../db.server";
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
 * Exactly one record per order: the unique key on the verification makes a second credit (a
 * retry, a racing worker) a no-op that returns the record already there.
 */
export async function creditCommission(input: CommissionInput): Promise<{ id: string; created: boolean }> {
  const { amount, amountMinor } = commissionAmount(input.orderValue, input.ratePercent, input.currency);
  try {
    const record = await prisma.commission.create({
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
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const existing = await prisma.commission.findUniqueOrThrow({
      where: { verificationId: input.verificationId },
      select: { id: true },
    });
    return { id: existing.id, created: false };
  }
}
