import type { ClickRecord, Verification } from "@prisma/client";
import type { ClickServiceError } from "../click-service";
import {
  done,
  stop,
  type Answered,
  type Change,
  type OrderState,
  type OrderStep,
  type StepOutcome,
} from "./order-steps";
import { GAVE_UP_ON_LIFETIME, nextAttempt } from "./retry-policy";

// The verdict: was the tag that reached the order the creator's? The order is reported to the
// service (verify-click) at most once (decision 010). The report is marked as started, fenced by
// the job's lease, before it is sent; once marked it is never sent again, unless nothing reached
// the service (no connection) or the service refused the key before recording anything. When an
// answer is lost on the way back, the verdict is settled with lookup-click, a read that is safe
// to repeat, by comparing the click's expected tag with the arrived one. Once the service has
// forgotten the click, the click as lookup-click learned it when the shopper landed decides
// (decision 011). The verdict is written with the run's next write: its credit, its tag write's
// deferral, or the mark set before the tag write goes out.

const KEY_REJECTED =
  "the Click Verification Service rejected the API key; fix it in Settings and the order is retried while its click is alive";

export const verdictStep: OrderStep = {
  // Stryker disable next-line StringLiteral: never read, nothing logs or looks up a step by its name
  name: "verdict",
  begin(state) {
    const { row } = state;
    if (row.hijacked !== null) return done(state);
    if (row.reportStartedAt !== null) return lookUp(state);
    const attemptId = state.newId();
    return {
      kind: "call",
      call: {
        kind: "verify-click",
        attemptId,
        request: {
          // Stryker disable next-line StringLiteral: never read, only an attributed order is asked about, with its click id (a redacted one is skipped or has its verdict)
          clickId: row.clickId ?? "",
          // A stripped tag is sent as "": it cannot match, so the service reports the hijack.
          arrivedTag: row.arrivedTag ?? "",
          conversion: true,
          orderId: row.orderId,
          orderValue: row.orderValue ?? undefined,
        },
        deadline: row.deadlineAt,
      },
      before: { row: { reportStartedAt: state.now }, attempts: [{ start: { id: attemptId, step: "verify-click" } }] },
    };
  },
  after(state, answered) {
    switch (answered.call.kind) {
      case "verify-click":
        return afterReport(state, answered as Extract<Answered, { call: { kind: "verify-click" } }>);
      case "lookup-click":
        return afterLookup(state, answered as Extract<Answered, { call: { kind: "lookup-click" } }>);
      case "landing-record": {
        const { call, result } = answered as Extract<Answered, { call: { kind: "landing-record" } }>;
        return fromLanding(state, result, call.change) ?? stop(call.otherwise);
      }
      default:
        throw new Error(`the verdict asked for no ${answered.call.kind}`);
    }
  },
};

function afterReport(state: OrderState, { call, result }: Extract<Answered, { call: { kind: "verify-click" } }>) {
  const ended = (outcome: string, error: string | null = null): Change => ({
    attempts: [{ end: { id: call.attemptId, result: outcome, error } }],
  });
  if (result.ok) {
    const answer = result.value;
    return done(
      state,
      {
        expectedTag: answer.expectedTag,
        creatorId: answer.creatorId,
        verdict: answer.verdict,
        recorded: answer.recorded,
        hijacked: answer.isHijacked,
        verdictSource: "service",
        reportConfirmed: true,
        lastError: null,
      },
      ended("ok"),
    );
  }
  const error = result.error;
  // Nothing was recorded: the report may go again.
  const unsent = (outcome: string): Change => ({ row: { reportStartedAt: null }, ...ended(outcome, error.message) });
  if (error.kind === "retryable" && !error.sent) return retry(state, describe(error), unsent("not-sent"));
  switch (error.kind) {
    case "destination":
      // The stored URL is not one the app may call: only the merchant can fix it.
      return stop({ to: "park", reason: `the service URL cannot be used: ${error.message}`, change: unsent("error") });
    case "credentials":
      // Refused before anything was recorded: the report may go again once the key is fixed.
      return stop({
        to: "park",
        reason: KEY_REJECTED,
        change: { ...unsent("credentials"), credentialsRejected: true },
      });
    case "expired":
      return landingOr(state, unsent("expired"), {
        to: "end",
        outcome: "expired",
        reason: "the click is unknown to the service or past its one-hour life",
        change: unsent("expired"),
      });
    case "bad-request":
    case "invalid-input":
      return stop({
        to: "end",
        outcome: "failed",
        reason: `the service refused the request: ${error.message}`,
        change: unsent("error"),
      });
    default:
      // Timed out, reset, a 5xx, an answer off the contract: the service may have recorded it.
      return lookUp(state, { row: { lastError: describe(error) }, ...ended("unknown", error.message) });
  }
}

