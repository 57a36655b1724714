import { describe, expect, it } from "vitest";
import {
  CLOCK_SKEW_MS,
  LANDING_MOMENT_MS,
  leadOf,
  visitAt,
  type Recorded,
  type Sighting,
} from "../../app/attribution/arrival";
import type { RecordedVisit, ShopifyRecord } from "../../app/attribution/witness-facts";

// When each click arrived (decision 047), at the edges of its windows: the clock skew a visit's
// start is allowed against a report, and the landing's moment.

const T = new Date("2026-12-06T12:00:00.000Z").getTime();
const report = (clickId: string, ms: number): Sighting => ({
  clickId,
  tag: null,
  seenAt: new Date(T + ms),
  witness: "landing",
});
const record = (clickId: string, ms: number | null): Recorded => ({
  clickId,
  tag: null,
  at: ms === null ? null : new Date(T + ms),
});
const visit = (clickId: string | null, ms: number): RecordedVisit => ({ clickId, tag: null, at: new Date(T + ms) });

describe("leadOf", () => {
  it("a visit begun up to the clock skew after the first report arrived first; a moment later, not", () => {
    expect(leadOf([report("x", 0)], [record("r", CLOCK_SKEW_MS)], null)).toEqual({
      clickId: "r",
      by: "record",
      at: new Date(T + CLOCK_SKEW_MS),
    });
    expect(leadOf([report("x", 0)], [record("r", CLOCK_SKEW_MS + 1)], null)).toEqual({
      clickId: "x",
      by: "report",
      at: new Date(T),
    });
  });

  it("a recorded click reported within the landing's moment takes the credit; one reported after it, not", () => {
    const inMoment = leadOf([report("x", 0), report("r", LANDING_MOMENT_MS)], [record("r", null)], null);
    expect(inMoment).toEqual({ clickId: "r", by: "record", at: new Date(T) });
    const after = leadOf([report("x", 0), report("r", LANDING_MOMENT_MS + 1)], [record("r", null)], null);
    expect(after).toEqual({ clickId: "x", by: "report", at: new Date(T) });
  });

  it("with no report, the record leads, else the cart, else nothing", () => {
    expect(leadOf([], [record("r", 5)], "c")).toEqual({ clickId: "r", by: "record", at: new Date(T + 5) });
    expect(leadOf([], [], "c")).toEqual({ clickId: "c", by: "cart", at: null });
    expect(leadOf([], [], null)).toBeNull();
  });
});

describe("visitAt", () => {
  const shopify = (...visits: RecordedVisit[]): ShopifyRecord => ({
    landingSite: visits.at(-1) ?? null,
    journey: { ready: true, visits },
  });

  it("the latest visit begun by the arrival, the clock skew allowed", () => {
    const first = visit(null, 0);
    const last = visit("r", 60_000);
    expect(visitAt(shopify(first, last), new Date(T + 60_000 - CLOCK_SKEW_MS))).toBe(last);
    expect(visitAt(shopify(first, last), new Date(T + 60_000 - CLOCK_SKEW_MS - 1))).toBe(first);
    expect(visitAt(shopify(visit(null, 10_000)), new Date(T))).toBeNull();
  });

  it("no time: the visit that checked out; a journey not ready or not read: unknown", () => {
    const last = visit(null, 60_000);
    expect(visitAt(shopify(visit(null, 0), last), null)).toBe(last);
    expect(visitAt({ landingSite: last, journey: { ready: false, visits: [] } }, new Date(T))).toBe("unknown");
    expect(visitAt({ landingSite: last, journey: null }, new Date(T))).toBe("unknown");
  });
});
