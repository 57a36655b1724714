import type { Verification } from "@prisma/client";
import { describe, expect, it } from "vitest";
import type { OrderWitnesses } from "../../app/attribution/witnesses";
import { attributionStep } from "../../app/verification/attribution-step";
import type { OrderState } from "../../app/verification/order-steps";
import { last, MINUTE, misrouted, NOW, SECOND, state } from "../support/order-steps";

// The attribution step's decisions, branch by branch: when it has nothing to do, how it waits for
// the web pixel's checkout report and for Shopify's journey of the order, and what it does when
// the journey cannot be read. Values in, decisions out (tests/support/order-steps.ts).

/** A row attribution has not touched yet. */
const fresh = { captureSource: null, clickId: null, arrivedTag: null } as const;

const noCart = { clickId: null, tag: null, capturedAt: null, tagHistory: [] };

/**
 * The embed off and the pixel's checkout report not in yet: Shopify recorded the visit's landing
 * page with alice's link, and no script's report is bound to the order.
 */
const landedThrough = (over: Partial<OrderWitnesses> = {}): OrderWitnesses => ({
  shopify: { landingSite: { clickId: "clk-9", tag: "alice-20", at: null }, journey: null },
  touches: [],
  pixel: null,
  unbound: [],
  cart: noCart,
  creators: new Map([["clk-9", "cr_alice"]]),
  ...over,
});

/** The pixel's checkout report, bound by the order's checkout token, and the landing it saw before. */
const pixelReported = {
  checkout: [{ clickId: null, tag: null }],
  landings: [{ clickId: "clk-9", tag: "honey-77", seenAt: new Date(NOW.getTime() - 5 * MINUTE) }],
};

/** An order placed `secondsAgo`, with a checkout the pixel can report. */
function placed(secondsAgo: number): OrderState {
  const at = state({ ...fresh, orderCreatedAt: new Date(NOW.getTime() - secondsAgo * SECOND) });
  return { ...at, facts: { ...at.facts!, checkoutToken: "checkout-1001" } };
}

/** Where the step stops after the witnesses (and then `more`) are answered. */
const after = (at: OrderState, witnesses: OrderWitnesses, ...more: unknown[]) =>
  last(attributionStep, at, [witnesses, ...more]);

describe("an order attribution has already settled", () => {
  it("goes on without reading a witness, whether it has its click or only its verdict", () => {
    for (const settled of [{ captureSource: "cart_attributes" }, { ...fresh, hijacked: true }] as const) {
      const at = state(settled);
      expect(attributionStep.begin(at)).toEqual({ kind: "done", row: at.row, hold: {} });
    }
    expect(attributionStep.begin(state(fresh))).toEqual({ kind: "call", call: { kind: "witnesses" } });
  });
});

describe("waiting for the web pixel's checkout report", () => {
  /** The pixel reported a landing with the order's click, from some visitor. */
  const seen = new Set(["clk-9"]);

  it("an order 29 seconds old whose click the pixel saw waits 10 seconds for the report, saying so", () => {
    expect(after(placed(29), landedThrough({ pixelLanded: seen }))).toEqual({
      kind: "stop",
      stop: {
        to: "defer",
        at: new Date(NOW.getTime() + 10 * SECOND),
        reason: "waiting for the web pixel's checkout report",
      },
    });
  });

  it("a click the pixel never saw: no report is on its way, and the landing page decides at once", () => {
    for (const pixelLanded of [undefined, new Set<string>(), new Set(["clk-other"])]) {
      expect(after(placed(29), landedThrough({ pixelLanded }))).toMatchObject({
        kind: "done",
        row: { captureSource: "landing_site", clickId: "clk-9", arrivedTag: "alice-20" },
        hold: { row: { captureSource: "landing_site", clickId: "clk-9" } },
      });
    }
  });

  it("the report arrived while the order waited: the pixel's landing decides, a tag swapped after it shows", () => {
    const rechecked = placed(19);
    expect(after(rechecked, landedThrough({ pixel: pixelReported }))).toMatchObject({
      kind: "done",
      row: { captureSource: "pixel", clickId: "clk-9", arrivedTag: "honey-77" },
    });
  });

  it("the wait runs out 30 seconds after the order: decided on its landing page though the pixel saw the click", () => {
    for (const secondsAgo of [30, 31]) {
      expect(after(placed(secondsAgo), landedThrough({ pixelLanded: seen }))).toMatchObject({
        kind: "done",
        row: { captureSource: "landing_site", clickId: "clk-9" },
      });
    }
  });

  it("nothing to wait for: a storefront report bound by the cart, or a checkout the pixel cannot report", () => {
    const touched = landedThrough({ touches: [{ clickId: "clk-9", tag: "alice-20", seenAt: NOW }], pixelLanded: seen });
    expect(after(placed(5), touched)).toMatchObject({ kind: "done", row: { captureSource: "app_proxy" } });
    const noCheckout = placed(5);
    const withoutToken = { ...noCheckout, facts: { ...noCheckout.facts!, checkoutToken: null } };
    expect(after(withoutToken, landedThrough({ pixelLanded: seen }))).toMatchObject({
      kind: "done",
      row: { captureSource: "landing_site" },
    });
  });
});

