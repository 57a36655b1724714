import type { PayoutsActionResult } from "../commissions/payouts-page.server";
import type { CheckedResult } from "./checked.server";
import type { PaypalActionResult } from "./payouts-page.server";
import type { ScheduleActionResult } from "./schedule-page.server";

// The Payouts page's answers, as the browser splits them between the page's parts: the ledger's
// (record, void), the schedule's, PayPal's (account, methods, a run), and the merchant's word on
// a payout that waited for them (checked). Shared with the server,
// which dispatches on the same intents (payouts-route.server.ts).

export const SCHEDULE_INTENTS = ["schedule", "schedule-pause", "schedule-resume"] as const;

export type PayoutsRouteAnswer = PayoutsActionResult | PaypalActionResult | ScheduleActionResult | CheckedResult;

export function answerParts(answered: PayoutsRouteAnswer | undefined) {
  const ledger = answered?.intent === "record" || answered?.intent === "void" ? answered : undefined;
  const schedule = (SCHEDULE_INTENTS as readonly unknown[]).includes(answered?.intent)
    ? (answered as ScheduleActionResult)
    : undefined;
  const checked = answered?.intent === "checked" ? answered : undefined;
  const paypal = answered && !ledger && !schedule && !checked ? (answered as PaypalActionResult) : undefined;
  return { ledger, schedule, paypal, checked };
}
