import type { ServerSettings } from "../settings/shop-settings.server";
import {
  done,
  stop,
  type Answered,
  type Change,
  type OrderState,
  type OrderStep,
  type StepOutcome,
} from "./order-steps";
import { nextAttempt } from "./retry-policy";

// Tags a hijacked order and stores the evidence on it. The write waits for the shop's Admin API
// bucket without holding a worker slot: when the bucket is empty the job is deferred to the time
// it refills, and every other order goes on. The mutation is idempotent, but it is sent once all
// the same: it is marked as started before it goes out, and a run that finds the mark reads the
// order's tags before sending it again. When tagging cannot succeed (or has used its attempts),
// the hijack still stands and the creator is still credited; the order page says why the tag is
// missing.

export const taggingStep: OrderStep = {
  // Stryker disable next-line StringLiteral: never read, nothing logs or looks up a step by its name
  name: "tagging",
  begin(state) {
    if (!(state.row.hijacked && state.row.taggedAt === null)) return done(state);
    return { kind: "call", call: { kind: "tag-slot" } };
  },
  after(state, answered) {
    switch (answered.call.kind) {
      case "tag-slot": {
        const waitMs = answered.result as number;
        if (waitMs > 0)
          return stop({
            to: "defer",
            at: new Date(state.now.getTime() + waitMs),
            reason: "waiting for the shop's Admin API rate limit",
          });
        return { kind: "call", call: { kind: "tag-access" } };
      }
      case "tag-access": {
        const access = (answered as Extract<Answered, { call: { kind: "tag-access" } }>).result;
        if (!access.ok) {
          if (access.retryable && state.attemptsLeft) return retry(state, `tag-order: ${access.message}`);
          return withoutTag(state, access.message);
        }
        if (state.row.tagStartedAt !== null) return { kind: "call", call: { kind: "tag-state", access } };
        return tagWrite(state, access);
      }
      case "tag-state": {
        const { call, result } = answered as Extract<Answered, { call: { kind: "tag-state" } }>;
        if (result.ok && result.order?.tags.includes(state.settings.hijackTag))
          return done(state, { taggedAt: state.now, evidenceAt: state.now, lastError: null });
        return tagWrite(state, call.access);
      }
      case "tag-write": {
        const { call, result } = answered as Extract<Answered, { call: { kind: "tag-write" } }>;
        const logged = (outcome: string, error: string | null): Change => ({
          attempts: [{ end: { id: call.attemptId, result: outcome, error } }],
        });
        if (result.ok)
          return done(state, { taggedAt: state.now, evidenceAt: state.now, lastError: null }, logged("ok", null));
        if (result.throttledForMs !== undefined)
          // Refused before it was applied: not an attempt that failed, a time to come back.
          return stop({
            to: "defer",
            at: new Date(state.now.getTime() + result.throttledForMs),
            reason: "the shop's Admin API bucket is empty",
            change: logged("throttled", result.message),
          });
        if (result.retryable && state.attemptsLeft)
          return retry(state, `tag-order: ${result.message}`, logged("retryable", result.message));
        return withoutTag(state, `tagging the order failed: ${result.message}`, logged("error", result.message));
      }
      default:
        throw new Error(`tagging asked for no ${answered.call.kind}`);
    }
  },
};

/** Marks the write as started, then sends it. */
function tagWrite(state: OrderState, access: Extract<Answered, { call: { kind: "tag-state" } }>["call"]["access"]) {
  const attemptId = state.newId();
  return {
    kind: "call",
    call: { kind: "tag-write", access, attemptId },
    before: { row: { tagStartedAt: state.now }, attempts: [{ start: { id: attemptId, step: "tag-order" } }] },
  } satisfies StepOutcome;
}

/** The tag is not written; the hijack stands, the order goes on to its credit, saying why. */
function withoutTag(state: OrderState, message: string, change: Change = {}): StepOutcome {
  return done(state, { lastError: `tag-order: ${message}`, reason: `hijack detected; ${message}` }, change);
}

function retry(state: OrderState, error: string, change: Change = {}): StepOutcome {
  const next = nextAttempt(state.attempts, state.now, null, state.random);
  if ("retryAt" in next) return stop({ to: "retry", at: next.retryAt, error, change });
  // Stryker disable next-line StringLiteral: never read, retry is called only with attempts left and no deadline, so nextAttempt always gives a time
  return stop({ to: "end", outcome: "failed", reason: `${next.giveUp} (last error: ${error})`, change });
}

/** What the hijack evidence on the order says: the service's verdict, as it stands on the row. */
export function evidenceOf(state: { row: OrderState["row"]; now: Date }, settings: ServerSettings) {
  const { row } = state;
  return {
    orderGid: row.orderGid,
    tag: settings.hijackTag,
    evidence: {
      expectedTag: row.expectedTag ?? "",
      arrivedTag: row.arrivedTag,
      creatorId: row.creatorId ?? "",
      verdict: row.verdict ?? "hijacked",
      decidedAt: state.now.toISOString(),
      clickId: row.clickId,
    },
  };
}
