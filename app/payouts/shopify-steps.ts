import type { ItemOutcome } from "./run-steps";
import type { ShopifyMethod } from "./methods";

// A store credit or gift card payout's decisions, as values (decision 051): each line of the run
// (one Payout: a creator's balance in the shop's currency) goes through these calls, one at a
// time; the job (shopify-run-job.server.ts) makes them and run-apply.server.ts writes what is
// decided, before the next call leaves.
//
//   find the creator's customer by email --none, and the merchant allows it--> create one
//   store credit: read the account's newest transaction (the mark) before the first credit
//   send: `attemptedAt` written first, then storeCreditAccountCredit / giftCardCreate
//       answered with the transaction or gift card  -->  paid (its records paid)
//       refused (user errors, access denied)       -->  bounced (nothing was created: records payable)
//       lost (5xx, timeout, throttled)              -->  still attempted
//   attempted --LOOK_AFTER_MS later--> look: the credits after the mark of exactly the amount /
//       the gift cards carrying the payout's id in their note
//       exactly one --> paid with it;  none, and the listing is whole --> send again;
//       anything else --> parked (`CHECK`): the merchant looks in Shopify; records stay `paying`
//
// Neither mutation takes an idempotency key in the Admin API version the app uses, so nothing is
// sent while an earlier attempt may have landed: the look comes first, every time.

/**
 * How long after an attempt whose answer was lost the app looks: Shopify's listings catch up
 * first. The job passes PAYOUT_LOOK_AFTER_MS (this by default; the chaos run shortens it).
 */
export const LOOK_AFTER_MS = 2 * 60_000;

export const LINE_STATUS = { sending: "SENDING", paid: "PAID", refused: "REFUSED", check: "CHECK" } as const;

export interface ShopifyLine {
  payoutId: string;
  outcome: ItemOutcome;
  status: string | null;
  itemId: string | null;
  customerId: string | null;
  /** Store credit: the account's newest transaction id before the first credit ("" for none). */
  mark: string | null;
  attemptedAt: Date | null;
}

export type ShopifyCall =
  { call: "find-customer" } | { call: "create-customer" } | { call: "read-mark" } | { call: "send" } | { call: "look" };

export type LineStop =
  | { to: "done" }
  | { to: "retry"; error: string }
  | { to: "defer"; at: Date; reason: string }
  | { to: "park"; error: string };

export interface LineChange {
  payoutId: string;
  customerId?: string;
  mark?: string;
  attemptedAt?: Date | null;
  status?: string | null;
  itemId?: string | null;
  /** settle: its records become paid; bounce: back to payable, with `reason`. */
  move: "none" | "settle" | "bounce";
  reason?: string;
}

export type LineStep = { change: LineChange | null; next: ShopifyCall | LineStop };

/** An answer from Shopify: a value, or a failure that may (retryable) or may not be worth asking again. */
export type Answer<T> = { ok: true; value: T } | { ok: false; retryable: boolean; message: string };

/** The line as it stands once `change` is written. */
export function withChange(line: ShopifyLine, change: LineChange | null): ShopifyLine {
  if (!change) return line;
  const outcome: ItemOutcome = change.move === "settle" ? "paid" : change.move === "bounce" ? "bounced" : line.outcome;
  return {
    ...line,
    outcome,
    customerId: change.customerId ?? line.customerId,
    mark: change.mark ?? line.mark,
    attemptedAt: change.attemptedAt === undefined ? line.attemptedAt : change.attemptedAt,
    status: change.status === undefined ? line.status : change.status,
    itemId: change.itemId === undefined ? line.itemId : change.itemId,
  };
}

/** Where a line stands and what it needs next. */
export function lineNext(
  method: ShopifyMethod,
  line: ShopifyLine,
  now: Date,
  lookAfterMs: number = LOOK_AFTER_MS,
): LineStep {
  if (line.outcome !== "waiting") return { change: null, next: { to: "done" } };
  if (line.status === LINE_STATUS.check)
    return { change: null, next: { to: "park", error: "waiting for the merchant" } };
  if (line.attemptedAt) {
    const lookAt = line.attemptedAt.getTime() + lookAfterMs;
    if (now.getTime() < lookAt)
      return { change: null, next: { to: "defer", at: new Date(lookAt), reason: "Shopify's answer was lost" } };
    return { change: null, next: { call: "look" } };
  }
  if (!line.customerId) return { change: null, next: { call: "find-customer" } };
  if (method === "store_credit" && line.mark === null) return { change: null, next: { call: "read-mark" } };
  // The attempt is written before the call leaves: after a crash, the next step looks first.
  return {
    change: { payoutId: line.payoutId, attemptedAt: now, status: LINE_STATUS.sending, move: "none" },
    next: { call: "send" },
  };
}

function then(method: ShopifyMethod, line: ShopifyLine, change: LineChange, now: Date): LineStep {
  const next = lineNext(method, withChange(line, change), now);
  return { change: next.change ? { ...change, ...next.change } : change, next: next.next };
}

function bounce(line: ShopifyLine, reason: string): LineStep {
  return {
    change: { payoutId: line.payoutId, status: LINE_STATUS.refused, move: "bounce", reason },
    next: { to: "done" },
  };
}

/** A failure before anything was sent: asked again, or the line given back (nothing was paid). */
function beforeSending(line: ShopifyLine, failure: { retryable: boolean; message: string }): LineStep {
  return failure.retryable
    ? { change: null, next: { to: "retry", error: failure.message } }
    : bounce(line, failure.message);
}

