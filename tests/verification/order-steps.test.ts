import type { ClickRecord, Verification } from "@prisma/client";
import { describe, expect, it } from "vitest";
import type { OrderWitnesses } from "../../app/attribution/witnesses";
import { attributionStep, JOURNEY_WAIT_MS } from "../../app/verification/attribution-step";
import { commissionFor, creditingStep } from "../../app/verification/crediting";
import { evidenceOf, taggingStep } from "../../app/verification/tagging";
import { verdictStep } from "../../app/verification/verdict";
import { failure, MINUTE, misrouted, NOW, play, settings, state } from "../support/order-steps";

// The order's steps on their own: values in, decisions out, no database and no network. The
// pipeline suites (pipeline.test.ts and the rest) play the same steps through the worker; each
// step's own suite (verdict.test.ts, attribution-step.test.ts, crediting.test.ts) pins its
// branches one by one.

describe("the verdict step", () => {
  it("marks the report started before it goes, and keeps the service's verdict for the next write", () => {
    const [call, settled] = play(verdictStep, state(), [
      {
        ok: true,
        value: {
          expectedTag: "alice-20",
          creatorId: "cr_alice",
          verdict: "matched",
          recorded: true,
          isHijacked: false,
        },
      },
    ]);
    expect(call).toMatchObject({
      kind: "call",
      call: { kind: "verify-click", request: { clickId: "clk-1", arrivedTag: "alice-20", orderId: "1001" } },
      before: { row: { reportStartedAt: NOW }, attempts: [{ start: { step: "verify-click" } }] },
    });
    expect(settled).toMatchObject({
      kind: "done",
      row: { hijacked: false, creatorId: "cr_alice", verdictSource: "service", reportConfirmed: true },
      hold: { row: { hijacked: false }, attempts: [{ end: { result: "ok", error: null } }] },
    });
  });

  it("a report that never left may go again: its mark is cleared, and it is retried within the click's life", () => {
    const [, retried] = play(verdictStep, state(), [failure({ kind: "retryable", sent: false } as never)]);
    expect(retried).toMatchObject({
      kind: "stop",
      stop: { to: "retry", change: { row: { reportStartedAt: null }, attempts: [{ end: { result: "not-sent" } }] } },
    });
  });

  it("a refused key parks the order and flags the shop; an unknown fate is settled by lookup-click", () => {
    expect(play(verdictStep, state(), [failure({ kind: "credentials" })])[1]).toMatchObject({
      kind: "stop",
      stop: { to: "park", change: { credentialsRejected: true, row: { reportStartedAt: null } } },
    });
    const [, lookUp, settled] = play(verdictStep, state(), [
      failure({ kind: "timeout" } as never),
      { ok: true, value: { expectedTag: "alice-20", creatorId: "cr_alice" } },
    ]);
    expect(lookUp).toMatchObject({
      kind: "call",
      call: { kind: "lookup-click", clickId: "clk-1" },
      before: {
        row: { lastError: expect.stringMatching(/^timeout/) },
        attempts: [{ end: { result: "unknown" } }, { start: { step: "lookup-click" } }],
      },
    });
    expect(settled).toMatchObject({ kind: "done", row: { hijacked: false, reportConfirmed: false } });
  });

  it("a click the service forgot is decided from the landing record, or the order has expired", () => {
    const known = { state: "known", expectedTag: "alice-20", creatorId: "cr_alice" } as ClickRecord;
    const [, landing, decided] = play(verdictStep, state({ arrivedTag: "honey-77" }), [
      failure({ kind: "expired" }),
      known,
    ]);
    expect(landing).toMatchObject({ kind: "call", call: { kind: "landing-record", clickId: "clk-1" } });
    expect(decided).toMatchObject({
      kind: "done",
      row: { hijacked: true, verdictSource: "landing", creatorId: "cr_alice", reportStartedAt: null },
    });
    expect(play(verdictStep, state(), [failure({ kind: "expired" }), null])[2]).toMatchObject({
      kind: "stop",
      stop: { to: "end", outcome: "expired" },
    });
  });

  it("no retry left before the click's hour ends: the landing record decides, else the order failed", () => {
    const nearTheEnd = state({ deadlineAt: new Date(NOW.getTime() + 500) });
    const [, landing, failed] = play(verdictStep, nearTheEnd, [
      failure({ kind: "retryable", sent: false } as never),
      null,
    ]);
    expect(landing).toMatchObject({ kind: "call", call: { kind: "landing-record" } });
    expect(failed).toMatchObject({ kind: "stop", stop: { to: "end", outcome: "failed" } });
  });

  it("an order with its verdict already goes on without asking the service", () => {
    expect(verdictStep.begin(state({ hijacked: true }))).toMatchObject({ kind: "done" });
  });
});

