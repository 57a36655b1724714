import { shopToday, zoneOffsetMinutes } from "../units/shop-format";

// A payout schedule's periods (decision 052), as values: which period a moment falls in, when its
// run is due, and what the schedule's job does at a tick. Nothing here reads a database or a
// clock; schedule-run.server.ts is the one place that applies what is decided.
//
// A weekly schedule's period is the ISO week ("2026-W49"), due on the chosen weekday; a monthly
// one's is the calendar month ("2026-12"), due on the chosen day, or the month's last day when it
// has fewer (day 31 in February is the 28th or 29th). Either is due at RUN_HOUR in the shop's time
// zone, whatever its offset that day (summer time). The key is the period, not the day: moving the
// day within a period never runs it twice.

export const CADENCES = ["weekly", "monthly"] as const;
export type Cadence = (typeof CADENCES)[number];

/** The shop's local hour a run is due at: late enough that no zone's clock change skips or repeats it. */
export const RUN_HOUR = 9;

export interface ScheduleTiming {
  cadence: Cadence;
  /** ISO weekday, 1 Monday .. 7 Sunday (weekly). */
  weekday: number;
  /** 1..31 (monthly); a shorter month's last day stands in. */
  monthDay: number;
}

export interface Period {
  key: string;
  /** When its run is due: RUN_HOUR on its day, in the shop's zone. */
  dueAt: Date;
}

const DAY_MS = 86_400_000;

/** A calendar day as days since 1970-01-01 (UTC arithmetic: a day has no zone). */
interface Day {
  y: number;
  m: number; // 1..12
  d: number;
}

const dayNumber = ({ y, m, d }: Day) => Date.UTC(y, m - 1, d) / DAY_MS;
function dayOf(n: number): Day {
  const date = new Date(n * DAY_MS);
  return { y: date.getUTCFullYear(), m: date.getUTCMonth() + 1, d: date.getUTCDate() };
}
const pad = (n: number, width = 2) => String(n).padStart(width, "0");

export function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** ISO weekday of a day number: 1 Monday .. 7 Sunday (1970-01-01 was a Thursday). */
function isoWeekday(n: number): number {
  return ((((n + 3) % 7) + 7) % 7) + 1;
}

/** "2026-W49": the ISO week of a day number (its year is the year of that week's Thursday). */
export function isoWeekKey(n: number): string {
  const thursday = n - isoWeekday(n) + 4;
  const { y } = dayOf(thursday);
  const week = Math.floor((thursday - dayNumber({ y, m: 1, d: 1 })) / 7) + 1;
  return `${y}-W${pad(week)}`;
}

/** The instant that is `hour`:00 on `day` in `zone` (the offset read twice: a change that day moves it). */
export function zonedInstant(zone: string, day: Day, hour: number): Date {
  const wall = Date.UTC(day.y, day.m - 1, day.d, hour);
  const first = wall - zoneOffsetMinutes(zone, new Date(wall)) * 60_000;
  return new Date(wall - zoneOffsetMinutes(zone, new Date(first)) * 60_000);
}

/** The shop's calendar day at `now`. */
export function localDay(zone: string, now: Date): Day {
  const [y, m, d] = shopToday(zone, now).split("-").map(Number) as [number, number, number];
  return { y, m, d };
}

function weekPeriod(timing: ScheduleTiming, zone: string, mondayOf: number): Period {
  const day = mondayOf + Math.min(Math.max(timing.weekday, 1), 7) - 1;
  return { key: isoWeekKey(day), dueAt: zonedInstant(zone, dayOf(day), RUN_HOUR) };
}

function monthPeriod(timing: ScheduleTiming, zone: string, y: number, m: number): Period {
  const d = Math.min(Math.max(timing.monthDay, 1), daysInMonth(y, m));
  return { key: `${y}-${pad(m)}`, dueAt: zonedInstant(zone, { y, m, d }, RUN_HOUR) };
}

/** The period `now` falls in (in the shop's zone), and those either side of it. */
function periodsAround(timing: ScheduleTiming, zone: string, now: Date): [Period, Period, Period] {
  const today = localDay(zone, now);
  if (timing.cadence === "weekly") {
    const n = dayNumber(today);
    const monday = n - isoWeekday(n) + 1;
    return [
      weekPeriod(timing, zone, monday - 7),
      weekPeriod(timing, zone, monday),
      weekPeriod(timing, zone, monday + 7),
    ];
  }
  const shift = (by: number) => {
    const index = today.y * 12 + (today.m - 1) + by;
    return monthPeriod(timing, zone, Math.floor(index / 12), (index % 12) + 1);
  };
  return [shift(-1), shift(0), shift(1)];
}

/** The last period due at or before `now`. */
export function lastDue(timing: ScheduleTiming, zone: string, now: Date): Period {
  const [previous, current] = periodsAround(timing, zone, now);
  return current.dueAt.getTime() <= now.getTime() ? current : previous;
}

/** The first period due after `now`. */
export function nextDue(timing: ScheduleTiming, zone: string, now: Date): Period {
  const [, current, following] = periodsAround(timing, zone, now);
  return current.dueAt.getTime() > now.getTime() ? current : following;
}

export interface ScheduleState extends ScheduleTiming {
  enabled: boolean;
  paused: boolean;
  /** Periods due before this (the schedule saved, turned on or resumed) are not run. */
  activeFrom: Date;
}

export type Tick =
  /** Off: the job ends; saving the schedule starts it again. */
  | { to: "off" }
  /** Nothing due now: wait for the next period. */
  | { to: "wait"; until: Date; next: Period }
  /** Run `period` unless it was written already, then wait for the next. */
  | { to: "run"; period: Period; next: Period };

/**
 * What the schedule's job does at `now`: nothing when off; wait when paused or when the last
 * period came before the schedule was active or was written already; else run the last period
 * due (late ticks included: an instance down over the hour runs it when it is back, once).
 */
export function tick(schedule: ScheduleState | null, zone: string, now: Date, written: (key: string) => boolean): Tick {
  if (!schedule?.enabled) return { to: "off" };
  const next = nextDue(schedule, zone, now);
  const wait: Tick = { to: "wait", until: next.dueAt, next };
  if (schedule.paused) return wait;
  const last = lastDue(schedule, zone, now);
  if (last.dueAt.getTime() < schedule.activeFrom.getTime() || written(last.key)) return wait;
  return { to: "run", period: last, next };
}
