import { CLICK_LIFETIME_MS } from "../click-service/contract";

// When to try an order again. Verification must finish inside the click's one-hour life
// (after it the service answers 404 for good), so every retry is bounded by that deadline
// as well as by a count.

export const MAX_ATTEMPTS = 8;
const BASE_DELAY_MS = 5_000;
const MAX_DELAY_MS = 5 * 60_000;

/** Full jitter: a random delay up to an exponentially growing cap, so retries spread out. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const cap = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.max(0, attempt - 1));
  return Math.max(1_000, Math.floor(random() * cap));
}

export function clickDeadline(capturedAt: Date | null, orderCreatedAt: Date): Date {
  return new Date((capturedAt ?? orderCreatedAt).getTime() + CLICK_LIFETIME_MS);
}

export type NextStep = { retryAt: Date } | { giveUp: string };

export function nextAttempt(attempts: number, now: Date, deadline: Date | null, random?: () => number): NextStep {
  if (attempts >= MAX_ATTEMPTS) return { giveUp: `gave up after ${attempts} attempts` };
  const retryAt = new Date(now.getTime() + backoffDelay(attempts, random));
  if (deadline && retryAt > deadline)
    return { giveUp: "the click's one-hour lifetime ended before the service answered" };
  return { retryAt };
}
