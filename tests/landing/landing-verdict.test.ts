import { randomBytes } from "node:crypto";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getDashboard } from "../../app/dashboard/dashboard.server";
import { getOrderDetail } from "../../app/dashboard/order-detail.server";
import { databaseClient } from "../../app/database/db.server";
import type { JobRunner } from "../../app/queue/runner.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import {
  alwaysThrowing,
  clearClickFaults,
  clickFault,
  clickRecordOf,
  LOOKUP,
  orderTags,
  placeOrder,
  runOrderToEnd,
  useHarness,
  verificationOf,
  VERIFY,
  type Harness,
} from "../support/pipeline-harness";
import { sendTouch } from "../support/touch";

const prisma = databaseClient();

// Orders judged on the server's own landing record: the touches the storefront reported through
// the app proxy while the click was alive, and what lookup-click said of the click then.

const suite = useHarness("landing-verdict");
const { newShop, startWorker } = suite;
let h: Harness;
let w: JobRunner;
const HOUR = 60 * 60_000;

beforeAll(() => {
  h = suite.h;
});
// The suite stops the workers and puts the clock back; the click service's faults are this file's.
afterEach(() => clearClickFaults(h));

/** A shopper lands from a creator's link: the storefront reports the click and its tags. */
async function land(
  shop: string,
  tags: (string | null)[],
  creator = { expectedTag: "alice-20", creatorId: "cr_alice" },
) {
  const click = h.clicks.addClick(creator);
  const cartToken = `c1-${randomBytes(10).toString("hex")}`;
  for (const tag of tags) {
    expect((await sendTouch(h.app.url, shop, { clickId: click.clickId, tag, cartToken })).status).toBe(202);
  }
  w = startWorker();
  await w.runOnce(); // the click's lookup
  expect(await clickRecordOf(shop, click.clickId)).toMatchObject({
    state: "known",
    expectedTag: creator.expectedTag,
    creatorId: creator.creatorId,
  });
  return { clickId: click.clickId, cartToken };
}

