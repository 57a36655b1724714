import { randomBytes } from "node:crypto";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { JobRunner } from "../../app/queue/runner.server";
import { approveDueCommissions } from "../../app/commissions/approval.server";
import { payableBalances } from "../../app/commissions/payable-balances.server";
import { recordPayout } from "../../app/commissions/payouts.server";
import { decideCreator, undoDecision } from "../../app/creators/decisions.server";
import { databaseClient } from "../../app/database/db.server";
import { placeOrder, runOrderToEnd, useHarness, verificationOf, type Harness } from "../support/pipeline-harness";
import { sendTouch } from "../support/touch";

const prisma = databaseClient();

// A hijacker's creator account, caught across orders and decided on once (docs/commissions.md,
// "Suspected creators"): real orders through the app's webhook route and the real worker, on a
// real database (SQLite, and PostgreSQL in the "postgresql" project). The attacker's clicks are
// planted in the cart's attributes behind alice's landing: each order goes to alice and names the
// attacker without a page landing; two such orders make the account suspected, and its own wins
// (a landing it rewrote) wait while the merchant decides.

const suite = useHarness("creator-decisions");
const { newShop, startWorker } = suite;
let h: Harness;
beforeAll(() => {
  h = suite.h;
});
// One worker a test: another would be woken by the same orders and hold their jobs.
let worker: JobRunner | null = null;
beforeEach(() => {
  worker = null;
});
const theWorker = () => (worker ??= startWorker());

const DAY = 86_400_000;

/** A click of the attacker's the app learned of (a pixel report's lookup), as lookup-click wrote it. */
async function attackerClick(shop: string): Promise<string> {
  const click = h.clicks.addClick({ expectedTag: "coupons-99", creatorId: "cr_attacker" });
  await prisma.clickRecord.create({
    data: {
      id: `att-${randomBytes(6).toString("hex")}`,
      shop,
      clickId: click.clickId,
      state: "known",
      creatorId: "cr_attacker",
      expectedTag: "coupons-99",
      clickedAt: new Date(),
      lookedUpAt: new Date(),
      firstSeenAt: new Date(),
    },
  });
  return click.clickId;
}

/**
 * An order `first` landed on (its touch, Shopify's landing page) and whose cart names `planted`,
 * a click no page landed with: the first click is credited, the planted one's creator claimed.
 */
async function plantedOrder(shop: string, first: { creatorId: string; tag: string }, planted: string) {
  const w = theWorker();
  const click = h.clicks.addClick({ expectedTag: first.tag, creatorId: first.creatorId });
  const cartToken = `c-${randomBytes(8).toString("hex")}`;
  expect((await sendTouch(h.app.url, shop, { clickId: click.clickId, tag: first.tag, cartToken })).status).toBe(202);
  await w.runOnce();
  const { payload } = await placeOrder(h, {
    shop,
    clickId: planted,
    arrivedTag: "coupons-99",
    cartToken,
    landingSite: `/?lb_click=${click.clickId}&tag=${first.tag}`,
  });
  return runOrderToEnd(h, w, shop, payload.id);
}

/**
 * An order whose cart the storefront reported with `touches` (in that order), its cart naming
 * the attacker's `clickId`: only the attacker's click (a landing request it rewrote) credits the
 * attacker; the attacker's first and alice's after it credits the attacker too, alice's claim
 * standing down.
 */
async function attackerOrder(
  shop: string,
  clickId: string,
  touches: { clickId: string; tag: string }[],
  landingSite: string | null = `/?lb_click=${clickId}&tag=coupons-99`,
) {
  const w = theWorker();
  const cartToken = `c-${randomBytes(8).toString("hex")}`;
  for (const touch of touches) {
    expect((await sendTouch(h.app.url, shop, { ...touch, cartToken })).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 5)); // the next touch, not the same millisecond
  }
  await w.runOnce();
  const { payload } = await placeOrder(h, {
    shop,
    clickId,
    expectedTag: "coupons-99",
    arrivedTag: "coupons-99",
    cartToken,
    landingSite,
  });
  return runOrderToEnd(h, w, shop, payload.id);
}

const rewrittenOrder = (shop: string, clickId: string) =>
  attackerOrder(shop, clickId, [{ clickId, tag: "coupons-99" }]);