describe("the tagging step", () => {
  const hijacked = { hijacked: true, expectedTag: "alice-20", creatorId: "cr_alice", verdict: "hijacked" };
  const access = { ok: true, graphql: (() => undefined) as never };

  it("waits for the shop's bucket without a slot, then marks the write before sending it", () => {
    expect(play(taggingStep, state(hijacked), [2_000])[1]).toMatchObject({
      kind: "stop",
      stop: { to: "defer", at: new Date(NOW.getTime() + 2_000) },
    });
    const [, gotAccess, write, tagged] = play(taggingStep, state(hijacked), [0, access, { ok: true }]);
    expect(gotAccess).toMatchObject({ kind: "call", call: { kind: "tag-access" } });
    expect(write).toMatchObject({
      kind: "call",
      call: { kind: "tag-write" },
      before: { row: { tagStartedAt: NOW }, attempts: [{ start: { step: "tag-order" } }] },
    });
    expect(tagged).toMatchObject({
      kind: "done",
      row: { taggedAt: NOW },
      hold: { attempts: [{ end: { result: "ok" } }] },
    });
  });

  it("a write marked before reads the order's tags first, and a tag already there is not sent again", () => {
    const marked = state({ ...hijacked, tagStartedAt: NOW });
    const [, , read, done] = play(taggingStep, marked, [
      0,
      access,
      { ok: true, order: { tags: ["affiliate-hijacked"] } },
    ]);
    expect(read).toMatchObject({ kind: "call", call: { kind: "tag-state" } });
    expect(done).toMatchObject({ kind: "done", row: { taggedAt: NOW } });
  });

  it("throttled: deferred to the refill, its attempt logged; failing for good: the hijack stands untagged", () => {
    expect(
      play(taggingStep, state(hijacked), [
        0,
        access,
        { ok: false, retryable: true, message: "slow", throttledForMs: 4_000 },
      ])[3],
    ).toMatchObject({
      kind: "stop",
      stop: {
        to: "defer",
        at: new Date(NOW.getTime() + 4_000),
        change: { attempts: [{ end: { result: "throttled" } }] },
      },
    });
    const lastTry = state(hijacked, { attemptsLeft: false });
    expect(play(taggingStep, lastTry, [0, { ok: false, retryable: true, message: "no token" }])[2]).toMatchObject({
      kind: "done",
      hold: { row: { lastError: "tag-order: no token", reason: "hijack detected; no token" } },
    });
  });
});

