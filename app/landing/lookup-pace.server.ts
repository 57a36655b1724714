import { Prisma } from "@prisma/client";
import { CLICK_LIFETIME_MS } from "../click-service/contract";
import { sqlTime } from "../database/db.server";
import { sql } from "../database/sql.server";
import { ClickRecord } from "../database/tables";

// When a click the storefront reported may be looked up at the service (decision 033). Nothing
// tells a made-up click id from a real one but the service's answer, so the defence is in the
// order and the pace of the lookups, not in refusing touches:
// - a shop's lookups go at an even pace, its lookups per hour spread over the hour's minutes:
//   a flood of made-up ids spends at most that pace, the merchant's own figure;
// - a lookup that gets a turn spends it on the newest click still waiting (lookup-click.server.ts),
//   and one that must wait goes back by as long as its click has already waited (a minute at
//   least): a shopper landing after a flood is looked up at the next turn, while the flood's
//   backlog drifts behind;
// - a click still waiting when its hour is over is not looked up at all: the service has
//   forgotten it by then.

const MINUTE_MS = 60_000;

/** Lookups one shop gets in any minute: its hour's share, at least one. */
export function lookupsPerMinute(lookupsPerHour: number): number {
  return Math.max(1, Math.ceil(lookupsPerHour / 60));
}

/** Lookups under way in this process, per shop: counted until their answer is written. */
const underWay = new Map<string, number>();
/** Per shop, the end of the last decision asked for: decisions are made one at a time, in order. */
const deciding = new Map<string, Promise<unknown>>();

/**
 * Runs `decide` after every decision for the shop asked before it: the lookups of a batch take
 * their turns in the order their jobs started (the order they fell due), whatever their reads
 * on the way cost. Called before the job's first await, it holds that order.
 */
export function inShopOrder<T>(shop: string, decide: () => Promise<T>): Promise<T> {
  const before = deciding.get(shop) ?? Promise.resolve();
  const decision = before.then(decide, decide);
  const settled = decision.catch(() => {});
  deciding.set(shop, settled);
  // Stryker disable next-line BlockStatement: only frees the entry of a shop with no decision pending; a settled one left there lets the next decision start as no entry does
  void settled.then(() => {
    // Stryker disable next-line ConditionalExpression: only frees the entry of a shop with no decision pending; a settled one left there lets the next decision start as no entry does
    if (deciding.get(shop) === settled) deciding.delete(shop);
  });
  return decision;
}

export type LookupTurn = { go: true; done: () => void } | { go: false; at: Date } | { go: false; expired: true };

/**
 * Whether the click first seen at `firstSeenAt` may be looked up now. When it may, the caller
 * calls `done()` once its answer is written (or the call failed).
 */
export async function lookupTurn(
  shop: string,
  lookupsPerHour: number,
  firstSeenAt: Date,
  now: Date,
): Promise<LookupTurn> {
  if (now.getTime() >= firstSeenAt.getTime() + CLICK_LIFETIME_MS) return { go: false, expired: true };
  // The minute's lookups are those answered (the database) and those under way (this process),
  // read one after the other: a lookup whose answer is written after the count has read the
  // table, and whose turn is done before the count returns, would be in neither. So the count
  // is taken again while the lookups under way changed meanwhile (one ended: none starts, the
  // shop's decisions being made one at a time, inShopOrder).
  let inFlight: number;
  let answered: number;
  do {
    inFlight = underWay.get(shop) ?? 0;
    answered = await answeredInLastMinute(shop, now);
  } while ((underWay.get(shop) ?? 0) !== inFlight);
  if (answered + inFlight < lookupsPerMinute(lookupsPerHour)) {
    underWay.set(shop, inFlight + 1);
    let finished = false;
    return {
      go: true,
      done: () => {
        if (finished) return;
        finished = true;
        const left = (underWay.get(shop) ?? 1) - 1;
        // Stryker disable next-line ConditionalExpression,EqualityOperator: a 0 left in the map counts as no entry does (get ?? 0), so deleting it only frees memory
        if (left > 0) underWay.set(shop, left);
        else underWay.delete(shop);
      },
    };
  }
  return { go: false, at: waitBehindNewer(firstSeenAt, now) };
}

/**
 * When a click that must wait comes back: after as long as it has already waited (a minute at
 * least), so that newer clicks come back first; never after its hour.
 */
export function waitBehindNewer(firstSeenAt: Date, now: Date): Date {
  const waited = now.getTime() - firstSeenAt.getTime();
  const deadline = firstSeenAt.getTime() + CLICK_LIFETIME_MS;
  return new Date(Math.min(now.getTime() + Math.max(MINUTE_MS, waited), deadline));
}

/**
 * The shop's clicks the service answered for in the last minute. Only clicks first seen within
 * the last hour can have been (none is looked up after its hour), so the shop's index on
 * firstSeenAt bounds the rows read.
 */
async function answeredInLastMinute(shop: string, now: Date): Promise<number> {
  const [row] = await sql.rows<{ answered: number | bigint | string }>(Prisma.sql`
    SELECT COUNT(*) AS "answered" FROM ${ClickRecord}
    WHERE ${ClickRecord.shop} = ${shop}
      AND ${ClickRecord.firstSeenAt} >= ${sqlTime(new Date(now.getTime() - CLICK_LIFETIME_MS - MINUTE_MS))}
      AND ${ClickRecord.lookedUpAt} >= ${sqlTime(new Date(now.getTime() - MINUTE_MS))}`);
  return Number(row?.answered ?? 0);
}
