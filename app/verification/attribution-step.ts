import { recordedVisit } from "../attribution/click-claims";
import { creatorEvidence } from "../attribution/creator-evidence";
import { judgeWitnesses, type Attribution, type OrderWitnesses } from "../attribution/witnesses";
import { orderValueOn } from "../settings/order-value-basis";
import { done, stop, type Answered, type OrderState, type OrderStep, type StepOutcome } from "./order-steps";
import { clickDeadline, nextAttempt } from "./retry-policy";

// The attribution step (docs/attribution.md): the witnesses Shopify's data binds to the order go
// to the policy (judgeWitnesses); when the policy says Shopify's journey of the order can settle
// what its landing page cannot, the journey is read, waiting a few minutes for Shopify to have
// attributed the order's visits. What it learns is written with the report's start.

/** How long after the order the app waits for Shopify to attribute its visits (the journey's `ready`). */
export const JOURNEY_WAIT_MS = 5 * 60 * 1000;
/** Between two reads of a journey that was not ready. */
const JOURNEY_RECHECK_MS = 60 * 1000;
/**
 * How long after the order the app waits for the web pixel's checkout report when no storefront
 * report reached it yet: Shopify publishes checkout_completed on the thank-you page, about when it
 * sends orders/create, and with the embed off only the pixel's landings, bound by that report,
 * show a tag swapped after landing. The report brings the order forward when it comes.
 */
export const PIXEL_WAIT_MS = 30 * 1000;
const PIXEL_RECHECK_MS = 10 * 1000;

export const attributionStep: OrderStep = {
  // Stryker disable next-line StringLiteral: never read, nothing logs or looks up a step by its name
  name: "attribution",
  begin(state) {
    if (state.row.hijacked !== null || state.row.captureSource !== null) return done(state);
    return { kind: "call", call: { kind: "witnesses" } };
  },
  after(state, answered) {
    if (answered.call.kind === "witnesses") {
      const witnesses = answered.result as OrderWitnesses;
      const judged = judgeWitnesses(witnesses);
      if (judged.kind === "read-journey") return { kind: "call", call: { kind: "journey", witnesses } };
      const clickId = awaitsPixel(state, judged, witnesses);
      // A click the pixel saw land: its checkout report is on its way.
      if (clickId && witnesses.pixelLanded?.has(clickId))
        return stop({
          to: "defer",
          at: new Date(state.now.getTime() + PIXEL_RECHECK_MS),
          reason: "waiting for the web pixel's checkout report",
        });
      return attributed(state, judged, witnesses);
    }
    if (answered.call.kind === "journey")
      return afterJourney(state, answered as Extract<Answered, { call: { kind: "journey" } }>);
    throw new Error(`attribution asked for no ${answered.call.kind}`);
  },
};

function afterJourney(state: OrderState, { call, result }: Extract<Answered, { call: { kind: "journey" } }>) {
  const judge = (journey: { ready: boolean; visits: ReturnType<typeof recordedVisit>[] }) => {
    const witnesses: OrderWitnesses = {
      ...call.witnesses,
      shopify: {
        ...call.witnesses.shopify,
        journey: { ready: journey.ready, visits: journey.visits.flatMap((v) => v ?? []) },
      },
    };
    return attributed(state, judgeWitnesses(witnesses), witnesses);
  };
  const withoutIt = () => judge({ ready: false, visits: [] });
  if (!result.ok) {
    if ("waitMs" in result)
      return stop({ to: "defer", at: new Date(state.now.getTime() + result.waitMs), reason: result.reason });
    if (result.retryable && state.attemptsLeft) {
      const next = nextAttempt(state.attempts, state.now, null, state.random);
      if ("retryAt" in next) return stop({ to: "retry", at: next.retryAt, error: `read-journey: ${result.message}` });
    }
    return withoutIt();
  }
  // Shopify keeps no journey for the order (not an online store order, or gone): none to wait for.
  if (result.journey === null) return withoutIt();
  if (result.journey.ready)
    return judge({
      ready: true,
      visits: result.journey.visits.map((v) => recordedVisit(v.landingPage, state.settings.tagParams, v.occurredAt)),
    });
  if (state.now.getTime() >= state.row.orderCreatedAt.getTime() + JOURNEY_WAIT_MS) return withoutIt();
  return stop({
    to: "defer",
    at: new Date(state.now.getTime() + JOURNEY_RECHECK_MS),
    reason: "waiting for Shopify to attribute the order's visits",
  });
}

/**
 * Whether the order may wait for the web pixel's checkout report: no storefront report and no
 * checkout report is bound to it, and it has a checkout the pixel can report. The witnesses read
 * which clicks the pixel saw land only then (order-calls.server.ts).
 */
export function mayAwaitPixel(
  witnesses: Pick<OrderWitnesses, "touches" | "pixel">,
  checkoutToken: string | null | undefined,
) {
  return witnesses.touches.length === 0 && !witnesses.pixel?.checkout.length && checkoutToken != null;
}

/**
 * The click whose checkout report the order may wait for, if the pixel saw it land: the order was
 * attributed, may await the pixel's report (mayAwaitPixel), and is young. null: nothing to wait for.
 */
function awaitsPixel(state: OrderState, judged: Attribution, witnesses: OrderWitnesses): string | null {
  if (judged.kind !== "attributed") return null;
  const waiting =
    mayAwaitPixel(witnesses, state.facts?.checkoutToken) &&
    state.now.getTime() < state.row.orderCreatedAt.getTime() + PIXEL_WAIT_MS;
  return waiting ? judged.evidence.clickId : null;
}

function attributed(state: OrderState, judged: Attribution, facts: OrderWitnesses): StepOutcome {
  // Unreachable: the policy asks for the journey only while it has not been read.
  // Stryker disable next-line StringLiteral: never thrown, the step waits on the pixel only for an attributed order and judges the journey once read
  if (judged.kind === "read-journey") throw new Error("attribution asked for the journey it was given");
  const witnesses = JSON.stringify(judged.witnesses);
  const claims = creatorEvidence(facts, judged);
  // Written when there is something to say, or to replace what an earlier judgement said.
  const creatorClaims =
    claims.length > 0 || state.row.witnesses !== null
      ? {
          order: { orderId: state.row.orderId, orderName: state.row.orderName, orderAt: state.row.orderCreatedAt },
          claims,
        }
      : undefined;
  if (judged.kind === "unattributed")
    return stop({
      to: "end",
      outcome: "unattributed",
      reason: judged.reason,
      change: { row: { witnesses }, ...(creatorClaims && { creatorEvidence: creatorClaims }) },
    });
  const { evidence, tamper, contest } = judged;
  const orderValue = orderValueOn(state.facts?.amounts ?? {}, state.settings.orderValueBasis);
  return done(
    state,
    {
      captureSource: evidence.source,
      clickId: evidence.clickId,
      arrivedTag: evidence.arrivedTag,
      capturedAt: evidence.capturedAt,
      orderValue: orderValue.value,
      orderValueBasis: orderValue.basis,
      deadlineAt: clickDeadline(evidence.capturedAt, state.row.orderCreatedAt),
      tampered: tamper !== null,
      tamperEvidence: tamper ? JSON.stringify(tamper) : null,
      witnesses,
      contest: contest ? JSON.stringify(contest) : null,
    },
    { creatorEvidence: creatorClaims },
  );
}
