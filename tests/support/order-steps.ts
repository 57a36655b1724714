import type { Verification } from "@prisma/client";
import type { ClickServiceError } from "../../app/click-service";
import type { ServerSettings } from "../../app/settings/shop-settings.server";
import type { Answered, OrderState, OrderStep, StepOutcome } from "../../app/verification/order-steps";

// The order's steps played on their own (tests/verification/order-steps.test.ts and the suites
// named after each step): a row, what the run knows, and a step's calls answered in turn.

export const NOW = new Date("2026-11-27T12:00:00.000Z");
export const SECOND = 1_000;
export const MINUTE = 60_000;

/** An order's row as attribution leaves it: captured, not yet reported. */
export function row(fields: Partial<Verification> = {}): Verification {
  return {
    id: "v1",
    shop: "steps.myshopify.com",
    orderId: "1001",
    orderGid: "gid://shopify/Order/1001",
    orderName: "#1001",
    orderCreatedAt: new Date(NOW.getTime() - MINUTE),
    outcome: null,
    reason: null,
    captureSource: "cart_attributes",
    clickId: "clk-1",
    arrivedTag: "alice-20",
    capturedAt: new Date(NOW.getTime() - 5 * MINUTE),
    orderValue: "100.00",
    orderValueBasis: "subtotal_after_discounts",
    currency: "USD",
    deadlineAt: new Date(NOW.getTime() + 55 * MINUTE),
    reportStartedAt: null,
    reportConfirmed: null,
    expectedTag: null,
    creatorId: null,
    verdict: null,
    verdictSource: null,
    tampered: false,
    tamperEvidence: null,
    witnesses: null,
    contest: null,
    hijacked: null,
    recorded: null,
    tagStartedAt: null,
    taggedAt: null,
    evidenceAt: null,
    lastError: null,
    orderFacts: "{}",
    networkSource: null,
    createdAt: NOW,
    updatedAt: NOW,
    completedAt: null,
    ...fields,
  };
}

export const settings = {
  hijackTag: "affiliate-hijacked",
  tagParams: ["tag"],
  orderValueBasis: "subtotal_after_discounts",
  commissionRate: "10",
  creatorRates: { cr_bob: "20" },
  holdDays: 30,
} as unknown as ServerSettings;

let ids = 0;
export function state(fields: Partial<Verification> = {}, over: Partial<OrderState> = {}): OrderState {
  return {
    row: row(fields),
    facts: {
      id: "1001",
      gid: "gid://shopify/Order/1001",
      name: "#1001",
      createdAt: NOW.toISOString(),
      currency: "USD",
      amounts: { subtotal_after_discounts: "100.00" },
      cartAttributes: [],
      landingSite: null,
      cartToken: null,
      checkoutToken: null,
      discountCodes: [],
    },
    settings,
    now: NOW,
    attempts: 1,
    attemptsLeft: true,
    random: () => 0.5,
    newId: () => `attempt-${++ids}`,
    ...over,
  };
}

/** The click service's failure of `kind`, saying "went wrong" unless told. */
export const failure = (error: Partial<ClickServiceError> & { kind: ClickServiceError["kind"] }) =>
  ({ ok: false, error: { message: "went wrong", ...error } as ClickServiceError }) as const;

/** Follows a step's calls with the answers given, in order, and returns where it stops. */
export function play(step: OrderStep, at: OrderState, answers: unknown[]): StepOutcome[] {
  const seen: StepOutcome[] = [];
  let outcome = step.begin(at);
  seen.push(outcome);
  for (const result of answers) {
    if (outcome.kind !== "call") throw new Error(`no call to answer: ${outcome.kind}`);
    outcome = step.after(at, { call: outcome.call, result } as Answered);
    seen.push(outcome);
  }
  return seen;
}

/** The step's last decision after `answers`. */
export function last(step: OrderStep, at: OrderState, answers: unknown[]): StepOutcome {
  return play(step, at, answers).at(-1)!;
}

/** An answer to a call the step never asked for (verify-order hands back only its own). */
export function misrouted(kind: "tag-slot" | "pending-events" | "witnesses"): Answered {
  return { call: { kind }, result: kind === "tag-slot" ? 0 : false } as Answered;
}
