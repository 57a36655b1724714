import { afterEach, describe, expect, it, vi } from "vitest";
import { CLICK_LIFETIME_MS } from "../../app/click-service/contract";
import { databaseClient } from "../../app/database/db.server";
import { sql } from "../../app/database/sql.server";
import { inShopOrder, lookupsPerMinute, lookupTurn, waitBehindNewer } from "../../app/landing/lookup-pace.server";

const prisma = databaseClient();

// The pace of a shop's click lookups (decision 033), rule by rule: tests/landing/landing-verdict.test.ts
// shows the same through the worker, a flood of made-up ids against a shopper's real click.

const MINUTE = 60_000;
const NOW = new Date("2026-11-27T12:00:00.000Z");
const ago = (ms: number) => new Date(NOW.getTime() - ms);
let shops = 0;
const newShop = () => `pace-${++shops}.myshopify.com`;

/** Resolves when `promise` has settled, or says it has not after the event loop has turned. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 5));
  return settled;
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("lookups per minute", () => {
  it("is the hour's share, rounded up, and at least one", () => {
    expect([0, 1, 60, 61, 120, 600].map(lookupsPerMinute)).toEqual([1, 1, 1, 2, 2, 10]);
  });
});

describe("a click that must wait", () => {
  it("comes back after as long as it has waited, at least a minute, never after its hour", () => {
    expect(waitBehindNewer(ago(10_000), NOW)).toEqual(new Date(NOW.getTime() + MINUTE));
    expect(waitBehindNewer(ago(5 * MINUTE), NOW)).toEqual(new Date(NOW.getTime() + 5 * MINUTE));
    expect(waitBehindNewer(ago(40 * MINUTE), NOW)).toEqual(new Date(ago(40 * MINUTE).getTime() + CLICK_LIFETIME_MS));
  });
});

describe("a lookup's turn", () => {
  it("is refused once the click's hour is over, to the millisecond", async () => {
    const shop = newShop();
    expect(await lookupTurn(shop, 60, ago(CLICK_LIFETIME_MS), NOW)).toEqual({ go: false, expired: true });
    const turn = await lookupTurn(shop, 60, ago(CLICK_LIFETIME_MS - 1), NOW);
    expect(turn.go).toBe(true);
    if (turn.go) turn.done();
  });

  it("goes while the minute's lookups, answered and under way, leave room; a finished one frees its place once", async () => {
    const shop = newShop();
    const firstSeen = ago(2 * MINUTE);
    // Two a minute.
    const one = await lookupTurn(shop, 120, firstSeen, NOW);
    const two = await lookupTurn(shop, 120, firstSeen, NOW);
    expect([one.go, two.go]).toEqual([true, true]);
    expect(await lookupTurn(shop, 120, firstSeen, NOW)).toEqual({ go: false, at: waitBehindNewer(firstSeen, NOW) });
    if (!one.go || !two.go) throw new Error("both went");
    // Done twice is done once: the other lookup is still under way.
    one.done();
    one.done();
    const three = await lookupTurn(shop, 120, firstSeen, NOW);
    expect(three.go).toBe(true);
    expect((await lookupTurn(shop, 120, firstSeen, NOW)).go).toBe(false);
    two.done();
    if (three.go) three.done();
    const four = await lookupTurn(shop, 120, firstSeen, NOW);
    expect(four.go).toBe(true);
    if (four.go) four.done();
  });

  it("counts the clicks answered in the last minute, however near the end of their hour they were looked up", async () => {
    const shop = newShop();
    // Looked up 20 s ago, 59 min 30 s after it was first seen: still the last minute's lookup.
    await prisma.clickRecord.create({
      data: {
        id: `${shop}-late`,
        shop,
        clickId: "clk_late",
        state: "known",
        firstSeenAt: ago(CLICK_LIFETIME_MS - 10_000),
        lookedUpAt: ago(20_000),
      },
    });
    // Looked up just over a minute ago: no longer counted.
    await prisma.clickRecord.create({
      data: {
        id: `${shop}-old`,
        shop,
        clickId: "clk_old",
        state: "known",
        firstSeenAt: ago(10 * MINUTE),
        lookedUpAt: ago(MINUTE + 1_000),
      },
    });
    expect((await lookupTurn(shop, 60, ago(MINUTE), NOW)).go).toBe(false);
    const turn = await lookupTurn(shop, 120, ago(MINUTE), NOW);
    expect(turn.go).toBe(true);
    if (turn.go) turn.done();
  });
});

describe("a lookup that ends while the minute's lookups are counted", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is counted once it is answered: its turn is not given again", async () => {
    const shop = newShop();
    const firstSeen = ago(2 * MINUTE);
    const under = await lookupTurn(shop, 60, firstSeen, NOW); // one a minute
    if (!under.go) throw new Error("the minute's turn is free");
    // The lookup's answer is written and its turn done just after the count has read the
    // answered lookups (none yet) and before it returns: as a worker's lookup finishes while
    // another job of the shop is deciding.
    const count = sql.rows.bind(sql);
    let ended = false;
    vi.spyOn(sql, "rows").mockImplementation(async (query) => {
      const rows = await count(query);
      if (!ended) {
        ended = true;
        await prisma.clickRecord.create({
          data: {
            id: `${shop}-answered`,
            shop,
            clickId: "clk_answered",
            state: "unknown",
            firstSeenAt: firstSeen,
            lookedUpAt: NOW,
          },
        });
        under.done();
      }
      return rows as never;
    });
    expect(await lookupTurn(shop, 60, firstSeen, NOW)).toEqual({ go: false, at: waitBehindNewer(firstSeen, NOW) });
    expect(ended).toBe(true);
  });
});

describe("decisions in the shop's order", () => {
  it("runs each after every decision asked before it, a failed one included, and others' shops apart", async () => {
    const shop = newShop();
    const first = deferred();
    const second = deferred();
    const order: string[] = [];
    const a = inShopOrder(shop, async () => {
      order.push("a");
      await first.promise;
      throw new Error("a failed");
    });
    const b = inShopOrder(shop, async () => {
      order.push("b");
      await second.promise;
      return "b";
    });
    // Another shop's decision does not wait.
    expect(await inShopOrder(newShop(), async () => "elsewhere")).toBe("elsewhere");
    expect(order).toEqual(["a"]);
    first.resolve();
    await expect(a).rejects.toThrow("a failed");
    expect(await settledYet(b)).toBe(false);
    // Asked while b is still deciding: waits for b, though a's turn is over.
    const c = inShopOrder(shop, async () => {
      order.push("c");
      return "c";
    });
    expect(await settledYet(c)).toBe(false);
    expect(order).toEqual(["a", "b"]);
    second.resolve();
    expect([await b, await c]).toEqual(["b", "c"]);
    expect(order).toEqual(["a", "b", "c"]);
  });
});
