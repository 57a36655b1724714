// How an order's verification can end, and why the app can skip one: the one list the pipeline,
// the dashboard, the badges and the demo read.

export const OUTCOMES = [
  "matched",
  "hijacked",
  "unattributed",
  "expired",
  "failed",
  "rejected",
  "skipped",
  "invalid",
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** The verdict outcomes: the service (or the landing record) compared the tags. */
export type Verdict = Extract<Outcome, "matched" | "hijacked">;

export const SKIP_REASONS = {
  missing: "the shop has not configured the app",
  uninstalled: "the app was uninstalled",
  off: "automatic verification is switched off",
  redacted: "the order's data was redacted (customers/redact) before it was verified",
} as const;
export type SkipCause = keyof typeof SKIP_REASONS;
