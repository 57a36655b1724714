import Decimal from "decimal.js";
import { z } from "zod";

// The bounds every amount read from Shopify is held to: an order's (orders/create) and what a
// refund gives back (refunds/create) alike.

/** Largest order value the app accepts, in the currency's major unit (a trillion). Commissions
 * stay exact integers of minor units far below 2^63, even summed over a day's orders. */
export const MAX_ORDER_VALUE = "1000000000000";

/**
 * An amount of a Shopify payload, read as exact decimal text: never below zero (a negative
 * refund would take the refunded total back, and the next genuine refund would then adjust
 * nothing) and never beyond the largest order value. A JSON number is taken as its text.
 */
export const Amount = z
  .union([z.string(), z.number()])
  .transform(String)
  .pipe(
    z
      .string()
      // abort: zod 4 would otherwise run the refinement too, and Decimal throws on what the
      // pattern refuses ("1,000.00"), so the bound is not read then.
      .regex(/^\d{1,13}(\.\d{1,6})?$/, { message: "must be a decimal amount of at least 0", abort: true })
      .refine((value) => new Decimal(value).lte(MAX_ORDER_VALUE), `must be at most ${MAX_ORDER_VALUE}`),
  );
