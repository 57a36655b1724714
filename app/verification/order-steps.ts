import type { Verification } from "@prisma/client";
import type { OrderWitnesses } from "../attribution/witnesses";
import type { CreatorEvidenceClaim } from "../attribution/creator-evidence";
import type { ClickRecord } from "@prisma/client";
import type {
  ClickRecord as ServiceClick,
  ClickServiceResult,
  VerificationResult,
  VerifyClickInput,
} from "../click-service";
import type { CommissionInput } from "../commissions/credit.server";
import type { EditsRead } from "../commissions/order-edits";
import type { ServerSettings } from "../settings/shop-settings.server";
import type { OfflineAdmin } from "../shopify-admin/offline-admin.server";
import type { AdminResult } from "../shopify-admin/admin-client.server";
import type { OrderAmounts, readOrderTagGuardState } from "../shopify-admin/orders.server";
import type { OrderFacts } from "./order-facts";
import type { Outcome } from "./outcomes";

// The vocabulary of one order's verification (verify-order.server.ts). Each step (attribution,
// verdict, tagging, crediting) takes what the run knows and returns a value: a call to make
// (with what to record before it), its work done (with what to write at the run's next write),
// or a stop. The steps never write and never call out; verify-order makes the calls
// (order-calls.server.ts) and the order's run applies every change, fenced by the job's lease
// (order-run.server.ts).

/** What a run writes, as data; order-run.server.ts applies it in one transaction. */
export interface Change {
  /** Fields of the order's row. */
  row?: Partial<Verification>;
  /** Attempt-log entries started or ended, in order. */
  attempts?: AttemptWrite[];
  /** The service refused the shop's key: Settings says so until a new key is saved. */
  credentialsRejected?: boolean;
  /** The order's commission to credit; its pending refunds and cancellation are applied with it. */
  credit?: CommissionInput;
  /**
   * Apply the order's pending refunds, edits and cancellation; `outcome` is said on those that
   * find no commission, `reading` is the order's amounts its edits move the commission to.
   */
  orderEvents?: { outcome: string | null; reading?: EditsRead };
  /** What the order says of each creator it names and did not credit: replaces what an earlier judgement wrote. */
  creatorEvidence?: {
    order: { orderId: string; orderName: string | null; orderAt: Date };
    claims: CreatorEvidenceClaim[];
  };
}

export type AttemptWrite =
  { start: { id: string; step: string } } | { end: { id: string; result: string; error: string | null } };

/** `a` then `b`: b's row fields win, attempt writes keep their order. */
export function merged(a: Change | undefined, b: Change | undefined): Change {
  if (!a) return b ?? {};
  if (!b) return a;
  return {
    ...((a.row || b.row) && { row: { ...a.row, ...b.row } }),
    // Stryker disable next-line ConditionalExpression: an empty attempt list writes nothing, the run loops over no attempt, and a write of nothing with the job's transition settles it as the queue does
    ...((a.attempts || b.attempts) && { attempts: [...(a.attempts ?? []), ...(b.attempts ?? [])] }),
    ...((a.credentialsRejected || b.credentialsRejected) && { credentialsRejected: true }),
    ...((b.credit ?? a.credit) && { credit: b.credit ?? a.credit }),
    ...((b.orderEvents ?? a.orderEvents) && { orderEvents: b.orderEvents ?? a.orderEvents }),
    ...((b.creatorEvidence ?? a.creatorEvidence) && { creatorEvidence: b.creatorEvidence ?? a.creatorEvidence }),
  };
}

/** How this run of the order's job ends. */
export type Stop =
  /** The order has its outcome; the job is done. */
  | { to: "end"; outcome: Outcome; reason: string | null; change?: Change }
  /** The job is done and the order's outcome stands (a decided order's refunds applied). */
  | { to: "finish"; change?: Change }
  /** Tried again at `at`; the attempt counts. */
  | { to: "retry"; at: Date; error: string; change?: Change }
  /** Comes back at `at` (a bucket refilling, Shopify not ready); the attempt is given back. */
  | { to: "defer"; at: Date; reason: string; change?: Change }
  /** Waits for the merchant (a key to fix): outcome "rejected". */
  | { to: "park"; reason: string; change?: Change };

