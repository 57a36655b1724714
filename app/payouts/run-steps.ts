import type { BatchDetails, PaypalFailure, PaypalResult } from "../paypal/client.server";

// A payout run's decisions, as values (decision 050): what the job calls next and what it writes,
// from the run as stored and PayPal's answer. Nothing here reads a database or calls out; the job
// (run-job.server.ts) makes the calls and run-apply.server.ts writes what is decided.
//
//   intent   --create batch: accepted, or a duplicate naming the batch-->   sent
//   intent   --PayPal refused it (4xx, credentials): nothing was paid-->    refused (lines payable again)
//   intent | unknown --5xx, timeout, connection after sending-->            unknown (asked again,
//             with the same sender_batch_id: PayPal pays a batch id once, and a duplicate names it)
//   unknown  --a refusal, or a duplicate naming no batch, or too old to ask-->  check (parked:
//             the merchant looks the batch up in PayPal; its lines stay out of every payout)
//   sent     --every item paid or bounced-->                               settled
//
// An item (one Payout, its sender_item_id) is waiting, paid or bounced. Paid is final but for a
// bounce after it (RETURNED, REFUNDED, REVERSED); bounced is final. A status older than what is
// known (a webhook reordered or sent twice) changes nothing.

export const RUN_STATES = ["intent", "unknown", "sent", "check", "settled", "refused"] as const;
export type RunState = (typeof RUN_STATES)[number];

export type ItemOutcome = "waiting" | "paid" | "bounced";

/** PayPal's transaction_status values that end an item: SUCCESS pays it, these give the money back. */
export const BOUNCED_STATUSES = ["FAILED", "RETURNED", "BLOCKED", "REFUNDED", "REVERSED"] as const;

export function outcomeOf(status: string): ItemOutcome {
  if (status === "SUCCESS") return "paid";
  return (BOUNCED_STATUSES as readonly string[]).includes(status) ? "bounced" : "waiting";
}

export interface LineView {
  payoutId: string;
  providerItemId: string | null;
  providerStatus: string | null;
  outcome: ItemOutcome;
}

export interface RunView {
  id: string;
  state: RunState;
  providerBatchId: string | null;
  createdAt: Date;
  sentAt: Date | null;
  lines: LineView[];
}

export interface ItemChange {
  payoutId: string;
  providerItemId: string | null;
  status: string;
  /** settle: its records become paid; bounce: they go back to payable; none: the status only. */
  move: "none" | "settle" | "bounce";
}

export interface RunChange {
  run: {
    state?: RunState;
    providerBatchId?: string;
    batchStatus?: string;
    lastError?: string | null;
    sentAt?: Date;
    settledAt?: Date;
  };
  items: ItemChange[];
  /** The run was refused before anything could be paid: every line's records back to payable. */
  release: boolean;
}

export type RunCall = { call: "create" } | { call: "details"; batchId: string };

export type RunStop =
  | { to: "finish" }
  | { to: "retry"; error: string }
  | { to: "defer"; at: Date; reason: string }
  | { to: "park"; error: string };

export type RunStep = { change: RunChange; next: RunCall | RunStop };

/** PayPal refuses a sender_batch_id used in the last 30 days; past 25 the app asks no more. */
export const ASK_AGAIN_FOR_MS = 25 * 86_400_000;

const NO_CHANGE: RunChange = { run: {}, items: [], release: false };

/** Where a claimed run starts. */
export function begin(run: RunView, now: Date): RunStep {
  if (run.state === "settled" || run.state === "refused") return { change: NO_CHANGE, next: { to: "finish" } };
  if (run.providerBatchId) return { change: NO_CHANGE, next: { call: "details", batchId: run.providerBatchId } };
  if (run.state === "unknown" && now.getTime() - run.createdAt.getTime() > ASK_AGAIN_FOR_MS)
    return parked(`PayPal's answer to batch ${run.id} was lost and it is too late to ask again`);
  if (run.state === "check") return { change: NO_CHANGE, next: { to: "park", error: "waiting for the merchant" } };
  return { change: NO_CHANGE, next: { call: "create" } };
}

function parked(error: string): RunStep {
  return { change: { ...NO_CHANGE, run: { state: "check", lastError: error } }, next: { to: "park", error } };
}

/** After POST /v1/payments/payouts. */
export function afterCreate(run: RunView, answer: PaypalResult<BatchDetails>, now: Date): RunStep {
  if (answer.ok) return sent(answer.value.batchId, answer.value.batchStatus, now);
  const failure = answer.failure;
  if (failure.kind === "duplicate")
    return failure.batchId
      ? sent(failure.batchId, undefined, now)
      : parked(`PayPal says batch ${run.id} exists but did not name it: look it up in PayPal`);
  if (failure.kind === "throttled") return waitFor(failure, now);
  if (failure.kind === "unavailable")
    return {
      change: { ...NO_CHANGE, run: { state: failure.sent ? "unknown" : run.state, lastError: failure.message } },
      next: { to: "retry", error: failure.message },
    };
  // A refusal proves this attempt paid nothing; only a run no earlier attempt may have reached
  // PayPal with can give its lines back.
  if (run.state === "intent")
    return {
      change: { run: { state: "refused", lastError: failure.message }, items: [], release: true },
      next: { to: "finish" },
    };
  return parked(`PayPal refused batch ${run.id} after an earlier answer was lost (${failure.message})`);
}