describe("a journey across a reset browser (decision 047)", () => {
  const SHOPPER = { browserIp: "198.51.100.40", userAgent: "Mozilla/5.0 (Macintosh) Safari/605.1.15" };
  const from = { address: SHOPPER.browserIp, userAgent: SHOPPER.userAgent };

  it("a new cart and visitor bringing another creator's click, minutes after the same browser brought alice's: held for the merchant", async () => {
    const shop = await newShop();
    const alice = h.clicks.addClick({ expectedTag: "alice-20", creatorId: "cr_alice" });
    const oldCart = `c1-${randomBytes(10).toString("hex")}`;
    expect(
      (await sendTouch(h.app.url, shop, { clickId: alice.clickId, tag: "alice-20", cartToken: oldCart }, from)).status,
    ).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 5));
    // The extension drops both cookies, fills a new cart and lands its own click on it.
    const attacker = h.clicks.addClick({ expectedTag: "coupons-99", creatorId: "cr_attacker" });
    const newCart = `c1-${randomBytes(10).toString("hex")}`;
    expect(
      (await sendTouch(h.app.url, shop, { clickId: attacker.clickId, tag: "coupons-99", cartToken: newCart }, from))
        .status,
    ).toBe(202);
    w = startWorker();
    await w.runOnce(); // both lookups
    await w.runOnce();
    const { payload } = await placeOrder(h, {
      shop,
      clickId: attacker.clickId,
      cartToken: newCart,
      arrivedTag: "coupons-99",
      landingSite: `/?lb_click=${attacker.clickId}&tag=coupons-99`,
      paidFrom: SHOPPER,
    });
    const v = await runOrderToEnd(h, w, shop, payload.id);
    expect(v.commission).toMatchObject({ creatorId: "cr_attacker", status: "review" });
    expect(JSON.parse(v.contest!)).toMatchObject({
      reason: "identity-changed",
      claims: [
        { clickId: alice.clickId, creatorId: "cr_alice", witnesses: ["landing"] },
        { clickId: attacker.clickId, creatorId: "cr_attacker" },
      ],
    });
  });

  it("tracking declined: alice's arrival reported without a cart, then a visit recorded under a reset visitor naming the attacker's click: nobody is paid", async () => {
    const shop = await newShop();
    const alice = h.clicks.addClick({ expectedTag: "alice-20", creatorId: "cr_alice" });
    // The embed, consent declined: the landing's click alone, no cart.
    const arrival = await sendTouch(
      h.app.url,
      shop,
      { clickId: alice.clickId, tag: "alice-20", cartToken: null },
      from,
    );
    expect(arrival.status).toBe(202);
    expect(await prisma.landingTouch.findMany({ where: { shop }, select: { cartToken: true, clickId: true } })).toEqual(
      [{ cartToken: null, clickId: alice.clickId }],
    );
    w = startWorker();
    await w.runOnce(); // alice's lookup
    h.clock.now = new Date(Date.now() + 10 * 60_000);
    // At checkout the extension writes a fresh visitor cookie and views a page at its own click.
    const attacker = h.clicks.addClick({ expectedTag: "coupons-99", creatorId: "cr_attacker" });
    const declined = (clickId: string, tag: string) =>
      placeOrder(h, {
        shop,
        clickId,
        capture: "landing_site",
        arrivedTag: tag,
        cartToken: `c1-${randomBytes(10).toString("hex")}`,
        paidFrom: SHOPPER,
      });
    const attacked = await runOrderToEnd(h, w, shop, (await declined(attacker.clickId, "coupons-99")).payload.id);
    expect(attacked.outcome).toBe("unattributed");
    expect(attacked.commission).toBeNull();
    expect(attacked.reason).toMatch(new RegExp(`began after the same network source .*${alice.clickId}`));
    // The honest journey: the visit Shopify recorded names the click that arrived.
    const honest = await runOrderToEnd(h, w, shop, (await declined(alice.clickId, "alice-20")).payload.id);
    expect(honest.commission).toMatchObject({ creatorId: "cr_alice" });
  });

  it("another shopper on the same network with another browser is their own journey", async () => {
    const shop = await newShop();
    const alice = h.clicks.addClick({ expectedTag: "alice-20", creatorId: "cr_alice" });
    const theirCart = `c1-${randomBytes(10).toString("hex")}`;
    const theirs = { address: SHOPPER.browserIp, userAgent: "Mozilla/5.0 (iPhone) Mobile Safari/604.1" };
    expect(
      (await sendTouch(h.app.url, shop, { clickId: alice.clickId, tag: "alice-20", cartToken: theirCart }, theirs))
        .status,
    ).toBe(202);
    const bob = h.clicks.addClick({ expectedTag: "bob-10", creatorId: "cr_bob" });
    const cartToken = `c1-${randomBytes(10).toString("hex")}`;
    expect((await sendTouch(h.app.url, shop, { clickId: bob.clickId, tag: "bob-10", cartToken }, from)).status).toBe(
      202,
    );
    w = startWorker();
    await w.runOnce();
    await w.runOnce();
    const { payload } = await placeOrder(h, {
      shop,
      clickId: bob.clickId,
      cartToken,
      arrivedTag: "bob-10",
      landingSite: `/?lb_click=${bob.clickId}&tag=bob-10`,
      paidFrom: SHOPPER,
    });
    const v = await runOrderToEnd(h, w, shop, payload.id);
    expect(v.commission).toMatchObject({ creatorId: "cr_bob", status: "pending" });
    expect(v.contest).toBeNull();
  });
});

