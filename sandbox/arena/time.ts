import type { PrismaClient } from "@prisma/client";
import type { RunningClickService } from "../click-service/server";
import type { ShopStorefront } from "../storefront/shop";

// Time in the arena. A journey that says "three days later" does not wait three days: every
// record of what happened so far is moved that far into the past instead, as the demo dates a
// click it lets expire. The storefront's visits, the clicks the click service made during the
// journey, and what the app recorded for the journey's shop (its touches, the pixel's reports,
// its click records) all age together, so each party sees the same past. The app's own clock
// is never touched: the order comes now.

export interface JourneyRecords {
  shop: string;
  db: PrismaClient;
  storefront: ShopStorefront;
  clicks: RunningClickService;
  /** The click service's clicks that existed before the journey began (not the journey's to age). */
  clicksBefore: ReadonlySet<string>;
}

/** How long the app gets to look up the clicks a page reported, as it does within seconds. */
const LOOKUP_WAIT_MS = 30_000;

export async function passTime(records: JourneyRecords, minutes: number): Promise<void> {
  // What the app does within seconds of a landing happens before the time passes.
  await lookupsSettled(records.db, records.shop);
  const ms = minutes * 60_000;
  records.storefront.visits.age(ms);
  for (const clickId of records.clicks.state.clicks.keys())
    if (!records.clicksBefore.has(clickId)) records.clicks.ageClick(clickId, minutes);
  await ageAppRecords(records.db, records.shop, ms);
}

/** Moves the shop's touches, pixel reports and click records `ms` into the past. */
async function ageAppRecords(db: PrismaClient, shop: string, ms: number): Promise<void> {
  const back = (at: Date) => new Date(at.getTime() - ms);
  const backOrNull = (at: Date | null) => (at === null ? null : back(at));
  for (const touch of await db.landingTouch.findMany({ where: { shop }, select: { id: true, seenAt: true } }))
    await db.landingTouch.update({ where: { id: touch.id }, data: { seenAt: back(touch.seenAt) } });
  for (const report of await db.pixelSighting.findMany({ where: { shop }, select: { id: true, seenAt: true } }))
    await db.pixelSighting.update({ where: { id: report.id }, data: { seenAt: back(report.seenAt) } });
  const clicks = await db.clickRecord.findMany({
    where: { shop },
    select: { id: true, firstSeenAt: true, clickedAt: true, lookedUpAt: true },
  });
  for (const click of clicks)
    await db.clickRecord.update({
      where: { id: click.id },
      data: {
        firstSeenAt: back(click.firstSeenAt),
        clickedAt: backOrNull(click.clickedAt),
        lookedUpAt: backOrNull(click.lookedUpAt),
      },
    });
}

/**
 * Waits until the app has looked up every click the shop's storefront reported (none of its
 * click records is still pending), for at most LOOKUP_WAIT_MS: a shopper takes at least that
 * long between landing and paying. Resolves either way; says whether they settled.
 */
export async function lookupsSettled(db: PrismaClient, shop: string, timeoutMs = LOOKUP_WAIT_MS): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = await db.clickRecord.count({ where: { shop, state: "pending" } });
    if (pending === 0) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
