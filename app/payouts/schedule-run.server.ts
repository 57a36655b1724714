import { Prisma, type PayoutSchedulePeriod } from "@prisma/client";
import { creatorProfiles } from "../commissions/creator-profiles.server";
import { payableBalances } from "../commissions/payable-balances.server";
import { isUniqueViolation } from "../database/db.server";
import { insertRows, rowsOf, sql, type Sql, updateWhere } from "../database/sql.server";
import { PayoutSchedulePeriod as PeriodTable } from "../database/tables";
import { logger } from "../platform/logger.server";
import type { JobHandler } from "../queue/runner.server";
import { shopZone } from "../shop-profile/shop-profile.server";
import { formatMoney, type MoneyText } from "../units/money";
import { methodOf } from "./methods";
import { payoutSettings } from "./payout-settings.server";
import { startPaypalRun } from "./run-intent.server";
import { lastDue, tick, type Period } from "./schedule-periods";
import { planRun, type Plan } from "./schedule-plan";
import { scheduleOf, type Schedule } from "./schedule-settings.server";

// The one place a payout schedule's decisions are applied (schedule-periods.ts decides when,
// schedule-plan.ts whom). A period is written once: its row's key is the shop and the period, and
// it is inserted in the same transaction as the PayPal run's intent (run-intent.server.ts), whose
// idempotency key is the period's too. Two instances ticking at once, or a retry after a crash,
// find the period written and pay nothing again. The job "payout-schedule" (one per shop, its
// subject the shop) ticks at each period's time and defers itself to the next.

/** The PayPal run's idempotency key for a period. */
export const periodRunKey = (period: string) => `schedule:${period}`;

export interface PeriodSummary {
  pay: { creatorId: string; currency: string; amountMinor: string }[];
  byHand: { creatorId: string; currency: string; amountMinor: string }[];
  excluded: { creatorId: string; currency: string; amountMinor: string; reason: string }[];
}

function summaryOf(plan: Plan): PeriodSummary {
  const line = ({
    creatorId,
    currency,
    amountMinor,
  }: {
    creatorId: string;
    currency: string;
    amountMinor: string;
  }) => ({
    creatorId,
    currency,
    amountMinor,
  });
  return {
    pay: plan.pay.map(line),
    byHand: plan.byHand.map(line),
    excluded: plan.excluded.map((e) => ({ ...line(e), reason: e.reason })),
  };
}

/** Who a run of the schedule would pay now, and who not and why (the preview is this too). */
export async function schedulePlan(shop: string, schedule: Schedule, now: Date, money: MoneyText = formatMoney) {
  const [balances, settings] = await Promise.all([payableBalances(shop, money, now), payoutSettings(shop)]);
  const profiles = await creatorProfiles(
    shop,
    balances.map((b) => b.creatorId),
  );
  return planRun(
    balances,
    {
      currency: schedule.currency,
      minimumMinor: schedule.minimumMinor,
      methodOf: (creatorId) => methodOf(creatorId, settings.creatorMethods, settings.defaultMethod),
      paypalReady: settings.paypal.saved,
      hasEmail: (creatorId) => Boolean(profiles.get(creatorId)?.email),
    },
    money,
  );
}

export async function periodRow(db: Sql, shop: string, key: string): Promise<PayoutSchedulePeriod | null> {
  const [row] = await rowsOf<PayoutSchedulePeriod>(
    db,
    "PayoutSchedulePeriod",
    Prisma.sql`SELECT * FROM ${PeriodTable} WHERE ${PeriodTable.shop} = ${shop} AND ${PeriodTable.periodKey} = ${key}`,
  );
  return row ?? null;
}

/** The shop's latest period written, for the page. */
export async function latestPeriod(shop: string): Promise<PayoutSchedulePeriod | null> {
  const [row] = await rowsOf<PayoutSchedulePeriod>(
    sql,
    "PayoutSchedulePeriod",
    Prisma.sql`SELECT * FROM ${PeriodTable} WHERE ${PeriodTable.shop} = ${shop} ORDER BY ${PeriodTable.dueAt} DESC LIMIT 1`,
  );
  return row ?? null;
}