describe("the tagging step, each branch", () => {
  const hijacked = { hijacked: true, expectedTag: "alice-20", creatorId: "cr_alice", verdict: "hijacked" };
  const access = { ok: true, graphql: (() => undefined) as never };

  it("leaves alone an order already tagged, or one that was not hijacked", () => {
    expect(taggingStep.begin(state({ ...hijacked, taggedAt: NOW }))).toMatchObject({ kind: "done" });
    expect(taggingStep.begin(state({ hijacked: false }))).toMatchObject({ kind: "done" });
    expect(taggingStep.begin(state(hijacked))).toMatchObject({ kind: "call", call: { kind: "tag-slot" } });
  });

  it("says why it waits: the rate limit before sending, the empty bucket after a refusal", () => {
    expect(play(taggingStep, state(hijacked), [2_000])[1]).toMatchObject({
      stop: { to: "defer", reason: "waiting for the shop's Admin API rate limit" },
    });
    const throttled = { ok: false, retryable: true, message: "slow", throttledForMs: 4_000 };
    expect(play(taggingStep, state(hijacked), [0, access, throttled])[3]).toMatchObject({
      stop: { to: "defer", reason: "the shop's Admin API bucket is empty" },
    });
  });

  it("a write that failed and may go again is retried, its error and attempt logged", () => {
    expect(play(taggingStep, state(hijacked), [0, access, { ok: false, retryable: true, message: "slow" }])[3]).toEqual(
      {
        kind: "stop",
        stop: {
          to: "retry",
          at: expect.any(Date),
          error: "tag-order: slow",
          change: { attempts: [{ end: { id: expect.any(String), result: "retryable", error: "slow" } }] },
        },
      },
    );
  });

  it("refuses an answer to a call it never made", () => {
    expect(() => taggingStep.after(state(hijacked), misrouted("pending-events"))).toThrow(
      "tagging asked for no pending-events",
    );
  });

  it("writes on the order the service's verdict as it stands, or what the hijack alone says", () => {
    const bare = state({ hijacked: true, expectedTag: null, creatorId: null, verdict: null });
    expect(evidenceOf(bare, settings).evidence).toEqual({
      expectedTag: "",
      arrivedTag: "alice-20",
      creatorId: "",
      verdict: "hijacked",
      decidedAt: NOW.toISOString(),
      clickId: "clk-1",
    });
    const verdict = "hijacked: the arrived tag is not the click's expected tag";
    expect(evidenceOf(state({ ...hijacked, verdict }), settings)).toEqual({
      orderGid: "gid://shopify/Order/1001",
      tag: "affiliate-hijacked",
      evidence: expect.objectContaining({ expectedTag: "alice-20", creatorId: "cr_alice", verdict }),
    });
  });
});

describe("the attribution step", () => {
  const witnesses = (over: Partial<OrderWitnesses> = {}): OrderWitnesses => ({
    shopify: { landingSite: { clickId: null, tag: null, at: null }, journey: null },
    touches: [{ clickId: "clk-9", tag: "t", seenAt: new Date(NOW.getTime() - MINUTE) }],
    pixel: null,
    unbound: [],
    cart: { clickId: null, tag: null, capturedAt: null, tagHistory: [] },
    creators: new Map([["clk-9", "cr_alice"]]),
    ...over,
  });
  const fresh = { captureSource: null, clickId: null, arrivedTag: null };

  it("reads Shopify's journey when the landing page cannot settle it, and waits while it is not ready", () => {
    const young = state(fresh);
    const [, journey, waiting] = play(attributionStep, young, [
      witnesses(),
      { ok: true, journey: { ready: false, visits: [] } },
    ]);
    expect(journey).toMatchObject({ kind: "call", call: { kind: "journey" } });
    expect(waiting).toMatchObject({ kind: "stop", stop: { to: "defer" } });
    // Past the wait: judged without it, and held for the merchant.
    const old = state({ ...fresh, orderCreatedAt: new Date(NOW.getTime() - JOURNEY_WAIT_MS) });
    const [, , judged] = play(attributionStep, old, [witnesses(), { ok: true, journey: { ready: false, visits: [] } }]);
    expect(judged).toMatchObject({ kind: "done", row: { clickId: "clk-9", captureSource: "app_proxy" } });
    expect(JSON.parse((judged as { row: Verification }).row.contest!)).toMatchObject({ reason: "journey-not-ready" });
  });

  it("no click anywhere: the order ends unattributed with what each witness named", () => {
    const [, ended] = play(attributionStep, state(fresh), [
      witnesses({ touches: [], shopify: { landingSite: null, journey: null } }),
    ]);
    expect(ended).toMatchObject({
      kind: "stop",
      stop: { to: "end", outcome: "unattributed", change: { row: { witnesses: expect.any(String) } } },
    });
  });
});

describe("the crediting step", () => {
  it("ends the order with its verdict and one credit at the creator's rate; a contested order's waits in review", () => {
    const plain = creditingStep.begin(state({ hijacked: true, creatorId: "cr_bob", reason: null }));
    expect(plain).toMatchObject({
      kind: "stop",
      stop: {
        to: "end",
        outcome: "hijacked",
        change: { credit: { creatorId: "cr_bob", ratePercent: "20", review: false } },
      },
    });
    expect(commissionFor(state({ hijacked: false, creatorId: "cr_alice", contest: "{}" }))).toMatchObject({
      ratePercent: "10",
      review: true,
      hijacked: false,
    });
  });
});
