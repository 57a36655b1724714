import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { approveDueCommissions } from "../../app/commissions/approval.server";
import { payableBalances } from "../../app/commissions/payable-balances.server";
import { decideContest } from "../../app/commissions/review.server";
import { databaseClient } from "../../app/database/db.server";
import { getDashboard } from "../../app/dashboard/dashboard.server";
import { getOrderDetail } from "../../app/dashboard/order-detail.server";
import { placeOrder, refundOrder, useHarness, verificationOf, type Harness } from "../support/pipeline-harness";
import { sendTouch } from "../support/touch";

const prisma = databaseClient();

// A contested order (docs/attribution.md): the storefront's reports bound to the order name
// two creators and Shopify recorded no landing page to settle it. Its commission waits in status
// review, nothing approves or pays it, and the merchant's decision moves it: real orders through
// the app's webhook route and the real worker, on a real database (SQLite, and PostgreSQL in
// the "postgresql" project).

const suite = useHarness("contest");
const { newShop, startWorker } = suite;
let h: Harness;
beforeAll(() => {
  h = suite.h;
});

/** An order whose cart the embed reported with alice's click, then a script with bob's: held for review. */
async function contestedOrder(shop: string, subtotal = "100.00") {
  const w = startWorker();
  const alice = h.clicks.addClick({ expectedTag: "alice-20", creatorId: "cr_alice" });
  const bob = h.clicks.addClick({ expectedTag: "bob-10", creatorId: "cr_bob" });
  const cartToken = `c1-${randomBytes(10).toString("hex")}`;
  expect((await sendTouch(h.app.url, shop, { clickId: alice.clickId, tag: "alice-20", cartToken })).status).toBe(202);
  await new Promise((resolve) => setTimeout(resolve, 5)); // a later touch, not the same millisecond
  expect((await sendTouch(h.app.url, shop, { clickId: bob.clickId, tag: "bob-10", cartToken })).status).toBe(202);
  await w.runOnce(); // both clicks' lookups
  const { payload } = await placeOrder(h, {
    shop,
    clickId: bob.clickId,
    arrivedTag: "bob-10",
    cartToken,
    subtotal,
    landingSite: null,
  });
  await w.runOnce();
  return { w, payload, alice: alice.clickId, bob: bob.clickId, v: await verificationOf(shop, payload.id) };
}