export type TickOutcome =
  | { to: "off" }
  | {
      to: "wait";
      until: Date;
      /** The period this tick wrote: null when none was due, or another instance had written it. */
      wrote: { key: string; state: "done" | "failed"; runId: string | null } | null;
    };

const periodInsert = (shop: string, period: Period, now: Date, fields: Partial<PayoutSchedulePeriod>) => (tx: Sql) =>
  insertRows(tx, "PayoutSchedulePeriod", [
    { shop, periodKey: period.key, dueAt: period.dueAt, state: "done", createdAt: now, updatedAt: now, ...fields },
  ]);

/** One tick of the shop's schedule at `now`: pays the period due, once, and says when to look again. */
export async function tickSchedule(shop: string, now: Date, money: MoneyText = formatMoney): Promise<TickOutcome> {
  const [schedule, zone] = await Promise.all([scheduleOf(sql, shop), shopZone(shop)]);
  if (!schedule) return { to: "off" };
  // Only the last period due can be run: its row says whether it was written.
  const last = lastDue(schedule, zone.timeZone, now);
  const written = (await periodRow(sql, shop, last.key)) !== null;
  const decided = tick(schedule, zone.timeZone, now, (key) => key === last.key && written);
  if (decided.to === "off") return decided;
  if (decided.to === "wait") return { to: "wait", until: decided.until, wrote: null };
  const { period } = decided;
  const plan = await schedulePlan(shop, schedule, now, money);
  const summary = JSON.stringify(summaryOf(plan));
  const wait = (wrote: { key: string; state: "done" | "failed"; runId: string | null } | null): TickOutcome => ({
    to: "wait",
    until: decided.next.dueAt,
    wrote,
  });
  try {
    if (plan.pay.length === 0) {
      await sql.transaction(periodInsert(shop, period, now, { summary }));
      return wait({ key: period.key, state: "done", runId: null });
    }
    const started = await startPaypalRun(
      shop,
      {
        idempotencyKey: periodRunKey(period.key),
        balances: plan.pay.map((line) => ({ key: line.key, shownMinor: line.amountMinor })),
      },
      now,
      money,
      periodInsert(shop, period, now, { summary }),
    );
    // Found by its idempotency key: another instance wrote the period, and its run, first.
    if (started.ok && started.duplicate) return wait(null);
    if (started.ok) {
      // The link for the page; were it lost, the run's idempotency key names the period too.
      await updateWhere(
        sql,
        "PayoutSchedulePeriod",
        Prisma.sql`${PeriodTable.shop} = ${shop} AND ${PeriodTable.periodKey} = ${period.key}`,
        { runId: started.runId, updatedAt: now },
      );
      return wait({ key: period.key, state: "done", runId: started.runId });
    }
    const error = Object.values(started.errors).join(" ");
    await sql.transaction(periodInsert(shop, period, now, { summary, state: "failed", lastError: error }));
    logger.warn("payouts.schedule_failed", "a scheduled payout run was refused", { shop, period: period.key, error });
    return wait({ key: period.key, state: "failed", runId: null });
  } catch (error) {
    // Another instance wrote the period first: it is paid once, by that one.
    if (isUniqueViolation(error)) return wait(null);
    throw error;
  }
}

/** The job "payout-schedule": a tick, then a deferral to the next period's time. */
export function payoutScheduleHandler(): JobHandler {
  return {
    async run(ctx) {
      const outcome = await tickSchedule(ctx.job.subject, ctx.now());
      if (outcome.to === "off") return { to: "finish" };
      return { to: "defer", at: outcome.until, reason: "the schedule's next period" };
    },
    // A tick that failed eight times in a row: the schedule waits for the merchant to save it again.
    async giveUp(ctx, reason) {
      logger.error("payouts.schedule_gave_up", "a payout schedule stopped after repeated failures", {
        shop: ctx.job.subject,
        reason,
      });
    },
  };
}