describe("an order after the service forgot the click", () => {
  it("three hours after a landing-confirmed click: decided from the landing record and credited", async () => {
    const shop = await newShop();
    const { clickId, cartToken } = await land(shop, ["alice-20"]);
    h.clock.now = new Date(Date.now() + 3 * HOUR);
    const { payload } = await placeOrder(h, { shop, clickId, cartToken, arrivedTag: "alice-20", subtotal: "200.00" });
    await w.runOnce();

    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({
      outcome: "matched",
      verdictSource: "landing",
      captureSource: "app_proxy",
      expectedTag: "alice-20",
      creatorId: "cr_alice",
      tampered: false,
    });
    expect(v.attemptLog.map((a) => [a.step, a.result])).toEqual([["verify-click", "expired"]]);
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", amount: "20.00", redirected: false });
    expect((await getOrderDetail(shop, v.id))!.verdict).toMatchObject({ source: "landing", expectedTag: "alice-20" });
    expect((await getDashboard(shop, 7)).landing).toEqual({ savedFromExpiry: 1, tampered: 0 });
  });

  it("a tag swapped on the storefront after landing is a hijack, tagged and credited to the expected creator", async () => {
    const shop = await newShop();
    const { clickId, cartToken } = await land(shop, ["alice-20", "honey-77"]);
    h.clock.now = new Date(Date.now() + 2 * HOUR);
    const { payload } = await placeOrder(h, { shop, clickId, cartToken, arrivedTag: "honey-77" });
    await w.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "hijacked", verdictSource: "landing", arrivedTag: "honey-77", tampered: false });
    expect(orderTags(h, payload.id)).toContain("affiliate-hijacked");
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", redirected: true });
  });

  it("the service failing once the click's life is over: decided from the landing record, not failed", async () => {
    const shop = await newShop();
    // The tag swapped on the storefront after landing.
    const { clickId, cartToken } = await land(shop, ["alice-20", "honey-77"]);
    h.clock.now = new Date(Date.now() + 3 * HOUR);
    // A report whose fate is unknown, then lookups that fail: no retry fits in the click's life.
    await clickFault(h, { path: VERIFY, times: 1, status: 503 });
    await clickFault(h, { path: LOOKUP, times: 10, status: 503 });
    const { payload } = await placeOrder(h, { shop, clickId, cartToken, arrivedTag: "honey-77", subtotal: "50.00" });
    await w.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "hijacked", verdictSource: "landing", expectedTag: "alice-20" });
    expect(v.attemptLog.map((a) => [a.step, a.result])).toEqual([
      ["verify-click", "unknown"],
      ["lookup-click", "retryable"],
      ["tag-order", "ok"],
    ]);
    expect(orderTags(h, payload.id)).toContain("affiliate-hijacked");
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", amount: "5.00", redirected: true });
  });

  it("a service that cannot be reached once the click's life is over: decided from the landing record", async () => {
    const shop = await newShop();
    const { clickId, cartToken } = await land(shop, ["alice-20"]);
    // Nothing listens there: the report is never sent.
    await saveSettings(shop, { clickServiceUrl: "http://127.0.0.1:9", apiKey: h.apiKey });
    h.clock.now = new Date(Date.now() + 3 * HOUR);
    const { payload } = await placeOrder(h, { shop, clickId, cartToken, arrivedTag: "alice-20", subtotal: "50.00" });
    await w.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "matched", verdictSource: "landing", reportStartedAt: null });
    expect(v.attemptLog.map((a) => [a.step, a.result])).toEqual([["verify-click", "not-sent"]]);
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", amount: "5.00", redirected: false });
  });

  it("an order that failed can be retried after the click's hour when the landing record knows the click", async () => {
    const shop = await newShop();
    const { clickId, cartToken } = await land(shop, ["alice-20"]);
    await w.stop();
    w = startWorker({ deps: { clickService: alwaysThrowing("simulated fault while building the client") } });
    const { payload } = await placeOrder(h, { shop, clickId, cartToken, arrivedTag: "alice-20", subtotal: "50.00" });
    expect(await runOrderToEnd(h, w, shop, payload.id)).toMatchObject({ outcome: "failed", hijacked: null });
    await w.stop();

    h.clock.now = new Date(Date.now() + 3 * HOUR);
    const { retryVerificationNow } = await import("../../app/verification/manual-retry.server");
    expect(await retryVerificationNow(shop, String(payload.id), h.clock.date())).toEqual({ ok: true });
    w = startWorker();
    await w.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "matched", verdictSource: "landing" });
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", amount: "5.00" });
  });

  it("without a landing record it has expired, as before", async () => {
    const shop = await newShop();
    w = startWorker();
    const { payload } = await placeOrder(h, { shop, clickAgeMinutes: 120 });
    await w.runOnce();
    expect(await verificationOf(shop, payload.id)).toMatchObject({ outcome: "expired", verdictSource: null });
  });
});

