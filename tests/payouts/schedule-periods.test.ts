import { describe, expect, it } from "vitest";
import {
  isoWeekKey,
  lastDue,
  nextDue,
  tick,
  zonedInstant,
  type ScheduleState,
  type ScheduleTiming,
} from "../../app/payouts/schedule-periods";

// A payout schedule's periods, without a database or a clock: which period a moment is in, when
// its run is due in the shop's zone (summer time, month ends), and what a tick does.

const monthly = (monthDay: number): ScheduleTiming => ({ cadence: "monthly", weekday: 1, monthDay });
const weekly = (weekday: number): ScheduleTiming => ({ cadence: "weekly", weekday, monthDay: 1 });
const at = (iso: string) => new Date(iso);

describe("a schedule's periods", () => {
  it("pays day 31 on a shorter month's last day: February 28th, or the 29th in a leap year", () => {
    expect(nextDue(monthly(31), "UTC", at("2027-02-10T00:00:00Z"))).toEqual({
      key: "2027-02",
      dueAt: at("2027-02-28T09:00:00Z"),
    });
    expect(nextDue(monthly(31), "UTC", at("2028-02-10T00:00:00Z")).dueAt).toEqual(at("2028-02-29T09:00:00Z"));
    expect(nextDue(monthly(31), "UTC", at("2027-04-10T00:00:00Z")).dueAt).toEqual(at("2027-04-30T09:00:00Z"));
    // After February's run, March's is on the 31st again.
    expect(nextDue(monthly(31), "UTC", at("2027-02-28T09:00:00Z"))).toEqual({
      key: "2027-03",
      dueAt: at("2027-03-31T09:00:00Z"),
    });
    expect(lastDue(monthly(31), "UTC", at("2027-03-05T00:00:00Z"))).toEqual({
      key: "2027-02",
      dueAt: at("2027-02-28T09:00:00Z"),
    });
  });

  it("is due at 09:00 in the shop's zone, whatever its offset that day (summer time)", () => {
    // New York: UTC-5 in winter, UTC-4 in summer; the clocks change on 2027-03-14 and 2027-11-07.
    expect(nextDue(monthly(14), "America/New_York", at("2027-03-01T00:00:00Z")).dueAt).toEqual(
      at("2027-03-14T13:00:00Z"),
    );
    expect(nextDue(monthly(7), "America/New_York", at("2027-11-01T00:00:00Z")).dueAt).toEqual(
      at("2027-11-07T14:00:00Z"),
    );
    expect(nextDue(monthly(1), "America/New_York", at("2027-06-15T00:00:00Z")).dueAt).toEqual(
      at("2027-07-01T13:00:00Z"),
    );
    // Sydney's summer is in January: UTC+11.
    expect(zonedInstant("Australia/Sydney", { y: 2027, m: 1, d: 4 }, 9)).toEqual(at("2027-01-03T22:00:00Z"));
  });

  it("reads the period in the shop's zone, not UTC's: Tokyo's Monday starts on UTC's Sunday", () => {
    // 2027-01-03 is a Sunday; at 20:00 UTC it is Monday the 4th, 05:00, in Tokyo.
    const sundayEvening = at("2027-01-03T20:00:00Z");
    expect(nextDue(weekly(1), "Asia/Tokyo", sundayEvening)).toEqual({
      key: "2027-W01",
      dueAt: at("2027-01-04T00:00:00Z"),
    });
    expect(nextDue(weekly(1), "UTC", sundayEvening)).toEqual({ key: "2027-W01", dueAt: at("2027-01-04T09:00:00Z") });
    // Honolulu, at the same moment, is still on Sunday morning: the week that ends today.
    expect(lastDue(weekly(1), "Pacific/Honolulu", sundayEvening)).toEqual({
      key: "2026-W53",
      dueAt: at("2026-12-28T19:00:00Z"),
    });
    // A month end: 23:30 UTC on January 31st is February 1st in Berlin.
    expect(lastDue(monthly(1), "Europe/Berlin", at("2027-01-31T23:30:00Z"))).toEqual({
      key: "2027-01",
      dueAt: at("2027-01-01T08:00:00Z"),
    });
    expect(nextDue(monthly(1), "Europe/Berlin", at("2027-01-31T23:30:00Z"))).toEqual({
      key: "2027-02",
      dueAt: at("2027-02-01T08:00:00Z"),
    });
  });

  it("names ISO weeks as ISO does across a year's end", () => {
    const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 86_400_000;
    expect(isoWeekKey(day("2026-12-31"))).toBe("2026-W53");
    expect(isoWeekKey(day("2027-01-03"))).toBe("2026-W53");
    expect(isoWeekKey(day("2027-01-04"))).toBe("2027-W01");
    expect(isoWeekKey(day("2024-12-30"))).toBe("2025-W01");
    expect(isoWeekKey(day("2026-12-07"))).toBe("2026-W50");
  });

  it("keeps the period when the day moves within it: moving Monday to Friday is the same week", () => {
    const wednesday = at("2026-12-09T12:00:00Z");
    expect(lastDue(weekly(1), "UTC", wednesday).key).toBe("2026-W50");
    expect(nextDue(weekly(5), "UTC", wednesday).key).toBe("2026-W50");
    expect(nextDue(weekly(1), "UTC", wednesday)).toEqual({ key: "2026-W51", dueAt: at("2026-12-14T09:00:00Z") });
  });
});

describe("a tick", () => {
  const schedule = (over: Partial<ScheduleState> = {}): ScheduleState => ({
    ...monthly(5),
    enabled: true,
    paused: false,
    activeFrom: at("2026-11-20T00:00:00Z"),
    ...over,
  });
  const none = () => false;

  it("does nothing when off, and waits for the next period when paused", () => {
    expect(tick(null, "UTC", at("2026-12-05T10:00:00Z"), none)).toEqual({ to: "off" });
    expect(tick(schedule({ enabled: false }), "UTC", at("2026-12-05T10:00:00Z"), none)).toEqual({ to: "off" });
    expect(tick(schedule({ paused: true }), "UTC", at("2026-12-05T10:00:00Z"), none)).toEqual({
      to: "wait",
      until: at("2027-01-05T09:00:00Z"),
      next: { key: "2027-01", dueAt: at("2027-01-05T09:00:00Z") },
    });
  });

  it("runs the period due, once: written, it waits for the next", () => {
    const now = at("2026-12-05T09:00:00Z");
    expect(tick(schedule(), "UTC", now, none)).toMatchObject({
      to: "run",
      period: { key: "2026-12", dueAt: now },
      next: { key: "2027-01" },
    });
    expect(tick(schedule(), "UTC", now, (key) => key === "2026-12")).toMatchObject({
      to: "wait",
      until: at("2027-01-05T09:00:00Z"),
    });
    // A minute early, nothing since the schedule began is due.
    expect(tick(schedule(), "UTC", at("2026-12-05T08:59:00Z"), none)).toMatchObject({
      to: "wait",
      until: now,
    });
  });

  it("runs a period late (an instance down over the hour), but none due before it was active", () => {
    expect(tick(schedule(), "UTC", at("2026-12-08T00:00:00Z"), none)).toMatchObject({
      to: "run",
      period: { key: "2026-12" },
    });
    // Saved (or resumed) on the 6th: December's came before; January's is next.
    expect(
      tick(schedule({ activeFrom: at("2026-12-06T00:00:00Z") }), "UTC", at("2026-12-08T00:00:00Z"), none),
    ).toMatchObject({ to: "wait", until: at("2027-01-05T09:00:00Z") });
  });
});
