import { Prisma, type Verification } from "@prisma/client";
import type { ClickServiceClient } from "../click-service";
import { creditCommission } from "../commissions/credit.server";
import { applyOrderEvents, pendingOrderEvents } from "../commissions/order-events.server";
import type { JobContext } from "../queue/runner.server";
import type { Transition } from "../queue/job-states";
import type { OfflineAdmin } from "../shopify-admin/offline-admin.server";
import { flagCredentialsRejected, type ServerSettings } from "../settings/shop-settings.server";
import { insertRows, updateRow, updateWhere, type Sql } from "../database/sql.server";
import { recordCreatorEvidence, settleIfSuspected } from "../creators/evidence.server";
import { merged, type Change, type Stop } from "./order-steps";
import { VerificationAttempt } from "../database/tables";

// The one place an order's verification writes (decision 037): what the steps decided, as data
// (order-steps.ts), applied in fenced transactions, so only the job's lease holder writes. Three
// ways to write: record (now, before a call goes out), hold (with the run's next write: a verdict
// lands with its credit, one transaction instead of two) and stop (the last write, with the
// job's transition).

export interface PipelineDeps {
  clickService(settings: ServerSettings): ClickServiceClient;
  /** The shop's Admin API client, or why there is none and whether waiting can help. */
  shopifyAdmin(shop: string): Promise<OfflineAdmin>;
}

export class OrderRun {
  /** What hold() was given and is not written yet: it goes with this run's next write. */
  #held: Change = {};

  constructor(
    readonly ctx: JobContext,
    private readonly orderId: string,
  ) {}

  /** Whether a write is waiting for the next one. */
  get holding(): boolean {
    return Object.keys(this.#held).length > 0;
  }

  /** Writes `change`, and what is held before it, now. */
  async record(change: Change): Promise<void> {
    const all = this.#take(change);
    await this.ctx.write((tx) => this.#apply(tx, all));
  }

  /** Keeps `change` for the run's next write; should the run fail first, it is lost as an answer lost on the way is. */
  hold(change: Change | undefined): void {
    // Stryker disable next-line ConditionalExpression: a shortcut, merged(held, undefined) is what is held
    if (change) this.#held = merged(this.#held, change);
  }

  /** Ends this run: what is held, `stop.change` and the row's fields for the stop, with the job's transition. */
  async stop(stop: Stop): Promise<Transition> {
    const now = this.ctx.now();
    const row: Partial<Verification> =
      stop.to === "end"
        ? { outcome: stop.outcome, reason: stop.reason, completedAt: now }
        : stop.to === "retry"
          ? { lastError: stop.error }
          : stop.to === "park"
            ? { outcome: "rejected", reason: stop.reason }
            : {};
    const transition: Transition =
      stop.to === "end" || stop.to === "finish"
        ? { to: "finish" }
        : stop.to === "retry"
          ? { to: "retry", at: stop.at, error: stop.error }
          : stop.to === "defer"
            ? { to: "defer", at: stop.at, reason: stop.reason }
            : { to: "park", error: stop.reason };
    // The row is touched (its updatedAt at least) with every stop but a decided order's.
    const all = this.#take(merged(stop.change, stop.to === "finish" ? {} : { row }));
    // Nothing to write: the queue finishes the job itself.
    // Stryker disable next-line ConditionalExpression: a shortcut, a fenced write of nothing with the transition settles the job as the queue does
    if (Object.keys(all).length === 0) return transition;
    await this.ctx.write((tx) => this.#apply(tx, all), transition);
    return transition;
  }

  #take(change: Change): Change {
    const all = merged(this.#held, change);
    this.#held = {};
    return all;
  }

  /** A change, in one transaction: the attempt log, the row, the shop's flag, the credit and the order's events. */
  async #apply(tx: Sql, change: Change): Promise<void> {
    const now = this.ctx.now();
    const { shop, subject: verificationId } = this.ctx.job;
    // Issued together, in this order, and then awaited: on PostgreSQL they share one write and
    // one answer (decision 054); SQLite runs each as it is issued. The order's events are read
    // after its credit is written, and applied after everything else here is.
    const attempts = (change.attempts ?? []).map((write) =>
      "start" in write
        ? insertRows(tx, "VerificationAttempt", [
            {
              id: write.start.id,
              verificationId,
              number: this.ctx.job.attempts,
              step: write.start.step,
              result: "started",
              startedAt: now,
            },
          ])
        : updateWhere(tx, "VerificationAttempt", Prisma.sql`${VerificationAttempt.id} = ${write.end.id}`, {
            result: write.end.result,
            error: write.end.error,
            finishedAt: now,
          }),
    );
    const updated = change.row
      ? updateRow<Verification>(tx, "Verification", verificationId, { ...change.row, updatedAt: now })
      : null;
    const credited = change.credit ? creditCommission(tx, change.credit, now) : null;
    const pending = change.orderEvents ? pendingOrderEvents(tx, shop, this.orderId) : null;
    const [written, row, credit, events] = await Promise.allSettled([
      Promise.all(attempts),
      updated,
      credited,
      pending,
    ]);
    // Redacted while the job ran: said so, not as the writes that then failed on its keys. The
    // fault path retries, and the next run finds nothing to do.
    if (change.row && row.status === "fulfilled" && !row.value) throw new Error("the order's verification is gone");
    for (const result of [written, row, credit, events]) if (result.status === "rejected") throw result.reason;
    if (change.credentialsRejected) await flagCredentialsRejected(shop, now, tx);
    if (change.credit?.review) await settleIfSuspected(tx, shop, verificationId, now);
    if (change.creatorEvidence)
      await recordCreatorEvidence(
        tx,
        { shop, verificationId, ...change.creatorEvidence.order },
        change.creatorEvidence.claims,
        now,
      );
    if (change.orderEvents && events.status === "fulfilled" && events.value)
      await applyOrderEvents(
        tx,
        {
          shop,
          orderId: this.orderId,
          verificationId,
          outcome: change.orderEvents.outcome,
          reading: change.orderEvents.reading,
        },
        events.value,
        now,
      );
  }
}