function sent(batchId: string, batchStatus: string | undefined, now: Date): RunStep {
  return {
    change: {
      ...NO_CHANGE,
      run: { state: "sent", providerBatchId: batchId, batchStatus, sentAt: now, lastError: null },
    },
    next: { call: "details", batchId },
  };
}

function waitFor(failure: Extract<PaypalFailure, { kind: "throttled" }>, now: Date): RunStep {
  return {
    change: NO_CHANGE,
    next: { to: "defer", at: new Date(now.getTime() + failure.retryAfterMs), reason: "PayPal's rate limit" },
  };
}

/** What one status PayPal reported for a line changes; null when it is not news. */
export function nextItem(line: LineView, status: string, providerItemId: string | null): ItemChange | null {
  if (line.outcome === "bounced") return null;
  const incoming = outcomeOf(status);
  const itemId = providerItemId ?? line.providerItemId;
  if (line.outcome === "paid")
    return incoming === "bounced" ? { payoutId: line.payoutId, providerItemId: itemId, status, move: "bounce" } : null;
  if (incoming === "waiting" && status === line.providerStatus && itemId === line.providerItemId) return null;
  const move = incoming === "paid" ? "settle" : incoming === "bounced" ? "bounce" : "none";
  return { payoutId: line.payoutId, providerItemId: itemId, status, move };
}

/** The lines as they stand once `changes` are applied. */
export function applied(lines: LineView[], changes: ItemChange[]): LineView[] {
  return lines.map((line) => {
    const change = [...changes].reverse().find((c) => c.payoutId === line.payoutId);
    if (!change) return line;
    const outcome = change.move === "settle" ? "paid" : change.move === "bounce" ? "bounced" : line.outcome;
    return { ...line, providerItemId: change.providerItemId, providerStatus: change.status, outcome };
  });
}

/** Statuses reported one after another (webhooks, then the batch's details), each against the line as the last left it. */
export function itemChanges(
  lines: LineView[],
  reports: { senderItemId: string; status: string; itemId: string | null }[],
) {
  const changes: ItemChange[] = [];
  let now = lines;
  for (const report of reports) {
    const line = now.find((l) => l.payoutId === report.senderItemId);
    const change = line ? nextItem(line, report.status, report.itemId) : null;
    if (!change) continue;
    changes.push(change);
    now = applied(now, [change]);
  }
  return { changes, lines: now };
}

/** After GET /v1/payments/payouts/{id}: each item's news, and whether the run is over. */
export function afterDetails(run: RunView, answer: PaypalResult<BatchDetails>, now: Date): RunStep {
  if (!answer.ok) {
    if (answer.failure.kind === "throttled") return waitFor(answer.failure, now);
    return { change: NO_CHANGE, next: { to: "retry", error: answer.failure.message } };
  }
  const { batchStatus, items } = answer.value;
  // A denied batch paid nobody: its lines still waiting are given back.
  const denied = batchStatus === "DENIED" || batchStatus === "CANCELED";
  const reports: { senderItemId: string; status: string; itemId: string | null }[] = items.map((i) => ({
    senderItemId: i.senderItemId,
    status: i.transactionStatus,
    itemId: i.payoutItemId,
  }));
  if (denied)
    for (const line of run.lines)
      if (!items.some((i) => i.senderItemId === line.payoutId))
        reports.push({ senderItemId: line.payoutId, status: "FAILED", itemId: null });
  const { changes, lines } = itemChanges(run.lines, reports);
  const over = lines.every((line) => line.outcome !== "waiting");
  return {
    change: { run: { batchStatus, ...(over && { state: "settled", settledAt: now }) }, items: changes, release: false },
    next: over
      ? { to: "finish" }
      : { to: "defer", at: nextLook(run.sentAt ?? now, now), reason: "items still in progress" },
  };
}

/** When to read the batch again: often at first, then hourly, then every six hours (an unclaimed item waits 30 days). */
export function nextLook(sentAt: Date, now: Date): Date {
  const age = now.getTime() - sentAt.getTime();
  const wait = age < 10 * 60_000 ? 30_000 : age < 3_600_000 ? 5 * 60_000 : age < 86_400_000 ? 3_600_000 : 6 * 3_600_000;
  return new Date(now.getTime() + wait);
}
