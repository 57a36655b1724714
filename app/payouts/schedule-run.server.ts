import { Prisma, type PayoutSchedulePeriod } from "@prisma/client";
import { creatorProfiles } from "../commissions/creator-profiles.server";
import { payableBalances } from "../commissions/payable-balances.server";
import { isUniqueViolation } from "../database/db.server";
import { insertRows, rowsOf, sql, type Sql, updateWhere } from "../database/sql.server";
import { PayoutSchedulePeriod as PeriodTable } from "../database/tables";
import { logger } from "../platform/logger.server";
import type { JobHandler } from "../queue/runner.server";
import { wakeWorker } from "../queue/wake.server";
import { refusalOf } from "../commissions/payouts.server";
import { shopZone } from "../shop-profile/shop-profile.server";
import { formatMoney, type MoneyText } from "../units/money";
import { methodOf } from "./methods";
import { payoutSettings } from "./payout-settings.server";
import { prepareSentRun, writeSentRun, type PreparedRun } from "./run-intent.server";
import { lastDue, tick, type Period } from "./schedule-periods";
import { planRun, type Plan, type SentMethod } from "./schedule-plan";
import { scheduleOf, type Schedule } from "./schedule-settings.server";

// The one place a payout schedule's decisions are applied (schedule-periods.ts decides when,
// schedule-plan.ts whom). A period is written once: its row's key is the shop and the period, and
// it is inserted in the same transaction as the PayPal run's intent (run-intent.server.ts), whose
// idempotency key is the period's too. Two instances ticking at once, or a retry after a crash,
// find the period written and pay nothing again. The job "payout-schedule" (one per shop, its
// subject the shop) ticks at each period's time and defers itself to the next.

/** A period's run's idempotency key, one per method (PayPal's kept as it was before the others). */
export const periodRunKey = (period: string, method: SentMethod = "paypal") =>
  method === "paypal" ? `schedule:${period}` : `schedule:${period}:${method}`;

export interface PeriodSummary {
  pay: { creatorId: string; currency: string; amountMinor: string; method?: SentMethod }[];
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
    pay: plan.pay.map((l) => ({ ...line(l), method: l.method })),
    byHand: plan.byHand.map(line),
    excluded: plan.excluded.map((e) => ({ ...line(e), reason: e.reason })),
  };
}

/** Who a run of the schedule would pay now, and who not and why (the preview is this too). */
export async function schedulePlan(shop: string, schedule: Schedule, now: Date, money: MoneyText = formatMoney) {
  const [balances, settings, zone] = await Promise.all([
    payableBalances(shop, money, now),
    payoutSettings(shop),
    shopZone(shop),
  ]);
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
      shopCurrency: zone.currency,
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

const periodKeyIs = (shop: string, key: string) =>
  Prisma.sql`${PeriodTable.shop} = ${shop} AND ${PeriodTable.periodKey} = ${key}`;

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
  const wait = (wrote: { key: string; state: "done" | "failed"; runId: string | null } | null): TickOutcome => ({
    to: "wait",
    until: decided.next.dueAt,
    wrote,
  });
  const warnRefused = (error: string) =>
    logger.warn("payouts.schedule_failed", "a scheduled payout run was refused", { shop, period: period.key, error });
  try {
    // Every method's run is checked first, then all are written in one transaction with the
    // period: a crash leaves either the period and all its runs, or neither.
    const methods = [...new Set(plan.pay.map((line) => line.method))];
    const prepared: PreparedRun[] = [];
    const refusals: string[] = [];
    for (const method of methods) {
      const checked = await prepareSentRun(shop, method, {
        idempotencyKey: periodRunKey(period.key, method),
        balances: plan.pay
          .filter((line) => line.method === method)
          .map((line) => ({ key: line.key, shownMinor: line.amountMinor })),
      });
      // Found by its idempotency key: another instance wrote the period, and its runs, first.
      if ("found" in checked) return wait(null);
      if ("refused" in checked) refusals.push(Object.values(checked.refused).join(" "));
      else prepared.push(checked.run);
    }
    const failed = methods.length > 0 && prepared.length === 0;
    // What the period paid: the lines of the runs written (a refused method's are not).
    const sent = new Set(prepared.map((run) => run.method));
    const summary = JSON.stringify(summaryOf({ ...plan, pay: plan.pay.filter((line) => sent.has(line.method)) }));
    const runIds = await sql.transaction(async (tx) => {
      await periodInsert(shop, period, now, {
        summary,
        ...(failed && { state: "failed" }),
        ...(refusals.length > 0 && { lastError: refusals.join(" ") }),
      })(tx);
      const ids: string[] = [];
      for (const run of prepared) ids.push((await writeSentRun(tx, shop, run, now, money)).runId);
      // The page's link is the first run; each run's idempotency key names the period too.
      if (ids[0])
        await updateWhere(tx, "PayoutSchedulePeriod", periodKeyIs(shop, period.key), { runId: ids[0], updatedAt: now });
      return ids;
    });
    if (runIds.length > 0) wakeWorker();
    if (refusals.length > 0) warnRefused(refusals.join(" "));
    return wait({ key: period.key, state: failed ? "failed" : "done", runId: runIds[0] ?? null });
  } catch (error) {
    // Another instance wrote the period first: it is paid once, by that one.
    if (isUniqueViolation(error)) return wait(null);
    // A balance changed between the plan and the write: the period is written as failed.
    const refused = refusalOf(error);
    if (!refused) throw error;
    const message = Object.values(refused).join(" ");
    const summary = JSON.stringify(summaryOf({ ...plan, pay: [] }));
    await sql.transaction(periodInsert(shop, period, now, { summary, state: "failed", lastError: message }));
    warnRefused(message);
    return wait({ key: period.key, state: "failed", runId: null });
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
