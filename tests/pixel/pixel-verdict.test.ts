import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { getDashboard } from "../../app/dashboard/dashboard.server";
import { getOrderDetail } from "../../app/dashboard/order-detail.server";
import type { JobRunner } from "../../app/queue/runner.server";
import {
  clickRecordOf,
  placeOrder,
  type OrderSpec,
  refundOrder,
  useHarness,
  verificationOf,
  type Harness,
} from "../support/pipeline-harness";
import { checkoutReport, landingReport, sendPixelReport } from "../support/pixel";
import { sendTouch } from "../support/touch";

// Orders judged with the web pixel as a witness (decision 030): its landings, joined to the
// order by the visitor's clientId of its checkout_completed, through the real app proxy route.

const suite = useHarness("pixel-verdict");
const { startWorker } = suite;
let h: Harness;
let w: JobRunner;
const HOUR = 60 * 60_000;

beforeAll(() => {
  h = suite.h;
});

/** A new shop, installed, and a worker for its orders (the suite stops it after the test). */
async function newShop() {
  const shop = await suite.newShop();
  w = startWorker();
  return shop;
}

const clientId = () => `client-${randomBytes(8).toString("hex")}`;

/** The pixel sees a landing from a creator's link; the app looks the click up in the background. */
async function pixelLanding(
  shop: string,
  visitor: string,
  tags: string[],
  creator = { expectedTag: "alice-20", creatorId: "cr_alice" },
) {
  const click = h.clicks.addClick(creator);
  for (const tag of tags) {
    expect((await sendPixelReport(h.app.url, shop, landingReport(visitor, click.clickId, tag))).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
  await w.runOnce();
  expect(await clickRecordOf(shop, click.clickId)).toMatchObject({ state: "known", expectedTag: creator.expectedTag });
  return click.clickId;
}

/** alice's link, as Shopify records the page a shopper landed on through it. */
const link = (clickId: string) => `/?lb_click=${clickId}&tag=alice-20`;

async function checkedOut(shop: string, visitor: string, orderId: number | string) {
  expect((await sendPixelReport(h.app.url, shop, checkoutReport(visitor, String(orderId)))).status).toBe(202);
}

/**
 * An order whose checkout report the pixel sent before the worker looked at it. Intake wakes the
 * worker at once, which would otherwise race the report (a report after the verdict moves no
 * credit: late-witness.server.ts), so the worker is stopped while both arrive and started again.
 */
async function orderCheckedOut(visitor: string, spec: OrderSpec) {
  await w.stop();
  const placed = await placeOrder(h, spec);
  await checkedOut(spec.shop, visitor, placed.payload.id);
  w = startWorker();
  return placed;
}

describe("the pixel as a witness", () => {
  it("the embed off (no attributes, no touches), the pixel on: verified with the click the pixel saw", async () => {
    const shop = await newShop();
    const visitor = clientId();
    const clickId = await pixelLanding(shop, visitor, ["alice-20"]);
    // The shopper came through alice's link: Shopify recorded it as the visit's landing page.
    const { payload } = await orderCheckedOut(visitor, { shop, clickId, capture: "none", landingSite: link(clickId) });
    await w.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({
      outcome: "matched",
      captureSource: "pixel",
      clickId,
      arrivedTag: "alice-20",
      tampered: false,
    });
    expect(v.commission).toMatchObject({ creatorId: "cr_alice" });
    expect(h.clicks.verifications(clickId)).toHaveLength(1);
    expect(JSON.parse(v.witnesses!)).toEqual({
      landing: [],
      pixel: [clickId],
      pixelCheckout: { clickId: null, tag: null },
      cartAttributes: { clickId: null, tag: null },
      landingSite: clickId,
    });
    const detail = (await getOrderDetail(shop, v.id))!;
    expect(detail.witness).toBe("pixel");
    expect(detail.witnesses).toEqual(JSON.parse(v.witnesses!));
    // The dashboard's coverage counts the order under the pixel, in the period and on its day.
    const dashboard = await getDashboard(shop, 7);
    const counts = { landing: 0, pixel: 1, cart_attributes: 0, landing_site: 0, none: 0 };
    expect(dashboard.coverage).toEqual(counts);
    expect(dashboard.coverageByDay).toEqual([
      { day: v.createdAt.toISOString().slice(0, 10), dayText: utcDay(v.createdAt), ...counts },
    ]);
  });

  it("the pixel saw the click land and its checkout report is not in yet: the order waits for it", async () => {
    const shop = await newShop();
    const visitor = clientId();
    const clickId = await pixelLanding(shop, visitor, ["alice-20"]);
    const { payload } = await placeOrder(h, { shop, clickId, capture: "none", landingSite: link(clickId) });
    await w.runOnce();
    const waiting = await verificationOf(shop, payload.id);
    expect(waiting).toMatchObject({ outcome: null, captureSource: null, job: { state: "queued" } });
    // Looked at again 10 seconds after the worker deferred it, unless the report comes first.
    const waitMs = waiting.job.runAt.getTime() - h.clock.ms();
    expect(waitMs).toBeGreaterThan(5_000);
    expect(waitMs).toBeLessThanOrEqual(10_000);
    // The report brings the order forward: the pixel's landing decides it.
    await checkedOut(shop, visitor, payload.id);
    await w.runOnce();
    await expect
      .poll(async () => (await verificationOf(shop, payload.id)).outcome, { timeout: 10_000 })
      .toBe("matched");
    expect(await verificationOf(shop, payload.id)).toMatchObject({ captureSource: "pixel", clickId });
  });

  it("a click the pixel saw from no visitor: nothing to wait for, the landing page decides at once", async () => {
    const shop = await newShop();
    const seenElsewhere = await pixelLanding(shop, clientId(), ["alice-20"]);
    const clickId = h.clicks.addClick({ expectedTag: "alice-20", creatorId: "cr_alice" }).clickId;
    const { payload } = await placeOrder(h, { shop, clickId, capture: "none", landingSite: link(clickId) });
    await w.runOnce();
    expect(await verificationOf(shop, payload.id)).toMatchObject({
      outcome: "matched",
      captureSource: "landing_site",
      clickId,
    });
    expect(seenElsewhere).not.toBe(clickId);
  });

  it("a tag swapped after the pixel's landing is a hijack, credited to the expected creator", async () => {
    const shop = await newShop();
    const visitor = clientId();
    const clickId = await pixelLanding(shop, visitor, ["alice-20", "honey-77"]);
    const { payload } = await orderCheckedOut(visitor, { shop, clickId, capture: "none", landingSite: link(clickId) });
    await w.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "hijacked", captureSource: "pixel", arrivedTag: "honey-77" });
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", redirected: true });
  });

  it("the embed off and a coupon extension's redirect swapping the tag on a page with no click id: a hijack", async () => {
    const shop = await newShop();
    const visitor = clientId();
    const clickId = await pixelLanding(shop, visitor, ["alice-20"]);
    expect(
      (await sendPixelReport(h.app.url, shop, { ...landingReport(visitor, clickId, "honey-77"), clickId: null }))
        .status,
    ).toBe(202);
    const { payload } = await orderCheckedOut(visitor, { shop, clickId, capture: "none", landingSite: link(clickId) });
    await w.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "hijacked", captureSource: "pixel", clickId, arrivedTag: "honey-77" });
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", redirected: true });
  });

  it("an order three hours after the click the pixel reported: decided from the lookup made at landing", async () => {
    const shop = await newShop();
    const visitor = clientId();
    const clickId = await pixelLanding(shop, visitor, ["alice-20"]);
    h.clock.now = new Date(Date.now() + 3 * HOUR);
    const { payload } = await orderCheckedOut(visitor, { shop, clickId, capture: "none", landingSite: link(clickId) });
    await w.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({
      outcome: "matched",
      captureSource: "pixel",
      verdictSource: "landing",
      creatorId: "cr_alice",
    });
    expect(v.attemptLog.map((a) => [a.step, a.result])).toEqual([["verify-click", "expired"]]);
  });

  it("a click only a script reported stands against the landing page Shopify recorded: no credit, kept as evidence", async () => {
    const shop = await newShop();
    const visitor = clientId();
    const clickId = await pixelLanding(shop, visitor, ["alice-20"]);
    // A script posts a touch naming another live click and writes it into the cart.
    const other = h.clicks.addClick({ expectedTag: "bob-10", creatorId: "cr_bob" });
    const cartToken = `c1-${randomBytes(8).toString("hex")}`;
    expect((await sendTouch(h.app.url, shop, { clickId: other.clickId, tag: "bob-10", cartToken })).status).toBe(202);
    const { payload } = await orderCheckedOut(visitor, {
      shop,
      clickId: other.clickId,
      arrivedTag: "bob-10",
      cartToken,
      landingSite: `/?lb_click=${clickId}&tag=alice-20`,
    });
    await w.runOnce(); // the touch's lookup and the order
    await w.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({
      outcome: "matched",
      captureSource: "pixel",
      clickId,
      creatorId: "cr_alice",
      tampered: true,
      contest: null,
    });
    expect(JSON.parse(v.tamperEvidence!)).toMatchObject({
      findings: [
        "a click only storefront scripts reported stands against the one Shopify recorded; it takes no credit",
      ],
      competingClicks: [{ clickId: other.clickId, witness: "landing", why: "unrecorded" }],
    });
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", status: "pending" });
    expect(h.clicks.verifications(other.clickId)).toEqual([]);
  });

  it("neither the embed nor the pixel: unattributed, with what each witness named kept", async () => {
    const shop = await newShop();
    const { payload } = await placeOrder(h, { shop, capture: "none" });
    await w.runOnce();
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "unattributed", captureSource: null });
    expect(JSON.parse(v.witnesses!)).toMatchObject({ landing: [], pixel: [], pixelCheckout: null });
    expect((await getOrderDetail(shop, v.id))!.witness).toBeNull();
    const dashboard = await getDashboard(shop, 7);
    expect(dashboard.coverage).toMatchObject({ pixel: 0, landing: 0, none: 1 });
    expect(dashboard.coverageByDay).toEqual([
      {
        day: v.createdAt.toISOString().slice(0, 10),
        dayText: utcDay(v.createdAt),
        landing: 0,
        pixel: 0,
        cart_attributes: 0,
        landing_site: 0,
        none: 1,
      },
    ]);
  });

  it("the checkout report arriving after the order was judged unattributed: judged again with it, once", async () => {
    const shop = await newShop();
    const visitor = clientId();
    const clickId = await pixelLanding(shop, visitor, ["alice-20"]);
    // Shopify recorded no landing page for the order: nothing of Shopify's stands against the pixel.
    const { payload } = await placeOrder(h, { shop, clickId, capture: "none", subtotal: "200.00", landingSite: null });
    await w.runOnce();
    expect(await verificationOf(shop, payload.id)).toMatchObject({ outcome: "unattributed" });
    // A refund meanwhile finds no commission to adjust.
    await refundOrder(h, shop, payload, { subtotal: "50.00" });
    await w.runOnce();
    // Shopify's thank-you page came after the webhook: the pixel's report reopens the order.
    await checkedOut(shop, visitor, payload.id);
    // Requeued and the worker woken: it takes the order again by itself.
    await w.runOnce();
    await expect
      .poll(async () => (await verificationOf(shop, payload.id)).outcome, { timeout: 10_000 })
      .toBe("matched");
    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({
      outcome: "matched",
      captureSource: "pixel",
      clickId,
      creatorId: "cr_alice",
      contest: null,
    });
    // The credit (20.00 at 10%) took the waiting refund into account: a quarter back.
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", amount: "15.00", status: "pending" });
    // A second checkout report (another event) for a decided order changes nothing.
    await checkedOut(shop, visitor, payload.id);
    expect(await verificationOf(shop, payload.id)).toMatchObject({ outcome: "matched", job: { state: "done" } });
  });

  it("a late checkout report on a visit Shopify recorded without a click: the claim waits for the merchant", async () => {
    const shop = await newShop();
    const visitor = clientId();
    const clickId = await pixelLanding(shop, visitor, ["alice-20"]);
    const { payload } = await placeOrder(h, { shop, clickId, capture: "none", landingSite: "/" });
    await w.runOnce();
    expect(await verificationOf(shop, payload.id)).toMatchObject({ outcome: "unattributed" });
    await checkedOut(shop, visitor, payload.id);
    await w.runOnce();
    await expect
      .poll(async () => (await verificationOf(shop, payload.id)).outcome, { timeout: 10_000 })
      .toBe("matched");
    const v = await verificationOf(shop, payload.id);
    // Verified on the click, but only a script named it: held, never approved or paid meanwhile.
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", status: "review" });
    expect(JSON.parse(v.contest!)).toMatchObject({
      reason: "unrecorded-click",
      claims: [{ clickId, witnesses: ["pixel"] }],
    });
  });

  it("a late checkout report reopens an unattributed order once: judged with a report already, it stays", async () => {
    const shop = await newShop();
    const visitor = clientId();
    const { payload } = await orderCheckedOut(visitor, { shop, capture: "none" });
    await w.runOnce();
    expect(await verificationOf(shop, payload.id)).toMatchObject({ outcome: "unattributed" });
    await checkedOut(shop, visitor, payload.id);
    expect(await verificationOf(shop, payload.id)).toMatchObject({ outcome: "unattributed", job: { state: "done" } });
  });

  it("another visitor's landings do not attribute an order the pixel reported for its own visitor", async () => {
    const shop = await newShop();
    await pixelLanding(shop, clientId(), ["alice-20"]);
    const { payload } = await orderCheckedOut(clientId(), { shop, capture: "none" });
    await w.runOnce();
    expect(await verificationOf(shop, payload.id)).toMatchObject({ outcome: "unattributed" });
  });
});

/** The day as the dashboard writes it for a shop in UTC with an en-US reader. */
function utcDay(at: Date): string {
  return new Intl.DateTimeFormat("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" }).format(
    at,
  );
}