/** What the run knows when a step decides. */
export interface OrderState {
  row: Verification;
  /** What orders/create brought; null once customers/redact emptied it (only an order with its verdict goes on then). */
  facts: OrderFacts | null;
  settings: ServerSettings;
  now: Date;
  /** This run's attempt, counted at claim. */
  attempts: number;
  attemptsLeft: boolean;
  random(): number;
  /** A new attempt-log entry's id. */
  newId(): string;
}

/** The outside calls and reads a step may ask for, and what each gives back. */
export interface Calls {
  /** The witnesses Shopify's data binds to the order (database reads). */
  witnesses: { call: object; result: OrderWitnesses };
  /** Shopify's journey of the order, within the shop's API bucket. */
  journey: {
    call: { witnesses: OrderWitnesses };
    result:
      | {
          ok: true;
          journey: { ready: boolean; visits: { landingPage: string | null; occurredAt: Date | null }[] } | null;
        }
      | { ok: false; waitMs: number; reason: string }
      | { ok: false; retryable: boolean; message: string };
  };
  "verify-click": {
    call: { attemptId: string; request: VerifyClickInput; deadline: Date | null };
    result: ClickServiceResult<VerificationResult>;
  };
  "lookup-click": {
    call: { attemptId: string; clickId: string; deadline: Date | null };
    result: ClickServiceResult<ServiceClick>;
  };
  /** What lookup-click learned of the click when the shopper landed (decision 011). */
  "landing-record": { call: { clickId: string; change: Change; otherwise: Stop }; result: ClickRecord | null };
  /** A time for the tag write in the shop's API bucket: 0, or how long to wait. */
  "tag-slot": { call: object; result: number };
  "tag-access": { call: object; result: OfflineAdmin };
  "tag-state": {
    call: { access: Extract<OfflineAdmin, { ok: true }> };
    result: Awaited<ReturnType<typeof readOrderTagGuardState>>;
  };
  "tag-write": {
    call: { access: Extract<OfflineAdmin, { ok: true }>; attemptId: string };
    result: AdminResult;
  };
  /** Whether a decided order has refunds, edits or a cancellation still to apply; the edits that need its amounts. */
  "pending-events": { call: object; result: boolean | { edits: string[] } };
  /** The order's amounts as they stand after its edits `edits`, within the shop's API bucket (decision 045). */
  "order-amounts": {
    call: { edits: string[] };
    result:
      | { ok: true; amounts: OrderAmounts | null }
      | { ok: false; waitMs: number; reason: string }
      | { ok: false; retryable: boolean; message: string };
  };
}

export type CallKind = keyof Calls;
export type Call = { [K in CallKind]: { kind: K } & Calls[K]["call"] }[CallKind];
/** A call with its answer, handed back to the step that asked for it. */
export type Answered = {
  [K in CallKind]: { call: { kind: K } & Calls[K]["call"]; result: Calls[K]["result"] };
}[CallKind];

/** Calls that leave the process: what the run holds is written before them (no network inside a transaction, decision 025). */
export const OUTSIDE_CALLS: ReadonlySet<CallKind> = new Set<CallKind>([
  "journey",
  "order-amounts",
  "verify-click",
  "lookup-click",
  "tag-access",
  "tag-state",
  "tag-write",
]);

export type StepOutcome =
  /** Make `call`, after writing `before` (with what the run holds). */
  | { kind: "call"; call: Call; before?: Change }
  /** The step's work is done: the row as it now stands, and what to write with the run's next write. */
  | { kind: "done"; row: Verification; hold?: Change }
  | { kind: "stop"; stop: Stop };

/** A step of the order's verification: it begins, and decides again after each call it asked for. */
export interface OrderStep {
  name: string;
  begin(state: OrderState): StepOutcome;
  after(state: OrderState, answered: Answered): StepOutcome;
}

/** The step's work is done with `data` on the row, written with the run's next write. */
export function done(
  state: OrderState,
  data: Partial<Verification> = {},
  extra: Omit<Change, "row"> = {},
): StepOutcome {
  return {
    kind: "done",
    row: { ...state.row, ...data },
    hold: { ...extra, ...(Object.keys(data).length > 0 && { row: data }) },
  };
}

export function stop(value: Stop): StepOutcome {
  return { kind: "stop", stop: value };
}
