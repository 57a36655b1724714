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