const attackerFirstOrder = (shop: string, clickId: string, landingSite?: null) =>
  attackerOrder(
    shop,
    clickId,
    [
      { clickId, tag: "coupons-99" },
      { clickId: h.clicks.addClick({ expectedTag: "alice-20", creatorId: "cr_alice" }).clickId, tag: "alice-20" },
    ],
    landingSite,
  );

const standingOf = (shop: string) =>
  prisma.creatorStanding.findUnique({ where: { shop_creatorId: { shop, creatorId: "cr_attacker" } } });

/** A shop whose attacker account is suspected: two planted orders, then one it won. */
async function suspectedShop(holdDays = 3) {
  const shop = await newShop({ holdDays });
  const alice = { creatorId: "cr_alice", tag: "alice-20" };
  const one = await plantedOrder(shop, alice, await attackerClick(shop));
  expect(one.commission).toMatchObject({ creatorId: "cr_alice" });
  expect(await standingOf(shop)).toBeNull();
  await plantedOrder(shop, alice, await attackerClick(shop));
  const won = await rewrittenOrder(shop, await attackerClick(shop));
  expect(won.commission).toMatchObject({
    creatorId: "cr_attacker",
    // A hold of 0 days starts it approved; approved or not, a held creator's record is paid by no payout.
    status: holdDays > 0 ? "pending" : "approved",
  });
  return { shop, won };
}

const payoutForm = (key: string, shownMinor: string) => ({
  idempotencyKey: `payout-${randomBytes(6).toString("hex")}`,
  reference: "Wire 1",
  paidOn: "2026-12-06",
  balances: [{ key, shownMinor }],
});

