import { typedNumber } from "../i18n/typed-numbers";
import { sql } from "../database/sql.server";
import { shopFormat } from "../shop-profile/shop-profile.server";
import { formatShopTime, localeMoney } from "../units/shop-format";
import { nextDue } from "./schedule-periods";
import { latestPeriod, schedulePlan, type PeriodSummary } from "./schedule-run.server";
import {
  pauseSchedule,
  publicSchedule,
  saveSchedule,
  scheduleOf,
  type SaveScheduleResult,
} from "./schedule-settings.server";

// The Payouts page's schedule card: the schedule as saved, the next run's preview (its time in the
// shop's zone; who it would pay with today's balances, who is to be paid by hand, who is left out
// and why) and the last period run; and the forms that save, pause and resume it.

export async function schedulePart(shop: string, locale: string, now: Date = new Date()) {
  const [schedule, format, last] = await Promise.all([
    scheduleOf(sql, shop),
    shopFormat(shop, locale),
    latestPeriod(shop),
  ]);
  const shown = publicSchedule(schedule, format.currency);
  const plan = schedule ? await schedulePlan(shop, schedule, now, localeMoney(locale)) : null;
  const next = schedule?.enabled ? nextDue(schedule, format.timeZone, now) : null;
  const summary = last ? (JSON.parse(last.summary) as Partial<PeriodSummary>) : null;
  return {
    schedule: shown,
    preview: next && plan ? { period: next.key, time: formatShopTime(next.dueAt, format), ...plan } : null,
    lastRun: last
      ? {
          period: last.periodKey,
          time: formatShopTime(last.dueAt, format),
          state: last.state,
          paid: summary?.pay?.length ?? 0,
          error: last.lastError,
        }
      : null,
  };
}

export type ScheduleActionResult =
  | ({ intent: "schedule" } & SaveScheduleResult)
  | ({ intent: "schedule-pause" } & SaveScheduleResult)
  | ({ intent: "schedule-resume" } & SaveScheduleResult);

export async function scheduleAction(shop: string, form: FormData): Promise<ScheduleActionResult> {
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" ? value : "";
  };
  const intent = text("intent");
  if (intent === "schedule-pause" || intent === "schedule-resume")
    return { intent, ...(await pauseSchedule(shop, intent === "schedule-pause")) };
  // The minimum as the merchant's locale writes it ("25,50" in German), read as decimal text.
  const minimum = typedNumber(text("minimum"));
  if (!minimum.ok) return { intent: "schedule", ok: false, errors: { minimum: minimum.message } };
  return {
    intent: "schedule",
    ...(await saveSchedule(shop, {
      enabled: text("enabled") === "on",
      cadence: text("cadence"),
      weekday: text("weekday"),
      monthDay: text("monthDay"),
      currency: text("currency"),
      minimum: minimum.value,
    })),
  };
}
