import { beforeEach, describe, expect, it } from "vitest";
import type { QueryCost } from "../../app/shopify-admin/admin-client.server";
import {
  noteSpent,
  noteThrottled,
  noteWritten,
  reserveRead,
  reserveWrite,
  resetWriteSchedule,
} from "../../app/shopify-admin/write-schedule.server";

// The per-shop schedule of tag writes: a burst spends what the bucket holds, the rest line up
// one write's cost apart, and a job that comes back at its reserved time goes.

const SHOP = "schedule.myshopify.com";
const T0 = new Date("2026-11-22T10:00:00Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

/** Shopify's cost extension after a write of `cost` that left `available` points. */
const cost = (spent: number, available: number, maximumAvailable = 2_000, restoreRate = 100): QueryCost => ({
  requestedQueryCost: spent,
  actualQueryCost: spent,
  throttleStatus: { maximumAvailable, currentlyAvailable: available, restoreRate },
});

beforeEach(() => resetWriteSchedule());

describe("the write schedule", () => {
  it("lets a burst through at once while the bucket has room, then spaces writes by their cost", () => {
    // Until Shopify says otherwise: 1,000 points, 100 a second, 20 a write, a tenth kept for reads.
    const waits = Array.from({ length: 50 }, () => reserveWrite(SHOP, T0));
    const immediate = waits.filter((wait) => wait === 0).length;
    expect(immediate).toBe(45);
    expect(waits.slice(immediate)).toEqual([200, 400, 600, 800, 1_000]);
  });

  it("a job that comes back at its reserved time writes, and the line behind it keeps its places", () => {
    for (let i = 0; i < 45; i += 1) reserveWrite(SHOP, T0);
    const first = reserveWrite(SHOP, T0);
    const second = reserveWrite(SHOP, T0);
    expect([first, second]).toEqual([200, 400]);
    expect(reserveWrite(SHOP, at(first), at(first))).toBe(0);
    expect(reserveWrite(SHOP, at(second), at(second))).toBe(0);
    // A newcomer at that moment lines up after everything reserved.
    expect(reserveWrite(SHOP, at(second))).toBe(200);
  });

  it("a time it did not hand out gets no pass", () => {
    for (let i = 0; i < 45; i += 1) reserveWrite(SHOP, T0);
    expect(reserveWrite(SHOP, at(150), at(150))).toBeGreaterThan(0);
  });

  it("learns the bucket's size, rate and a write's cost from Shopify's answer", () => {
    expect(reserveWrite(SHOP, T0)).toBe(0);
    noteWritten(SHOP, T0, cost(10, 40, 50, 10));
    // 40 of 50 points left, 5 kept for reads: 3 more writes of 10 at once; the next when 15 are
    // back (half a second), then one a second.
    const waits = Array.from({ length: 5 }, () => reserveWrite(SHOP, T0));
    expect(waits).toEqual([0, 0, 0, 500, 1_500]);
  });

  it("a throttle voids the times handed out: their jobs line up again after the refill", () => {
    for (let i = 0; i < 45; i += 1) reserveWrite(SHOP, T0);
    const reserved = reserveWrite(SHOP, T0);
    noteThrottled(SHOP, at(10), 5_000);
    const again = reserveWrite(SHOP, at(reserved), at(reserved));
    expect(at(reserved).getTime() + again).toBeGreaterThanOrEqual(at(10 + 5_000).getTime());
  });

  it("a clock that steps back moves the estimate with it instead of stalling the shop", () => {
    for (let i = 0; i < 10; i += 1) reserveWrite(SHOP, at(60 * 60 * 1000));
    expect(reserveWrite(SHOP, T0)).toBe(0);
  });

  it("keeps shops apart", () => {
    for (let i = 0; i < 60; i += 1) reserveWrite(SHOP, T0);
    expect(reserveWrite("other.myshopify.com", T0)).toBe(0);
  });

  it("lets a sweep's reads go only while the bucket is half full, so tag writes keep the other half", () => {
    // Default bucket: 1,000 points, 100 a second. Reads of 200 go while 500 + 200 are there.
    const reads = Array.from({ length: 4 }, () => reserveRead(SHOP, T0, 200));
    expect(reads.slice(0, 2)).toEqual([0, 0]);
    // Refused: it comes back when the bucket is full again (4 s of points spent).
    expect(reads[2]).toBe(4_000);
    // The writes behind it still find the rest of the bucket at once: 600 points, 20 a write.
    const writes = Array.from({ length: 26 }, () => reserveWrite(SHOP, T0));
    expect(writes.filter((wait) => wait === 0).length).toBeGreaterThanOrEqual(25);
  });

  it("a read does not count as a write's cost, and learns the bucket from Shopify's answer", () => {
    noteSpent(SHOP, T0, cost(300, 1_700));
    expect(reserveRead(SHOP, T0, 160)).toBe(0);
    // A 2,000-point bucket, 1,540 left: reads of 160 go while they leave half (1,380, 1,220, 1,060).
    expect(reserveRead(SHOP, T0, 160)).toBe(0);
    expect(reserveRead(SHOP, T0, 160)).toBe(0);
    expect(reserveRead(SHOP, T0, 160)).toBe(0);
    expect(reserveRead(SHOP, T0, 160)).toBe(9_400);
    const waits = Array.from({ length: 40 }, () => reserveWrite(SHOP, T0));
    // Writes still cost their default 20, not the read's 300: 40 of them fit in what is left.
    expect(waits.filter((wait) => wait === 0).length).toBe(40);
  });
});
