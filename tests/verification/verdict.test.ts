import type { ClickRecord } from "@prisma/client";
import { describe, expect, it } from "vitest";
import { MAX_ATTEMPTS } from "../../app/queue/job-states";
import type { OrderState, StepOutcome } from "../../app/verification/order-steps";
import { verdictStep } from "../../app/verification/verdict";
import { failure, last, MINUTE, misrouted, NOW, play, state } from "../support/order-steps";

// The verdict step's decisions, branch by branch: what goes in the report, what each of the
// service's refusals does to the order (the words the merchant reads, the attempt log, the
// shop's flag), how lookup-click and the landing record settle a lost answer, and when the order
// ends failed. Values in, decisions out (tests/support/order-steps.ts).

const KEY_REJECTED =
  "the Click Verification Service rejected the API key; fix it in Settings and the order is retried while its click is alive";

/** The attempt id of the call the step asked for. */
const attemptOf = (outcome: StepOutcome | undefined) => (outcome as { call: { attemptId: string } }).call.attemptId;

/** The report sent, and where the step stops after the service's answer. */
function reported(at: OrderState, answer: unknown) {
  const [report, outcome] = play(verdictStep, at, [answer]);
  return { id: attemptOf(report), outcome };
}

/** A report already marked started: the step settles it with lookup-click. */
const marked = (fields: Parameters<typeof state>[0] = {}) => state({ reportStartedAt: NOW, ...fields });

function lookedUp(at: OrderState, answer: unknown) {
  const [lookup, outcome] = play(verdictStep, at, [answer]);
  return { id: attemptOf(lookup), outcome };
}

const click = (expectedTag: string) => ({ ok: true, value: { expectedTag, creatorId: "cr_alice" } });

const landing = (fields: Partial<ClickRecord>) =>
  ({ state: "known", expectedTag: "alice-20", creatorId: "cr_alice", ...fields }) as ClickRecord;

describe("the report", () => {
  it("sends the order's click, its arrived tag (a stripped one as empty), the order and its value", () => {
    const [report] = play(verdictStep, state({ arrivedTag: null }), []);
    expect(report).toMatchObject({
      kind: "call",
      call: {
        kind: "verify-click",
        request: { clickId: "clk-1", arrivedTag: "", conversion: true, orderId: "1001", orderValue: "100.00" },
        deadline: new Date(NOW.getTime() + 55 * MINUTE),
      },
    });
  });
});

describe("the service refusing the report", () => {
  /** Nothing was recorded: the report's mark is cleared, and its attempt ends as `result`. */
  const unsent = (id: string, result: string) => ({
    row: { reportStartedAt: null },
    attempts: [{ end: { id, result, error: "went wrong" } }],
  });

  it("a service URL the app may not call parks the order for the merchant, saying why, the shop's key untouched", () => {
    const { id, outcome } = reported(state(), failure({ kind: "destination" }));
    expect(outcome).toEqual({
      kind: "stop",
      stop: { to: "park", reason: "the service URL cannot be used: went wrong", change: unsent(id, "error") },
    });
  });

  it("a refused key parks the order, logs the attempt as refused and flags the shop's key", () => {
    const { id, outcome } = reported(state(), failure({ kind: "credentials" }));
    expect(outcome).toEqual({
      kind: "stop",
      stop: { to: "park", reason: KEY_REJECTED, change: { ...unsent(id, "credentials"), credentialsRejected: true } },
    });
  });

  it("a request the service refuses ends the order failed, saying what it refused, for either refusal", () => {
    for (const kind of ["bad-request", "invalid-input"] as const) {
      const { id, outcome } = reported(state(), failure({ kind }));
      expect(outcome).toEqual({
        kind: "stop",
        stop: {
          to: "end",
          outcome: "failed",
          reason: "the service refused the request: went wrong",
          change: unsent(id, "error"),
        },
      });
    }
  });

  it("a click the service does not know: the landing record decides, and without one the order expired", () => {
    const at = state();
    const [report, asked, ended] = play(verdictStep, at, [failure({ kind: "expired" }), null]);
    const expired = unsent(attemptOf(report), "expired");
    expect(asked).toEqual({
      kind: "call",
      call: {
        kind: "landing-record",
        clickId: "clk-1",
        change: expired,
        otherwise: {
          to: "end",
          outcome: "expired",
          reason: "the click is unknown to the service or past its one-hour life",
          change: expired,
        },
      },
    });
    expect(ended).toEqual({ kind: "stop", stop: (asked as { call: { otherwise: unknown } }).call.otherwise });
  });
});

