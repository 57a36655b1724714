import type { QueryCost } from "./admin-client.server";

// When this process may next write to a shop's Admin API. Shopify meters each shop with a leaky
// bucket (points restored per second); a write that finds it empty is refused as THROTTLED. The
// worker must not sleep in a slot other orders need, so a tag write asks here first: go now, or
// come back at a time of its own. Times handed out are spaced by what one write costs, so a burst
// of hijacked orders in one shop forms an orderly line instead of a herd that wakes together.
// Each instance learns from its own answers; a THROTTLED answer corrects any estimate.

/** What one tag write (tagsAdd + metafieldsSet) is assumed to cost until Shopify says. */
const DEFAULT_WRITE_COST = 20;
/** Points per second a standard shop's bucket restores until Shopify says otherwise. */
const DEFAULT_RESTORE_RATE = 100;

interface ShopBucket {
  /** No write before this (ms). */
  notBefore: number;
  /** The latest time handed out, so the next caller lines up after it (ms). */
  lastSlot: number;
  writeCost: number;
  restoreRate: number;
}

const buckets = new Map<string, ShopBucket>();

function bucketOf(shop: string): ShopBucket {
  let bucket = buckets.get(shop);
  if (!bucket) {
    bucket = { notBefore: 0, lastSlot: 0, writeCost: DEFAULT_WRITE_COST, restoreRate: DEFAULT_RESTORE_RATE };
    buckets.set(shop, bucket);
  }
  return bucket;
}

function spacingMs(bucket: ShopBucket): number {
  return Math.ceil((bucket.writeCost / bucket.restoreRate) * 1000);
}

/** 0: write now. Otherwise how long to wait; the time is reserved for the caller. */
export function reserveWrite(shop: string, now: Date): number {
  const bucket = bucketOf(shop);
  const at = now.getTime();
  if (bucket.notBefore <= at && bucket.lastSlot <= at) return 0;
  const slot = Math.max(bucket.notBefore, bucket.lastSlot + spacingMs(bucket), at);
  bucket.lastSlot = slot;
  return slot - at;
}

/** Shopify answered THROTTLED: nothing before its bucket holds enough points again. */
export function noteThrottled(shop: string, now: Date, waitMs: number): void {
  const bucket = bucketOf(shop);
  bucket.notBefore = Math.max(bucket.notBefore, now.getTime() + waitMs);
}

/** A write went through: learn its cost and the restore rate, and pause early if the bucket is nearly empty. */
export function noteWritten(shop: string, now: Date, cost: QueryCost | undefined): void {
  const bucket = bucketOf(shop);
  if (!cost) return;
  const status = cost.throttleStatus;
  bucket.writeCost = Math.max(1, cost.actualQueryCost ?? cost.requestedQueryCost);
  if (status.restoreRate > 0) bucket.restoreRate = status.restoreRate;
  const missing = bucket.writeCost - status.currentlyAvailable;
  if (missing > 0) noteThrottled(shop, now, Math.ceil((missing / bucket.restoreRate) * 1000));
}

/** For tests: forget every shop's bucket. */
export function resetWriteSchedule(): void {
  buckets.clear();
}
