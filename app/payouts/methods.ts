// How a creator is paid: by hand (the merchant pays outside the app and records it, as before)
// or through PayPal Payouts, sent by the app. Each creator has the shop's default unless the
// merchant chose otherwise for them.

export const PAYOUT_METHODS = ["manual", "paypal"] as const;
export type PayoutMethod = (typeof PAYOUT_METHODS)[number];

export function isPayoutMethod(value: unknown): value is PayoutMethod {
  return (PAYOUT_METHODS as readonly unknown[]).includes(value);
}

/** The method a creator is paid by: their own, else the shop's default. */
export function methodOf(
  creatorId: string,
  chosen: Record<string, PayoutMethod>,
  shopDefault: PayoutMethod,
): PayoutMethod {
  return Object.hasOwn(chosen, creatorId) ? chosen[creatorId]! : shopDefault;
}
