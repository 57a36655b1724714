import { shownNumber } from "../i18n/typed-numbers";
import { Prisma, type PayoutSchedule } from "@prisma/client";
import { z } from "zod";
import { rowsOf, sql, type Sql, upsertRow, updateWhere } from "../database/sql.server";
import { PayoutSchedule as PayoutScheduleTable } from "../database/tables";
import { t } from "../i18n";
import { dueNow } from "../queue/queue.server";
import { wakeWorker } from "../queue/wake.server";
import { minorDigits } from "../units/minor-units";
import { formatMinor } from "../units/money";
import { CADENCES, type Cadence, type ScheduleState } from "./schedule-periods";

// A shop's payout schedule as stored, and the Payouts page's forms that change it: save (which
// turns it on or off), pause and resume. Every change brings the schedule's job to now, in the same
// transaction, so it works out the next period at once (schedule-run.server.ts).

export const SCHEDULE_JOB = "payout-schedule" as const;

export interface Schedule extends ScheduleState {
  currency: string;
  minimumMinor: bigint;
}

export interface PublicSchedule {
  saved: boolean;
  enabled: boolean;
  paused: boolean;
  cadence: Cadence;
  weekday: number;
  monthDay: number;
  currency: string;
  /** The minimum as the form writes it ("25.00"). */
  minimum: string;
}

export async function scheduleOf(db: Sql, shop: string): Promise<Schedule | null> {
  const [row] = await rowsOf<PayoutSchedule>(
    db,
    "PayoutSchedule",
    Prisma.sql`SELECT * FROM ${PayoutScheduleTable} WHERE ${PayoutScheduleTable.shop} = ${shop}`,
  );
  if (!row) return null;
  return {
    enabled: row.enabled,
    paused: row.paused,
    cadence: (CADENCES as readonly string[]).includes(row.cadence) ? (row.cadence as Cadence) : "monthly",
    weekday: row.weekday,
    monthDay: row.monthDay,
    currency: row.currency,
    minimumMinor: BigInt(row.minimumMinor),
    activeFrom: row.activeFrom,
  };
}

/** The schedule as the page shows it; off, monthly on the 1st, in the shop's currency until saved. */
export function publicSchedule(schedule: Schedule | null, shopCurrency: string | null): PublicSchedule {
  const currency = schedule?.currency ?? shopCurrency ?? "USD";
  return {
    saved: schedule !== null,
    enabled: schedule?.enabled ?? false,
    paused: schedule?.paused ?? false,
    cadence: schedule?.cadence ?? "monthly",
    weekday: schedule?.weekday ?? 1,
    monthDay: schedule?.monthDay ?? 1,
    currency,
    // Ungrouped, in the merchant's own decimal mark ("25,00" in German): it is read back as typed.
    minimum: shownNumber(formatMinor(schedule?.minimumMinor ?? 0n, currency).replace(/,/g, "")),
  };
}

/** A decimal amount in the currency's minor units; null when it is not one (too many digits, a sign). */
export function minorOf(text: string, currency: string): bigint | null {
  const digits = minorDigits(currency);
  const match = /^(\d{1,12})(?:\.(\d+))?$/.exec(text.trim());
  if (!match) return null;
  const fraction = match[2] ?? "";
  if (fraction.length > digits) return null;
  return BigInt(match[1]!) * 10n ** BigInt(digits) + BigInt(fraction.padEnd(digits, "0") || "0");
}

const ScheduleForm = z.object({
  enabled: z.boolean(),
  cadence: z.enum(CADENCES, { error: () => t("payouts.schedule.cadenceMissing") }),
  weekday: z.coerce
    .number()
    .int()
    .min(1, { error: () => t("payouts.schedule.weekdayMissing") })
    .max(7, { error: () => t("payouts.schedule.weekdayMissing") }),
  monthDay: z.coerce
    .number()
    .int()
    .min(1, { error: () => t("payouts.schedule.monthDayMissing") })
    .max(31, { error: () => t("payouts.schedule.monthDayMissing") }),
  currency: z.string().regex(/^[A-Z]{3}$/, { error: () => t("payouts.schedule.currencyMissing") }),
  minimum: z.string().max(20, { error: () => t("payouts.schedule.minimumInvalid") }),
});

export type SaveScheduleResult = { ok: true } | { ok: false; errors: Record<string, string> };

async function bringJobToNow(tx: Sql, shop: string, now: Date) {
  await dueNow(tx, [{ shop, kind: SCHEDULE_JOB, subject: shop, runAt: now }], now);
}

/**
 * Saves the schedule. It counts from now: a period whose time came before the save (say the day
 * was moved to one already past this month) waits for its next turn, and is never paid at once.
 */
export async function saveSchedule(shop: string, input: unknown, now = new Date()): Promise<SaveScheduleResult> {
  const parsed = ScheduleForm.safeParse(input);
  if (!parsed.success) {
    const errors: Record<string, string> = {};
    for (const issue of parsed.error.issues) errors[String(issue.path[0] ?? "form")] ??= issue.message;
    return { ok: false, errors };
  }
  const { enabled, cadence, weekday, monthDay, currency } = parsed.data;
  const minimumMinor = minorOf(parsed.data.minimum || "0", currency);
  if (minimumMinor === null) return { ok: false, errors: { minimum: t("payouts.schedule.minimumInvalid") } };
  const data = { enabled, cadence, weekday, monthDay, currency, minimumMinor, activeFrom: now, updatedAt: now };
  await sql.transaction(async (tx) => {
    await upsertRow(
      tx,
      "PayoutSchedule",
      ["shop"],
      { shop, paused: false, ...data },
      Object.keys(data) as (keyof typeof data)[],
    );
    await bringJobToNow(tx, shop, now);
  });
  wakeWorker();
  return { ok: true };
}

/** Pauses the schedule, or resumes it: a period whose time came while it was paused is not paid. */
export async function pauseSchedule(shop: string, paused: boolean, now = new Date()): Promise<SaveScheduleResult> {
  const changed = await sql.transaction(async (tx) => {
    const count = await updateWhere(
      tx,
      "PayoutSchedule",
      Prisma.sql`${PayoutScheduleTable.shop} = ${shop} AND ${PayoutScheduleTable.enabled}`,
      paused ? { paused, updatedAt: now } : { paused, activeFrom: now, updatedAt: now },
    );
    if (count === 1) await bringJobToNow(tx, shop, now);
    return count === 1;
  });
  if (!changed) return { ok: false, errors: { schedule: t("payouts.schedule.notOn") } };
  wakeWorker();
  return { ok: true };
}
