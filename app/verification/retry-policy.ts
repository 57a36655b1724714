import { CLICK_LIFETIME_MS } from "../click-service/contract";
import { nextRetry } from "../queue/backoff";
import { MAX_ATTEMPTS } from "../queue/job-states";

// When an order's verdict is tried again. It must come inside the click's one-hour life (after
// it the service answers 404 for good), so every retry is bounded by that deadline as well as by
// the queue's attempt limit.

export function clickDeadline(capturedAt: Date | null, orderCreatedAt: Date): Date {
  return new Date((capturedAt ?? orderCreatedAt).getTime() + CLICK_LIFETIME_MS);
}

export const GAVE_UP_ON_LIFETIME = "the click's one-hour life ended before the service answered";

export type NextStep = { retryAt: Date } | { giveUp: string };

/** attempts: those made so far, this one included. deadline null: bounded by attempts alone. */
export function nextAttempt(attempts: number, now: Date, deadline: Date | null, random?: () => number): NextStep {
  const next = nextRetry(attempts, MAX_ATTEMPTS, now, deadline, random);
  if ("retryAt" in next) return next;
  return { giveUp: next.giveUp === "attempts" ? `gave up after ${attempts} attempts` : GAVE_UP_ON_LIFETIME };
}