export function afterFindCustomer(
  method: ShopifyMethod,
  line: ShopifyLine,
  answer: Answer<string[]>,
  reasons: { none: string; several: string },
  createAllowed: boolean,
  now: Date,
): LineStep {
  if (!answer.ok) return beforeSending(line, answer);
  if (answer.value.length > 1) return bounce(line, reasons.several);
  const [customerId] = answer.value;
  if (customerId) return then(method, line, { payoutId: line.payoutId, customerId, move: "none" }, now);
  return createAllowed ? { change: null, next: { call: "create-customer" } } : bounce(line, reasons.none);
}

/** customerCreate: a lost answer is asked about by finding the customer again, as at first. */
export function afterCreateCustomer(
  method: ShopifyMethod,
  line: ShopifyLine,
  answer: Answer<{ id: string } | { refused: string }>,
  now: Date,
): LineStep {
  if (!answer.ok) return beforeSending(line, answer);
  if ("refused" in answer.value) return bounce(line, answer.value.refused);
  return then(method, line, { payoutId: line.payoutId, customerId: answer.value.id, move: "none" }, now);
}

export function afterReadMark(
  method: ShopifyMethod,
  line: ShopifyLine,
  answer: Answer<{ newestId: string | null }>,
  now: Date,
): LineStep {
  if (!answer.ok) return beforeSending(line, answer);
  return then(method, line, { payoutId: line.payoutId, mark: answer.value.newestId ?? "", move: "none" }, now);
}

export function afterSend(line: ShopifyLine, answer: Answer<{ id: string } | { refused: string }>): LineStep {
  if (answer.ok) {
    // Shopify's user errors mean it created nothing; the look before this send found nothing either.
    if ("refused" in answer.value) return bounce(line, answer.value.refused);
    return {
      change: { payoutId: line.payoutId, status: LINE_STATUS.paid, itemId: answer.value.id, move: "settle" },
      next: { to: "done" },
    };
  }
  // Refused before it ran (access denied, a 4xx): nothing was created.
  if (!answer.retryable) return bounce(line, answer.message);
  return { change: null, next: { to: "retry", error: answer.message } };
}

/** What the look found: the payouts this line's attempts made, and whether the listing covered all since the mark. */
export interface Found {
  ids: string[];
  whole: boolean;
}

export function afterLook(method: ShopifyMethod, line: ShopifyLine, answer: Answer<Found>, now: Date): LineStep {
  if (!answer.ok)
    return answer.retryable
      ? { change: null, next: { to: "retry", error: answer.message } }
      : park(line, `Shopify could not be asked whether payout ${line.payoutId} was made (${answer.message})`);
  const { ids, whole } = answer.value;
  if (ids.length === 1)
    return {
      change: { payoutId: line.payoutId, status: LINE_STATUS.paid, itemId: ids[0]!, move: "settle" },
      next: { to: "done" },
    };
  if (ids.length === 0 && whole)
    return then(method, line, { payoutId: line.payoutId, attemptedAt: null, status: null, move: "none" }, now);
  return park(
    line,
    ids.length > 1
      ? `Shopify holds ${ids.length} payouts that may be payout ${line.payoutId}'s: look them up in Shopify`
      : `Shopify's listing since payout ${line.payoutId}'s mark is too long to read whole: look it up in Shopify`,
  );
}

function park(line: ShopifyLine, error: string): LineStep {
  return {
    change: { payoutId: line.payoutId, status: LINE_STATUS.check, move: "none", reason: error },
    next: { to: "park", error },
  };
}

export interface Transaction {
  id: string | null;
  credit: boolean;
  amount: string;
  currency: string;
}

/** Store credit: the credits of exactly `amount` after the mark (the listing newest first). */
export function creditsAfterMark(
  newestFirst: Transaction[],
  mark: string,
  amount: string,
  currency: string,
  pageFull: boolean,
): Found {
  const ids: string[] = [];
  for (const transaction of newestFirst) {
    if (mark && transaction.id === mark) return { ids, whole: true };
    if (transaction.credit && transaction.currency === currency && sameAmount(transaction.amount, amount))
      ids.push(transaction.id ?? "");
  }
  // No mark: the account had no transaction before, so a listing shorter than a page is all of it.
  return { ids, whole: !mark && !pageFull };
}

/** Gift cards: those whose note carries the payout's id (a UUID the app wrote there). */
export function cardsWithMarker(
  cards: { id: string; note?: string | null }[],
  payoutId: string,
  pageFull: boolean,
): Found {
  const ids = cards.filter((card) => card.note?.includes(payoutId)).map((card) => card.id);
  return { ids, whole: !pageFull };
}

/** Two decimal amounts equal as numbers ("15.5" and "15.50"), compared as text, never as floats. */
export function sameAmount(a: string, b: string): boolean {
  return canonical(a) !== null && canonical(a) === canonical(b);
}

function canonical(amount: string): string | null {
  const match = /^(-?)(\d+)(?:\.(\d*))?$/.exec(amount.trim());
  if (!match) return null;
  const whole = match[2]!.replace(/^0+(?=\d)/, "");
  const fraction = (match[3] ?? "").replace(/0+$/, "");
  const zero = /^0$/.test(whole) && !fraction;
  return `${zero ? "" : match[1]}${whole}${fraction ? `.${fraction}` : ""}`;
}
