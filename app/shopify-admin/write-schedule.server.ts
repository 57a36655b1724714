import type { QueryCost } from "./admin-client.server";

// When this process may next write to a shop's Admin API. Shopify meters each shop with a leaky
// bucket: it holds up to `capacity` points, restores `restoreRate` a second, and refuses a write
// that finds too few as THROTTLED. The worker must not sleep in a slot other orders need, so a tag
// write asks here first: go now, or come back at a time reserved for it.
//
// The bucket is tracked as a generic cell rate algorithm does: `fullAt` is when the bucket would be
// full again if no other write came. A write may go when the bucket then holds its cost, that is
// once `fullAt - now` is at most (capacity - headroom - cost) / rate; each write admitted or reserved moves
// `fullAt` on by cost / rate. So a burst spends the points the bucket holds at once, and the rest
// form a line spaced by what one write costs, instead of a herd that wakes together. A job that
// comes back at the time it was given goes: its points were counted when it was given the time.
// Each instance learns from its own answers; a THROTTLED answer corrects any estimate.

/** What one tag write (tagsAdd + metafieldsSet) is assumed to cost until Shopify says. */
const DEFAULT_WRITE_COST = 20;
/** A standard shop's bucket until Shopify says otherwise: points held, points restored a second. */
const DEFAULT_CAPACITY = 1_000;
const DEFAULT_RESTORE_RATE = 100;
/**
 * Share of the bucket left for the app's other calls (reading an order's tags, setting up the
 * evidence definition), which this schedule does not count: tag writes spend the rest.
 */
const HEADROOM = 0.1;
/** Reserved times not claimed this long after they came (the job went to another instance) are forgotten. */
const FORGET_RESERVATIONS_AFTER_MS = 10 * 60 * 1000;

interface ShopBucket {
  /** When the bucket is full again, counting every write admitted or reserved (ms). */
  fullAt: number;
  /** The latest time this bucket was asked at: a clock that steps back moves the estimate with it. */
  seenAt: number;
  /** Times handed out and not yet claimed (ms). */
  reserved: Set<number>;
  writeCost: number;
  capacity: number;
  restoreRate: number;
}

const buckets = new Map<string, ShopBucket>();

function bucketOf(shop: string): ShopBucket {
  let bucket = buckets.get(shop);
  if (!bucket) {
    bucket = {
      fullAt: 0,
      seenAt: 0,
      reserved: new Set(),
      writeCost: DEFAULT_WRITE_COST,
      capacity: DEFAULT_CAPACITY,
      restoreRate: DEFAULT_RESTORE_RATE,
    };
    buckets.set(shop, bucket);
  }
  return bucket;
}

const msFor = (points: number, bucket: ShopBucket) => Math.ceil((points / bucket.restoreRate) * 1000);

/** How far ahead of now `fullAt` may be for a write to go: the bucket then still holds its cost. */
const toleranceMs = (bucket: ShopBucket) =>
  msFor(Math.max(0, bucket.capacity * (1 - HEADROOM) - bucket.writeCost), bucket);

/**
 * 0: write now. Otherwise how long to wait; that time is reserved for the caller, and a caller
 * that comes back with it (`reservedAt`, the time its job was due) goes then.
 */
export function reserveWrite(shop: string, now: Date, reservedAt?: Date): number {
  const bucket = bucketOf(shop);
  const at = now.getTime();
  if (at < bucket.seenAt) bucket.fullAt -= bucket.seenAt - at;
  bucket.seenAt = at;
  forgetStale(bucket, at);
  if (reservedAt && bucket.reserved.delete(reservedAt.getTime())) return 0;
  const fullAt = Math.max(bucket.fullAt, at);
  const allowedAt = fullAt - toleranceMs(bucket);
  bucket.fullAt = fullAt + msFor(bucket.writeCost, bucket);
  if (allowedAt <= at) return 0;
  bucket.reserved.add(allowedAt);
  return allowedAt - at;
}

/**
 * Shopify answered THROTTLED: the bucket holds the write's cost only `waitMs` from now. Times
 * handed out before are void (they assumed more points); their jobs line up again.
 */
export function noteThrottled(shop: string, now: Date, waitMs: number): void {
  const bucket = bucketOf(shop);
  const refilled = now.getTime() + waitMs + toleranceMs(bucket);
  bucket.fullAt = Math.max(bucket.fullAt, refilled);
  bucket.reserved.clear();
}

/** A write went through: learn its cost and the bucket's size and rate, and what it holds now. */
export function noteWritten(shop: string, now: Date, cost: QueryCost | undefined): void {
  if (!cost) return;
  bucketOf(shop).writeCost = Math.max(1, cost.actualQueryCost ?? cost.requestedQueryCost);
  noteSpent(shop, now, cost);
}

/**
 * A read that tag writes must never wait behind (the reconciliation sweep): it goes only while
 * the bucket, counting every write admitted or reserved, still holds half its points besides
 * the read's `cost`, so a burst of verdicts finds the bucket at least half full. 0: read now
 * (its points are counted); otherwise how long until the bucket is full again: a reader that
 * comes back then has half a bucket of reads before it, so it cannot spend each return on the
 * same first call. Nothing is reserved for it.
 */
export function reserveRead(shop: string, now: Date, cost: number): number {
  const bucket = bucketOf(shop);
  const at = now.getTime();
  const fullAt = Math.max(bucket.fullAt, at);
  const allowedAt = fullAt - msFor(Math.max(0, bucket.capacity / 2 - cost), bucket);
  if (allowedAt > at) return fullAt - at;
  bucket.fullAt = fullAt + msFor(cost, bucket);
  return 0;
}

/** A call went through: learn the bucket's size and rate, and what it holds now. */
export function noteSpent(shop: string, now: Date, cost: QueryCost | undefined): void {
  const bucket = bucketOf(shop);
  if (!cost) return;
  const status = cost.throttleStatus;
  if (status.restoreRate > 0) bucket.restoreRate = status.restoreRate;
  if (status.maximumAvailable > 0) bucket.capacity = status.maximumAvailable;
  const missing = Math.max(0, bucket.capacity - status.currentlyAvailable);
  // Never earlier than what is already counted: writes reserved but not yet sent are not in Shopify's figure.
  bucket.fullAt = Math.max(bucket.fullAt, now.getTime() + msFor(missing, bucket));
}

function forgetStale(bucket: ShopBucket, at: number): void {
  // Times are handed out in increasing order, and a Set keeps that order: stop at the first fresh one.
  for (const time of bucket.reserved) {
    if (time >= at - FORGET_RESERVATIONS_AFTER_MS) break;
    bucket.reserved.delete(time);
  }
}

/** For tests: forget every shop's bucket. */
export function resetWriteSchedule(): void {
  buckets.clear();
}
