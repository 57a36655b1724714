import { z } from "zod";
import { t } from "../i18n";

// What the Payouts page's two forms may carry, checked before anything is read or written: a
// refused field is answered with its message beside it, and nothing is recorded.

export const PayoutForm = z.object({
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

export const VoidForm = z.object({
  payoutId: z.string().trim().min(1).max(100),
  reason: z
    .string()
    .trim()
    .min(1, { error: () => t("payouts.voidReasonMissing") })
    .max(500, { error: () => t("payouts.voidReasonTooLong") })
    .refine(
      // Stryker disable next-line StringLiteral: the line breaks are taken out so that the test for control characters lets them through; any text without one in their place does the same
      (text) => /^\P{Cc}*$/u.test(text.replace(/\r?\n/g, "")),
      { error: () => t("payouts.voidReasonControl") },
    ),
});

/** The first message for each field (a form-wide one under "form"), as the page shows them. */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const errors: Record<string, string> = {};
  // Stryker disable next-line StringLiteral: never read, the input is always an object, so every issue names its field
  for (const issue of error.issues) errors[String(issue.path[0] ?? "form")] ??= issue.message;
  return errors;
}