/** Settles the verdict with lookup-click, after writing `before` (the report's unknown fate). */
function lookUp(state: OrderState, before: Change = {}): StepOutcome {
  const attemptId = state.newId();
  return {
    kind: "call",
    // Stryker disable next-line StringLiteral: never read, only an attributed order is asked about, with its click id (a redacted one is skipped or has its verdict)
    call: { kind: "lookup-click", attemptId, clickId: state.row.clickId ?? "", deadline: state.row.deadlineAt },
    before: { ...before, attempts: [...(before.attempts ?? []), { start: { id: attemptId, step: "lookup-click" } }] },
  };
}

function afterLookup(state: OrderState, { call, result }: Extract<Answered, { call: { kind: "lookup-click" } }>) {
  const logged = (outcome: string, error: string | null): Change => ({
    attempts: [{ end: { id: call.attemptId, result: outcome, error } }],
  });
  if (result.ok) {
    const click = result.value;
    const hijacked = (state.row.arrivedTag ?? "") !== click.expectedTag;
    return done(
      state,
      {
        expectedTag: click.expectedTag,
        creatorId: click.creatorId,
        verdict: hijacked
          ? "hijacked: the arrived tag is not the click's expected tag (settled by lookup-click)"
          : "matched: the arrived tag is the click's expected tag (settled by lookup-click)",
        recorded: null,
        hijacked,
        verdictSource: "service",
        reportConfirmed: false,
        lastError: null,
      },
      logged("ok", null),
    );
  }
  const error = result.error;
  switch (error.kind) {
    case "destination":
      return stop({
        to: "park",
        reason: `the service URL cannot be used: ${error.message}`,
        change: logged("error", error.message),
      });
    case "credentials":
      return stop({
        to: "park",
        reason: KEY_REJECTED,
        change: { ...logged("credentials", error.message), credentialsRejected: true },
      });
    case "expired":
      return landingOr(state, logged("expired", error.message), {
        to: "end",
        outcome: "expired",
        reason:
          "the service may have recorded the order, but its answer was lost and the click can no longer be looked up",
        change: logged("expired", error.message),
      });
    default:
      return retry(state, describe(error), logged("retryable", error.message));
  }
}

/**
 * Tries again later, within the click's life. When no retry fits before that life ends, the
 * landing record may still decide (the service could only answer 404 after it); otherwise, or
 * when the attempts are used up, the order ends as failed, with the last error.
 */
function retry(state: OrderState, error: string, change: Change): StepOutcome {
  const next = nextAttempt(state.attempts, state.now, state.row.deadlineAt, state.random);
  if ("retryAt" in next) return stop({ to: "retry", at: next.retryAt, error, change });
  const failed = {
    to: "end" as const,
    outcome: "failed" as const,
    reason: `${next.giveUp} (last error: ${error})`,
    change,
  };
  return next.giveUp === GAVE_UP_ON_LIFETIME ? landingOr(state, change, failed) : stop(failed);
}

/** The landing record decides, with `change`; without one, `otherwise`. */
function landingOr(state: OrderState, change: Change, otherwise: Parameters<typeof stop>[0]): StepOutcome {
  if (!state.row.clickId) return stop(otherwise);
  return { kind: "call", call: { kind: "landing-record", clickId: state.row.clickId, change, otherwise } };
}

/** The verdict from the click as lookup-click learned it when the shopper landed, exactly as the service would give it. */
function fromLanding(state: OrderState, record: ClickRecord | null, change: Change): StepOutcome | null {
  if (!record || record.state !== "known" || !record.expectedTag) return null;
  // Stryker disable next-line StringLiteral: the expected tag is not empty (checked above), so a stripped tag is a hijack whatever non-tag stands for it
  const hijacked = (state.row.arrivedTag ?? "") !== record.expectedTag;
  const data: Partial<Verification> = {
    ...change.row,
    expectedTag: record.expectedTag,
    creatorId: record.creatorId,
    verdict: hijacked
      ? "hijacked: the arrived tag is not the expected tag the click had when the shopper landed"
      : "matched: the arrived tag is the expected tag the click had when the shopper landed",
    recorded: false,
    hijacked,
    verdictSource: "landing",
    lastError: null,
  };
  const { row: _written, ...rest } = change;
  return done(state, data, rest);
}

function describe(error: ClickServiceError): string {
  return `${error.kind}: ${error.message}`;
}