describe("the server's record wins over the cart's attributes", () => {
  it("a cart rewritten after landing to another creator's click loses, and the rewrite is kept as evidence", async () => {
    const shop = await newShop();
    const { clickId, cartToken } = await land(shop, ["alice-20"]);
    const other = h.clicks.addClick({ expectedTag: "bob-10", creatorId: "cr_bob" });
    // A script rewrote the cart: another click and its creator's tag. Shopify recorded the page
    // the shopper landed on: alice's link.
    const { payload } = await placeOrder(h, {
      shop,
      clickId: other.clickId,
      cartToken,
      arrivedTag: "bob-10",
      landingSite: `/?lb_click=${clickId}&tag=alice-20`,
    });
    await w.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({
      outcome: "matched",
      clickId,
      arrivedTag: "alice-20",
      verdictSource: "service",
      tampered: true,
    });
    expect(JSON.parse(v.tamperEvidence!)).toEqual({
      cartClickId: other.clickId,
      cartTag: "bob-10",
      findings: [
        "a click only storefront scripts reported stands against the one Shopify recorded; it takes no credit",
        "the cart names a click id the storefront never reported for this cart",
        "the cart names an affiliate tag the storefront never reported for this cart",
      ],
      competingClicks: [{ clickId: other.clickId, witness: "cart_attributes", firstSeenAt: null, why: "unrecorded" }],
    });
    expect(v.commission).toMatchObject({ creatorId: "cr_alice" });
    expect(h.clicks.verifications(other.clickId)).toEqual([]);

    // The order page tells the journey and the tampering; the dashboard counts the cart.
    const detail = (await getOrderDetail(shop, v.id))!;
    expect(detail.journey.touches).toEqual([{ clickId, tag: "alice-20", seenAt: expect.any(String) }]);
    expect(detail.journey.clicks).toEqual([
      expect.objectContaining({ clickId, state: "known", expectedTag: "alice-20", creatorId: "cr_alice" }),
    ]);
    expect(detail.tamper).toEqual(JSON.parse(v.tamperEvidence!));
    expect(detail.verdict).toMatchObject({ source: "service", reportConfirmed: true });
    expect((await getDashboard(shop, 7)).landing).toEqual({ savedFromExpiry: 0, tampered: 1 });
  });

  it("a cart rewritten to another valid click with a touch of its own, and no landing page recorded: the first click is held for the merchant, the other is a claim", async () => {
    const shop = await newShop();
    const { clickId, cartToken } = await land(shop, ["alice-20"]);
    // The attack: a script on the storefront rewrites the cart to another creator's live click
    // and posts one touch naming it, through the same app proxy the embed uses.
    const other = h.clicks.addClick({ expectedTag: "bob-10", creatorId: "cr_bob" });
    await new Promise((resolve) => setTimeout(resolve, 5)); // a later touch, not the same millisecond
    expect((await sendTouch(h.app.url, shop, { clickId: other.clickId, tag: "bob-10", cartToken })).status).toBe(202);
    // Shopify recorded no landing page for the order: the scripts' timeline decides.
    const { payload } = await placeOrder(h, {
      shop,
      clickId: other.clickId,
      cartToken,
      arrivedTag: "bob-10",
      landingSite: null,
    });
    await w.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({
      outcome: "matched",
      clickId,
      arrivedTag: "alice-20",
      captureSource: "app_proxy",
      tampered: true,
    });
    // Two creators' clicks and nothing of Shopify's to settle it: held, never approved or paid.
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", status: "review" });
    expect(JSON.parse(v.contest!)).toMatchObject({
      reason: "creators-differ",
      claims: [
        { clickId, witnesses: ["landing"] },
        { clickId: other.clickId, witnesses: ["landing", "cart_attributes"] },
      ],
    });
    expect(h.clicks.verifications(other.clickId)).toEqual([]);
    const tamper = JSON.parse(v.tamperEvidence!);
    expect(tamper).toEqual({
      cartClickId: other.clickId,
      cartTag: "bob-10",
      findings: ["another click was reported for this order after the one credited; the first click keeps the credit"],
      competingClicks: [{ clickId: other.clickId, witness: "landing", firstSeenAt: expect.any(String), why: "later" }],
    });
    // Shown on the order and counted on the dashboard, never silent.
    const detail = (await getOrderDetail(shop, v.id))!;
    expect(detail.tamper).toEqual(tamper);
    expect((await getDashboard(shop, 7)).landing.tampered).toBe(1);
  });

  it("attributes removed from the cart: still judged on the touches, after the hour too", async () => {
    const shop = await newShop();
    const { clickId, cartToken } = await land(shop, ["alice-20", "honey-77"]);
    h.clock.now = new Date(Date.now() + 90 * 60_000);
    const { payload } = await placeOrder(h, { shop, clickId, cartToken, capture: "none" });
    await w.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "hijacked", verdictSource: "landing", tampered: true, clickId });
    expect(JSON.parse(v.tamperEvidence!).findings).toEqual([
      "the cart's click id was removed",
      "the cart's affiliate tag was removed",
    ]);
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", redirected: true });
  });

  it("touches older than the attribution window attribute nothing", async () => {
    const shop = await newShop();
    await prisma.shopSettings.update({ where: { shop }, data: { attributionWindowDays: 1 } });
    const { cartToken } = await land(shop, ["alice-20"]);
    h.clock.now = new Date(Date.now() + 25 * HOUR);
    const { payload } = await placeOrder(h, { shop, cartToken, capture: "none" });
    await w.runOnce();
    expect(await verificationOf(shop, payload.id)).toMatchObject({ outcome: "unattributed", tampered: false });
  });
});