describe("lookup-click settling a lost answer", () => {
  const logged = (id: string, result: string) => ({ attempts: [{ end: { id, result, error: "went wrong" } }] });

  it("compares the click's expected tag with the arrived one, and says it was settled by lookup-click", () => {
    expect(lookedUp(marked(), click("alice-20")).outcome).toMatchObject({
      kind: "done",
      row: {
        hijacked: false,
        verdict: "matched: the arrived tag is the click's expected tag (settled by lookup-click)",
        recorded: null,
      },
    });
    expect(lookedUp(marked(), click("bob-10")).outcome).toMatchObject({
      kind: "done",
      row: {
        hijacked: true,
        verdict: "hijacked: the arrived tag is not the click's expected tag (settled by lookup-click)",
      },
    });
  });

  it("a stripped tag counts as the empty tag the report sends: a hijack of any tag, matching only an empty one", () => {
    expect(lookedUp(marked({ arrivedTag: null }), click("alice-20")).outcome).toMatchObject({
      row: { hijacked: true },
    });
    expect(lookedUp(marked({ arrivedTag: null }), click("")).outcome).toMatchObject({ row: { hijacked: false } });
  });

  it("a service URL the app may not call parks the order, saying why, the shop's key untouched", () => {
    const { id, outcome } = lookedUp(marked(), failure({ kind: "destination" }));
    expect(outcome).toEqual({
      kind: "stop",
      stop: { to: "park", reason: "the service URL cannot be used: went wrong", change: logged(id, "error") },
    });
  });

  it("a refused key parks the order and flags the shop's key", () => {
    const { id, outcome } = lookedUp(marked(), failure({ kind: "credentials" }));
    expect(outcome).toEqual({
      kind: "stop",
      stop: { to: "park", reason: KEY_REJECTED, change: { ...logged(id, "credentials"), credentialsRejected: true } },
    });
  });

  it("a click the service forgot: the landing record decides, else the order expired with its answer lost", () => {
    const [lookup, asked, ended] = play(verdictStep, marked(), [failure({ kind: "expired" }), null]);
    const expired = logged(attemptOf(lookup), "expired");
    expect(asked).toEqual({
      kind: "call",
      call: {
        kind: "landing-record",
        clickId: "clk-1",
        change: expired,
        otherwise: {
          to: "end",
          outcome: "expired",
          reason:
            "the service may have recorded the order, but its answer was lost and the click can no longer be looked up",
          change: expired,
        },
      },
    });
    expect(ended).toEqual({ kind: "stop", stop: (asked as { call: { otherwise: unknown } }).call.otherwise });
  });
});

describe("the landing record deciding", () => {
  const afterExpiry = (at: OrderState, record: ClickRecord | null) =>
    last(verdictStep, at, [failure({ kind: "expired" }), record]);

  it("decides as the service would, from the expected tag the click had when the shopper landed", () => {
    expect(afterExpiry(state(), landing({}))).toMatchObject({
      kind: "done",
      row: {
        hijacked: false,
        verdict: "matched: the arrived tag is the expected tag the click had when the shopper landed",
        verdictSource: "landing",
        recorded: false,
      },
    });
    expect(afterExpiry(state({ arrivedTag: "honey-77" }), landing({}))).toMatchObject({
      kind: "done",
      row: {
        hijacked: true,
        verdict: "hijacked: the arrived tag is not the expected tag the click had when the shopper landed",
        recorded: false,
      },
    });
  });

  it("a record of a click the service did not know, or one without an expected tag, decides nothing", () => {
    for (const record of [landing({ state: "unknown" }), landing({ state: "pending" }), landing({ expectedTag: null })])
      expect(afterExpiry(state(), record)).toMatchObject({ kind: "stop", stop: { to: "end", outcome: "expired" } });
  });
});

describe("retrying", () => {
  it("a lookup that failed is retried within the click's life; with the attempts used up the order failed", () => {
    expect(lookedUp(marked(), failure({ kind: "timeout" } as never)).outcome).toMatchObject({
      kind: "stop",
      stop: { to: "retry", at: new Date(NOW.getTime() + 2_500), error: "timeout: went wrong" },
    });
    // The click is alive long after: the landing record cannot decide what the service still could.
    const lastTry = marked({ deadlineAt: new Date(NOW.getTime() + 55 * MINUTE) });
    const { id, outcome } = lookedUp({ ...lastTry, attempts: MAX_ATTEMPTS }, failure({ kind: "timeout" } as never));
    expect(outcome).toEqual({
      kind: "stop",
      stop: {
        to: "end",
        outcome: "failed",
        reason: `gave up after ${MAX_ATTEMPTS} attempts (last error: timeout: went wrong)`,
        change: { attempts: [{ end: { id, result: "retryable", error: "went wrong" } }] },
      },
    });
  });
});

describe("an answer the step never asked for", () => {
  it("is refused, naming the call", () => {
    expect(() => verdictStep.after(state(), misrouted("tag-slot"))).toThrow("the verdict asked for no tag-slot");
  });
});