describe("a contested order", () => {
  it("is held in review: verified on the first click, never approved or payable while it stands, listed for the merchant", async () => {
    const shop = await newShop({ holdDays: 0 });
    const { v, alice, bob } = await contestedOrder(shop);
    expect(v).toMatchObject({ outcome: "matched", clickId: alice, creatorId: "cr_alice" });
    expect(v.commission).toMatchObject({ creatorId: "cr_alice", status: "review", amount: "10.00", approvedAt: null });
    expect(JSON.parse(v.contest!)).toEqual({
      reason: "creators-differ",
      claims: [
        expect.objectContaining({
          clickId: alice,
          creatorId: "cr_alice",
          witnesses: ["landing"],
          arrivedTag: "alice-20",
        }),
        expect.objectContaining({ clickId: bob, creatorId: "cr_bob", witnesses: ["landing", "cart_attributes"] }),
      ],
    });
    // A hold of 0 days would approve a pending record at once; a record in review waits.
    await approveDueCommissions(new Date(Date.now() + 86_400_000));
    expect((await verificationOf(shop, v.orderId)).commission?.status).toBe("review");
    expect(await payableBalances(shop)).toEqual([]);
    const dashboard = await getDashboard(shop, 7);
    expect(dashboard.inReview).toEqual({
      count: 1,
      orders: [{ id: v.id, orderId: v.orderId, orderName: v.orderName, createdAt: expect.any(String) }],
    });
    const detail = (await getOrderDetail(shop, v.id))!;
    expect(detail.contest).toMatchObject({
      reason: "creators-differ",
      open: true,
      decision: null,
      claims: [
        { clickId: alice, creatorNow: "cr_alice" },
        { clickId: bob, creatorNow: "cr_bob" },
      ],
    });
  });

  it("credited to another claim: moves to that creator at that creator's rate, net of a refund applied while in review", async () => {
    const shop = await newShop({ holdDays: 0, creatorRates: { cr_bob: "20" } });
    const { w, v, payload, bob } = await contestedOrder(shop);
    await refundOrder(h, shop, payload, { subtotal: "25.00" });
    await w.runOnce();
    expect((await verificationOf(shop, payload.id)).commission).toMatchObject({ status: "review", amount: "7.50" });

    const at = new Date(Date.now() + 1_000);
    expect(await decideContest(shop, v.id, { clickId: bob, by: "staff-7" }, at)).toEqual({
      ok: true,
      creatorId: "cr_bob",
      status: "approved",
      amount: "15.00",
      currency: "USD",
    });
    const after = await verificationOf(shop, payload.id);
    // 20% of the 75.00 left after the refund; the hold (0 days) is over: approved at once.
    expect(after.commission).toMatchObject({
      creatorId: "cr_bob",
      expectedTag: "bob-10",
      arrivedTag: "bob-10",
      rate: "20",
      amount: "15.00",
      status: "approved",
      redirected: false,
    });
    const entries = await prisma.commissionEntry.findMany({
      where: { commissionId: after.commission!.id },
      orderBy: [{ createdAt: "asc" }],
    });
    expect(entries.map((e) => [e.kind, e.amount])).toEqual([
      ["credit", "10.00"],
      ["refund", "-2.50"],
      ["review", "7.50"],
    ]);
    expect(JSON.parse(after.contest!).decision).toEqual({
      clickId: bob,
      creatorId: "cr_bob",
      by: "staff-7",
      at: at.toISOString(),
    });
    expect(await payableBalances(shop)).toMatchObject([{ creatorId: "cr_bob", balance: "USD 15.00" }]);
    expect((await getDashboard(shop, 7)).inReview.count).toBe(0);
    // A later refund is pro-rated on the new creator's credit (20% of 100.00): another 25.00 back takes 5.00.
    await refundOrder(h, shop, payload, { subtotal: "25.00" });
    await w.runOnce();
    expect((await verificationOf(shop, payload.id)).commission).toMatchObject({ amount: "10.00" });
    // Decided once: a second decision is refused and changes nothing.
    expect(await decideContest(shop, v.id, { clickId: null, by: "staff-8" })).toEqual({ ok: false, error: "decided" });
  });

  it("credited to nobody: reversed with a review entry; a claim the order never had, or an order not contested, is refused", async () => {
    const shop = await newShop();
    const { v } = await contestedOrder(shop, "40.00");
    expect(await decideContest(shop, v.id, { clickId: "clk-never-claimed", by: null })).toEqual({
      ok: false,
      error: "unknown-claim",
    });
    expect(await decideContest(shop, v.orderId, { clickId: null, by: null })).toMatchObject({
      ok: true,
      creatorId: null,
      status: "reversed",
      amount: "0.00",
    });
    const after = await verificationOf(shop, v.orderId);
    expect(after.commission).toMatchObject({ status: "reversed", amount: "0.00", amountMinor: 0n });
    const [, review] = await prisma.commissionEntry.findMany({
      where: { commissionId: after.commission!.id },
      orderBy: [{ createdAt: "asc" }],
    });
    expect(review).toMatchObject({ kind: "review", amount: "-4.00" });

    const plain = await placeOrder(h, { shop });
    await startWorker().runOnce();
    expect(await decideContest(shop, String(plain.payload.id), { clickId: null, by: null })).toEqual({
      ok: false,
      error: "not-contested",
    });
    // Another shop's order is not found, whatever its id.
    expect(await decideContest(await newShop(), v.id, { clickId: null, by: null })).toEqual({
      ok: false,
      error: "not-found",
    });
  });
});