describe("a flood of made-up click ids (decision 033)", () => {
  /**
   * Clicks of this test the service was asked about (other tests' retries may fall due
   * meanwhile). A turn is one click looked up: the client's own retry of a call that failed on
   * the way is the same turn, so clicks are counted, not requests.
   */
  const lookupsAtService = (ours: (clickId: string) => boolean) =>
    new Set(
      h.clicks.state.requests
        .filter((request) => request.path === LOOKUP && request.clickId !== null && ours(request.clickId))
        .map((request) => request.clickId),
    ).size;

  it("is looked up at the shop's pace, and a shopper landing after it is looked up before it", async () => {
    const shop = await newShop({ landingLookupsPerHour: 60 }); // one lookup a minute
    for (let i = 0; i < 40; i += 1) {
      const touch = {
        clickId: `clk_made_up_${i}`,
        tag: "honey-77",
        cartToken: `c1-${randomBytes(10).toString("hex")}`,
      };
      expect((await sendTouch(h.app.url, shop, touch, { address: `198.51.100.${i}` })).status).toBe(202);
    }
    const start = Date.now();
    h.clock.now = new Date(start);
    let realClickId = "";
    const ours = (clickId: string) => clickId.startsWith("clk_made_up_") || clickId === realClickId;
    const before = lookupsAtService(ours);
    w = startWorker();
    await w.runOnce();
    expect(lookupsAtService(ours) - before).toBe(1);

    const { clickId } = h.clicks.addClick({ expectedTag: "alice-20", creatorId: "cr_alice" });
    realClickId = clickId;
    const shopper = { clickId, tag: "alice-20", cartToken: `c1-${randomBytes(10).toString("hex")}` };
    expect((await sendTouch(h.app.url, shop, shopper, { address: "203.0.113.50" })).status).toBe(202);

    let minutes = 0;
    while ((await clickRecordOf(shop, clickId)).state === "pending" && minutes < 10) {
      minutes += 1;
      h.clock.now = new Date(start + minutes * 60_000 + 1_000);
      await w.runOnce();
    }
    expect(await clickRecordOf(shop, clickId)).toMatchObject({ state: "known", creatorId: "cr_alice" });
    // The shopper's click went first: the minute after the flood's first lookup.
    expect(minutes).toBe(1);
    // The flood spent the shop's pace and no more: one lookup a minute.
    expect(lookupsAtService(ours) - before).toBe(minutes + 1);
  });

  it("an older click that gave its turn to a newer one takes the next turn, not one a minute later", async () => {
    // Two shoppers land close together; the older click's job runs after the newer click is
    // recorded, so its turn goes to the newer one (newest first). With turns left in the minute,
    // the older click is looked up at once: a shopper must not wait a minute for a free turn.
    const shop = await newShop({ landingLookupsPerHour: 600 }); // ten a minute
    const older = h.clicks.addClick({ expectedTag: "alice-20", creatorId: "cr_alice" });
    const newer = h.clicks.addClick({ expectedTag: "bob-10", creatorId: "cr_bob" });
    for (const click of [older, newer]) {
      const touch = { clickId: click.clickId, tag: null, cartToken: `c1-${randomBytes(10).toString("hex")}` };
      expect((await sendTouch(h.app.url, shop, touch)).status).toBe(202);
      await new Promise((resolve) => setTimeout(resolve, 5)); // recorded a moment apart
    }
    h.clock.now = new Date(Date.now() + 1_000);
    w = startWorker();
    await w.runOnce();
    await w.runOnce();
    expect((await clickRecordOf(shop, newer.clickId)).state).toBe("known");
    expect(await clickRecordOf(shop, older.clickId)).toMatchObject({ state: "known", creatorId: "cr_alice" });
  });

  it("a click still waiting when its hour is over is given up without a call", async () => {
    const shop = await newShop({ landingLookupsPerHour: 10 });
    for (const clickId of ["clk_hour_over_1", "clk_hour_over_2"]) {
      const touch = { clickId, tag: null, cartToken: `c1-${randomBytes(10).toString("hex")}` };
      expect((await sendTouch(h.app.url, shop, touch)).status).toBe(202);
    }
    const start = Date.now();
    h.clock.now = new Date(start);
    w = startWorker();
    await w.runOnce();
    const ours = (clickId: string) => clickId.startsWith("clk_hour_over_");
    const before = lookupsAtService(ours);
    h.clock.now = new Date(start + HOUR + 1_000);
    await w.runOnce();
    expect(lookupsAtService(ours)).toBe(before);
    const states = await prisma.clickRecord.findMany({ where: { shop }, orderBy: { clickId: "asc" } });
    expect(states.map((record) => record.state).sort()).toEqual(["failed", "unknown"]);
    expect(states.find((record) => record.state === "failed")?.lastError).toMatch(
      /not looked up within the click's hour/,
    );
  });
});
