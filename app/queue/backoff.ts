// When a failed job runs again: full jitter under an exponentially growing cap, so retries
// spread out instead of arriving together.

const BASE_DELAY_MS = 5_000;
const MAX_DELAY_MS = 5 * 60_000;
const MIN_DELAY_MS = 1_000;

/** Delay before the attempt after `attempt` (1-based): random in [1 s, min(5 min, 5 s * 2^(attempt-1))). */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const cap = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.max(0, attempt - 1));
  return Math.max(MIN_DELAY_MS, Math.floor(random() * cap));
}

export type NextRetry = { retryAt: Date } | { giveUp: "attempts" | "deadline" };

/**
 * When to try again after `attempts` attempts (this one included): after the backoff, unless the
 * attempts are used up or the retry would land after `deadline` (null: no deadline).
 */
export function nextRetry(
  attempts: number,
  maxAttempts: number,
  now: Date,
  deadline: Date | null,
  random?: () => number,
): NextRetry {
  if (attempts >= maxAttempts) return { giveUp: "attempts" };
  const retryAt = new Date(now.getTime() + backoffDelay(attempts, random));
  if (deadline && retryAt > deadline) return { giveUp: "deadline" };
  return { retryAt };
}
