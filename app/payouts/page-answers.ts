import type { PayoutsActionResult } from "../commissions/payouts-page.server";
import type { PaypalActionResult } from "./payouts-page.server";
import type { ScheduleActionResult } from "./schedule-page.server";

// The Payouts page's answers, as the browser splits them between the page's parts: the ledger's
// (record, void), the schedule's, and PayPal's (account, methods, a run). Shared with the server,
// which dispatches on the same intents (payouts-route.server.ts).

export const SCHEDULE_INTENTS = ["schedule", "schedule-pause", "schedule-resume"] as const;

export type PayoutsRouteAnswer = PayoutsActionResult | PaypalActionResult | ScheduleActionResult;

export function answerParts(answered: PayoutsRouteAnswer | undefined) {
  const ledger = answered?.intent === "record" || answered?.intent === "void" ? answered : undefined;
  const schedule = (SCHEDULE_INTENTS as readonly unknown[]).includes(answered?.intent)
    ? (answered as ScheduleActionResult)
    : undefined;
  const paypal = answered && !ledger && !schedule ? (answered as PaypalActionResult) : undefined;
  return { ledger, schedule, paypal };
}