describe("reading Shopify's journey of the order", () => {
  /** A click only a script reported on a visit whose landing page carried none: the journey can settle it. */
  const scriptOnly: OrderWitnesses = {
    shopify: { landingSite: { clickId: null, tag: null, at: null }, journey: null },
    touches: [{ clickId: "clk-9", tag: "t", seenAt: new Date(NOW.getTime() - MINUTE) }],
    pixel: null,
    unbound: [],
    cart: noCart,
    creators: new Map([["clk-9", "cr_alice"]]),
  };
  const judgedWithoutIt = { kind: "done", row: { clickId: "clk-9", captureSource: "app_proxy" } };
  const contestOf = (outcome: unknown) => JSON.parse((outcome as { row: Verification }).row.contest!);

  it("ready: the click Shopify recorded on the order's first visit decides, with when the visit began", () => {
    const began = new Date(NOW.getTime() - 20 * MINUTE);
    const ready = { ready: true, visits: [{ landingPage: "/?lb_click=clk-9&tag=alice-20", occurredAt: began }] };
    const judged = after(state(fresh), scriptOnly, { ok: true, journey: ready });
    expect(judged).toMatchObject({
      kind: "done",
      row: { clickId: "clk-9", captureSource: "app_proxy", capturedAt: began, contest: null },
    });
    expect(JSON.parse((judged as { row: Verification }).row.witnesses!)).toMatchObject({
      journey: { ready: true, clicks: ["clk-9"] },
    });
  });

  it("not ready yet: comes back in a minute, saying why", () => {
    expect(after(state(fresh), scriptOnly, { ok: true, journey: { ready: false, visits: [] } })).toEqual({
      kind: "stop",
      stop: {
        to: "defer",
        at: new Date(NOW.getTime() + MINUTE),
        reason: "waiting for Shopify to attribute the order's visits",
      },
    });
  });

  it("the shop's API bucket is empty: comes back when it has refilled, with the caller's reason", () => {
    const empty = { ok: false, waitMs: 7 * SECOND, reason: "the shop's Admin API bucket is empty" };
    expect(after(state(fresh), scriptOnly, empty)).toEqual({
      kind: "stop",
      stop: { to: "defer", at: new Date(NOW.getTime() + 7 * SECOND), reason: "the shop's Admin API bucket is empty" },
    });
  });

  it("a read that may work later is retried while attempts are left, saying what failed", () => {
    const failed = { ok: false, retryable: true, message: "HTTP 502" };
    expect(after(state(fresh), scriptOnly, failed)).toEqual({
      kind: "stop",
      // The first attempt's backoff with random() at 0.5: half of 5 seconds.
      stop: { to: "retry", at: new Date(NOW.getTime() + 2_500), error: "read-journey: HTTP 502" },
    });
  });

  it("a read that cannot work, or the last attempt's: judged without the journey, and held for the merchant", () => {
    const lastTry = state(fresh, { attemptsLeft: false });
    for (const [at, failed] of [
      [lastTry, { ok: false, retryable: true, message: "HTTP 502" }],
      [state(fresh), { ok: false, retryable: false, message: "no read_orders scope" }],
    ] as const) {
      const judged = after(at, scriptOnly, failed);
      expect(judged).toMatchObject(judgedWithoutIt);
      expect(contestOf(judged)).toMatchObject({ reason: "journey-not-ready" });
    }
  });
});

describe("an answer the step never asked for", () => {
  it("is refused, naming the call, rather than taken for the journey", () => {
    expect(() => attributionStep.after(state(fresh), misrouted("tag-slot"))).toThrow(
      "attribution asked for no tag-slot",
    );
  });
});