describe("a suspected creator", () => {
  it("is suspected on the second marked claim, with why; its own win waits out of approval and payouts", async () => {
    const { shop, won } = await suspectedShop();
    const claims = await prisma.creatorClaim.findMany({ where: { shop }, orderBy: { orderAt: "asc" } });
    expect(claims).toHaveLength(2);
    expect(claims[0]).toMatchObject({ creatorId: "cr_attacker", outcome: "stood-down", tampering: true });
    expect(claims[0]!.signals.split(",")).toContain("not-a-landing");
    const standing = (await standingOf(shop))!;
    expect(standing).toMatchObject({ state: "suspected", suspectedAfterOrders: 2, version: 1 });
    expect(JSON.parse(standing.evidence)).toMatchObject({
      reason: "marked-claims",
      orders: 2,
      claims: 2,
      tampering: 2,
    });

    await approveDueCommissions(new Date(Date.now() + 10 * DAY));
    expect((await verificationOf(shop, won.orderId)).commission?.status).toBe("pending");
    const aliceRecords = await prisma.commission.findMany({ where: { shop, creatorId: "cr_alice" } });
    expect(aliceRecords.map((r) => r.status)).toEqual(["approved", "approved"]);
    const balances = await payableBalances(shop);
    expect(balances.map((b) => [b.creatorId, b.payable, b.held])).toEqual([["cr_alice", true, null]]);
  });

  it("release: paid as credited, and the evidence up to now no longer counts; undo holds it again", async () => {
    const { shop, won } = await suspectedShop();
    expect(await decideCreator(shop, "cr_attacker", { kind: "release", version: 0, by: "staff-1" })).toEqual({
      ok: false,
      error: "changed",
    });
    const released = await decideCreator(shop, "cr_attacker", { kind: "release", version: 1, by: "staff-1" });
    expect(released).toMatchObject({ ok: true, state: "released", moved: 0, reversed: 0 });
    await approveDueCommissions(new Date(Date.now() + 10 * DAY));
    expect((await verificationOf(shop, won.orderId)).commission?.status).toBe("approved");
    const balance = (await payableBalances(shop)).find((b) => b.creatorId === "cr_attacker")!;
    expect(balance).toMatchObject({ payable: true, held: null });
    const decision = await prisma.creatorDecision.findFirstOrThrow({ where: { shop } });
    expect(decision).toMatchObject({ kind: "release", by: "staff-1", undoneAt: null });

    // A third planted claim: newer evidence than the release, not yet enough on its own.
    await plantedOrder(shop, { creatorId: "cr_alice", tag: "alice-20" }, await attackerClick(shop));
    expect(await standingOf(shop)).toMatchObject({ state: "released" });

    expect(await undoDecision(shop, decision.id, "staff-2")).toEqual({ ok: true, state: "suspected", restored: 0 });
    expect(await undoDecision(shop, decision.id, "staff-2")).toEqual({ ok: false, error: "undone" });
    expect((await payableBalances(shop)).find((b) => b.creatorId === "cr_attacker")).toMatchObject({
      payable: false,
      held: "suspected",
    });
    expect(await recordPayout(shop, payoutForm(balance.key, balance.balanceMinor))).toEqual({
      ok: false,
      errors: { balances: expect.stringContaining("cr_attacker's commissions are held") },
    });
  });

  it("reverse: each unpaid record goes to the order's rightful claim or is reversed, as ledger entries; undo puts them back", async () => {
    const { shop, won } = await suspectedShop();
    const contested = await attackerFirstOrder(shop, await attackerClick(shop));
    expect(contested.commission).toMatchObject({ creatorId: "cr_attacker" });
    const version = (await standingOf(shop))!.version;
    const result = await decideCreator(shop, "cr_attacker", { kind: "reverse", version, by: "staff-1" });
    expect(result).toMatchObject({ ok: true, state: "reversed", moved: 1, reversed: 1 });
    const after = await prisma.commission.findMany({
      where: { shop, orderId: { in: [won.orderId, contested.orderId] } },
      include: { entries: true },
    });
    const wonAfter = after.find((r) => r.orderId === won.orderId)!;
    const movedAfter = after.find((r) => r.orderId === contested.orderId)!;
    expect(wonAfter).toMatchObject({ creatorId: "cr_attacker", status: "reversed", amount: "0.00" });
    expect(movedAfter).toMatchObject({ creatorId: "cr_alice", expectedTag: "alice-20", status: "pending" });
    expect(movedAfter.amount).toBe("12.00"); // 120.00 at the shop's 10 %
    expect(wonAfter.entries.map((e) => [e.kind, e.amount])).toEqual([
      ["credit", "12.00"],
      ["creator_decision", "-12.00"],
    ]);

    const decision = await prisma.creatorDecision.findFirstOrThrow({ where: { shop } });
    expect(await undoDecision(shop, decision.id, null)).toEqual({ ok: true, state: "suspected", restored: 2 });
    const undone = await prisma.commission.findMany({
      where: { shop, orderId: { in: [won.orderId, contested.orderId] } },
    });
    for (const record of undone) expect(record).toMatchObject({ creatorId: "cr_attacker", status: "pending" });
    expect(undone.map((r) => r.amount)).toEqual(["12.00", "12.00"]);
  });

  it("block: reversed, and its later claim never takes an order; the order says why", async () => {
    const { shop, won } = await suspectedShop();
    const version = (await standingOf(shop))!.version;
    expect(await decideCreator(shop, "cr_attacker", { kind: "block", version, by: null })).toMatchObject({
      ok: true,
      state: "blocked",
    });
    expect((await verificationOf(shop, won.orderId)).commission).toMatchObject({ status: "reversed" });
    const later = await attackerFirstOrder(shop, await attackerClick(shop));
    expect(later.commission).toMatchObject({ creatorId: "cr_alice" });
    expect(JSON.parse(later.tamperEvidence!).findings.join(" ")).toContain("its creator is blocked by the merchant");
    expect(await decideCreator(shop, "cr_attacker", { kind: "release", version: version + 1, by: null })).toEqual({
      ok: false,
      error: "not-decidable",
    });
  });

  it("settles the contests it is in: those waiting when it is suspected, and those after, without the merchant", async () => {
    const shop = await newShop({ holdDays: 3 });
    // Not an online store order (no landing page): two creators' touches are a contest.
    const waiting = await attackerFirstOrder(shop, await attackerClick(shop), null);
    expect(waiting.commission).toMatchObject({ creatorId: "cr_attacker", status: "review" });
    const alice = { creatorId: "cr_alice", tag: "alice-20" };
    await plantedOrder(shop, alice, await attackerClick(shop));
    expect(await standingOf(shop)).toMatchObject({ state: "suspected", suspectedAfterOrders: 2 });
    const settled = await verificationOf(shop, waiting.orderId);
    expect(settled.commission).toMatchObject({ creatorId: "cr_alice", status: "pending", amount: "12.00" });
    expect(JSON.parse(settled.contest!).decision).toMatchObject({
      creatorId: "cr_alice",
      by: null,
      settledBy: "creator-suspected",
    });
    const entries = await prisma.commissionEntry.findMany({ where: { commissionId: settled.commission!.id } });
    expect(entries.map((e) => e.kind).sort()).toEqual(["credit", "review"]);

    const after = await attackerFirstOrder(shop, await attackerClick(shop), null);
    expect(after.contest).toBeNull();
    expect(after.commission).toMatchObject({ creatorId: "cr_alice", status: "pending" });
    expect(JSON.parse(after.tamperEvidence!).findings.join(" ")).toContain(
      "its creator is suspected of hijacking orders, and it was contested",
    );
  });

  it("a contested order whose own claims suspect the creator is settled as soon as its record is credited", async () => {
    const shop = await newShop({ holdDays: 3 });
    await plantedOrder(shop, { creatorId: "cr_alice", tag: "alice-20" }, await attackerClick(shop));
    expect(await standingOf(shop)).toBeNull();
    const contested = await attackerFirstOrder(shop, await attackerClick(shop), null);
    expect(await standingOf(shop)).toMatchObject({ state: "suspected", suspectedAfterOrders: 2 });
    expect(contested.commission).toMatchObject({ creatorId: "cr_alice", status: "pending" });
    expect(JSON.parse(contested.contest!).decision).toMatchObject({ settledBy: "creator-suspected" });
  });

  it("two decisions made on one view: one wins", async () => {
    const { shop } = await suspectedShop();
    const results = await Promise.all([
      decideCreator(shop, "cr_attacker", { kind: "release", version: 1, by: "a" }),
      decideCreator(shop, "cr_attacker", { kind: "reverse", version: 1, by: "b" }),
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toEqual([{ ok: false, error: "changed" }]);
    expect(await prisma.creatorDecision.count({ where: { shop } })).toBe(1);
  });

  it("a decision racing a payout: no record is both paid and reversed, and the payout pays only what it marked", async () => {
    const { shop } = await suspectedShop(0);
    await decideCreator(shop, "cr_attacker", { kind: "release", version: 1, by: null });
    await approveDueCommissions(new Date(Date.now() + DAY));
    const balance = (await payableBalances(shop)).find((b) => b.creatorId === "cr_attacker")!;
    const [paid, blocked] = await Promise.all([
      recordPayout(shop, payoutForm(balance.key, balance.balanceMinor)),
      decideCreator(shop, "cr_attacker", { kind: "block", version: 2, by: null }),
    ]);
    expect(blocked.ok).toBe(true);
    const records = await prisma.commission.findMany({ where: { shop, creatorId: "cr_attacker" } });
    const lines = await prisma.payoutLine.findMany({ where: { payout: { shop } } });
    if (paid.ok) {
      // The payout went first: the block found nothing unpaid.
      expect(records.map((r) => r.status)).toEqual(["paid"]);
      expect(lines.map((l) => l.amount)).toEqual(["12.00"]);
    } else {
      expect(records.map((r) => r.status)).toEqual(["reversed"]);
      expect(lines).toEqual([]);
    }
    // Undo is refused once a record the decision moved has been paid since; here it moved none or
    // reversed one nobody can pay, so undo restores the standing.
    const decision = await prisma.creatorDecision.findFirstOrThrow({ where: { shop, kind: "block" } });
    expect(await undoDecision(shop, decision.id, null)).toMatchObject({ ok: true, state: "released" });
  });

  it("undo is refused when a record the decision moved has been paid since", async () => {
    const { shop } = await suspectedShop(0);
    await attackerFirstOrder(shop, await attackerClick(shop));
    const version = (await standingOf(shop))!.version;
    await decideCreator(shop, "cr_attacker", { kind: "reverse", version, by: null });
    const alice = (await payableBalances(shop)).find((b) => b.creatorId === "cr_alice")!;
    expect(await recordPayout(shop, payoutForm(alice.key, alice.balanceMinor))).toMatchObject({ ok: true });
    const decision = await prisma.creatorDecision.findFirstOrThrow({ where: { shop } });
    expect(await undoDecision(shop, decision.id, null)).toEqual({ ok: false, error: "paid-since", paid: 1 });
  });
});
