import { afterAll, describe, expect, it } from "vitest";
import { startShopifyStandin } from "../../sandbox/shopify/server";
import { addCredit, addCustomer, payoutState } from "../../sandbox/shopify/payouts";
import { creator, payoutRunner, record } from "../support/paypal-runs";
import { standinAdmin } from "../support/standin-admin";

// Store credit and gift card payouts end to end on the database (SQLite and PostgreSQL) against
// the Shopify stand-in over HTTP, every document validated against the Admin schema: the intent
// written before Shopify hears of it, one credit or gift card whatever fails on the way (an
// answer lost after Shopify acted, a 5xx before it did), an ambiguous trace left to the merchant,
// refusals that give the records back, and another currency never paid.

const shopify = await startShopifyStandin();
const { databaseClient } = await import("../../app/database/db.server");
const { payableBalances } = await import("../../app/commissions/payable-balances.server");
const { saveMethod } = await import("../../app/payouts/payout-settings.server");
const { startSentRun } = await import("../../app/payouts/run-intent.server");
const { payoutRows } = await import("../../app/commissions/payout-history.server");
const { paypalAction } = await import("../../app/payouts/payouts-page.server");
const { resolveChecked, waitingPayoutIds } = await import("../../app/payouts/checked.server");

const prisma = databaseClient();
const ALL_SCOPES = [
  "read_customers",
  "write_customers",
  "read_store_credit_account_transactions",
  "write_store_credit_account_transactions",
  "read_gift_cards",
  "write_gift_cards",
];
const scopes = new Map<string, string[]>();
const runner = await payoutRunner({
  shopifyAdmin: standinAdmin(
    () => shopify,
    (shop) => scopes.get(shop) ?? ALL_SCOPES,
  ),
});

afterAll(async () => {
  await runner.stop();
  await shopify.close();
});

let shops = 0;
async function shopPaying(method: "store_credit" | "gift_card", options: { createCustomers?: boolean } = {}) {
  const shop = `shopify-payouts-${++shops}.myshopify.com`;
  await prisma.shopProfile.create({
    data: { shop, ianaTimezone: "UTC", currencyCode: "USD", readAt: new Date() },
  });
  const createCustomers = options.createCustomers ? "on" : "off";
  expect(await saveMethod(shop, { creatorId: "", method, createCustomers })).toEqual({ ok: true });
  return { shop, state: payoutState(shopify.store.shop(shop)) };
}

let forms = 0;
const start = async (shop: string, method: "store_credit" | "gift_card") =>
  startSentRun(shop, method, {
    idempotencyKey: `shopify-form-${++forms}`,
    balances: (await payableBalances(shop))
      .filter((b) => b.payable)
      .map((b) => ({ key: b.key, shownMinor: b.balanceMinor })),
  });
const statuses = async (shop: string) =>
  (await prisma.commission.findMany({ where: { shop }, orderBy: { orderId: "asc" } })).map((c) => c.status);
const runOf = (shop: string) => prisma.payoutRun.findFirstOrThrow({ where: { shop } });
const payoutOf = (shop: string) => prisma.payout.findFirstOrThrow({ where: { shop } });

afterAll(() => {
  // Every document the app sent is the Admin schema's.
  expect(shopify.validationFailures()).toEqual([]);
});

describe("a store credit payout", () => {
  it("writes its intent first, credits the creator's account once in the shop's currency, and pays the records", async () => {
    const { shop, state } = await shopPaying("store_credit");
    const customer = addCustomer(shopify.store.shop(shop), "ana@creators.test");
    await creator(shop, "cr_ana", "ana@creators.test");
    await record(shop, "cr_ana", "USD", 1250n);
    await record(shop, "cr_ana", "USD", 300n);
    expect(await start(shop, "store_credit")).toMatchObject({ ok: true, lines: 1 });
    expect(await statuses(shop)).toEqual(["paying", "paying"]);
    expect((await runOf(shop)).state).toBe("intent");
    expect(state.credits).toEqual([]);

    await runner.work();
    expect(state.credits).toMatchObject([{ customerGid: customer, amount: "15.50", currency: "USD", notified: true }]);
    expect(await statuses(shop)).toEqual(["paid", "paid"]);
    const payout = await payoutOf(shop);
    expect(payout).toMatchObject({
      method: "store_credit",
      providerItemId: state.credits[0]!.gid,
      providerStatus: "PAID",
    });
    expect((await runOf(shop)).state).toBe("settled");
    // The payout's report names Shopify's transaction as its provider id.
    expect((await payoutRows(shop, payout.id))?.rows).toMatchObject([
      { creatorId: "cr_ana", amount: "15.50", method: "store_credit", providerId: state.credits[0]!.gid },
    ]);
    await runner.work();
    expect(state.credits).toHaveLength(1);
  });

  it("finds the credit whose answer was lost after Shopify made it, and never credits twice", async () => {
    const { shop, state } = await shopPaying("store_credit");
    addCustomer(shopify.store.shop(shop), "bo@creators.test");
    await creator(shop, "cr_bo", "bo@creators.test");
    const earlier = addCredit(shopify.store.shop(shop), state.customers[0]!.gid, "3.00", "USD", "2026-11-01T00:00:00Z");
    await record(shop, "cr_bo", "USD", 800n);
    await start(shop, "store_credit");
    shopify.faults({ loseAnswer: 1, operation: "TagGuardPayoutStoreCredit" });
    await runner.runOnce();
    expect(state.credits).toHaveLength(2);
    // Shopify credited it; the app does not know yet, so nothing is marked paid.
    expect(await statuses(shop)).toEqual(["paying"]);
    expect(await payoutOf(shop)).toMatchObject({ providerStatus: "SENDING", providerMark: earlier.gid });

    await runner.work();
    expect(state.credits).toHaveLength(2);
    expect(await statuses(shop)).toEqual(["paid"]);
    expect((await payoutOf(shop)).providerItemId).toBe(state.credits[1]!.gid);
  });

  it("sends again when the look finds that a failed attempt made nothing", async () => {
    const { shop, state } = await shopPaying("store_credit");
    addCustomer(shopify.store.shop(shop), "cy@creators.test");
    await creator(shop, "cr_cy", "cy@creators.test");
    await record(shop, "cr_cy", "USD", 500n);
    await start(shop, "store_credit");
    shopify.faults({ serverError: 1, operation: "TagGuardPayoutStoreCredit" });
    await runner.runOnce();
    expect(state.credits).toEqual([]);
    expect(await statuses(shop)).toEqual(["paying"]);

    await runner.work();
    expect(state.credits).toMatchObject([{ amount: "5.00" }]);
    expect(await statuses(shop)).toEqual(["paid"]);
  });

  it("leaves the records paying and the run to the merchant when Shopify shows two credits that could be it", async () => {
    const { shop, state } = await shopPaying("store_credit");
    const customer = addCustomer(shopify.store.shop(shop), "di@creators.test");
    await creator(shop, "cr_di", "di@creators.test");
    await record(shop, "cr_di", "USD", 700n);
    await start(shop, "store_credit");
    shopify.faults({ loseAnswer: 1, operation: "TagGuardPayoutStoreCredit" });
    await runner.runOnce();
    // The merchant credits the same amount by hand meanwhile.
    addCredit(shopify.store.shop(shop), customer, "7.00", "USD", new Date().toISOString());

    await runner.work();
    expect(state.credits).toHaveLength(2);
    expect(await statuses(shop)).toEqual(["paying"]);
    expect(await runOf(shop)).toMatchObject({ state: "check" });
    expect((await payoutOf(shop)).providerStatus).toBe("CHECK");
  });

  it("waits for the merchant's word on a parked line: paid with the id they found, or payable again, once", async () => {
    const parkedShop = async (creatorId: string, email: string, amountMinor: bigint) => {
      const { shop } = await shopPaying("store_credit");
      const customer = addCustomer(shopify.store.shop(shop), email);
      await creator(shop, creatorId, email);
      await record(shop, creatorId, "USD", amountMinor);
      await start(shop, "store_credit");
      shopify.faults({ loseAnswer: 1, operation: "TagGuardPayoutStoreCredit" });
      await runner.runOnce();
      addCredit(
        shopify.store.shop(shop),
        customer,
        (Number(amountMinor) / 100).toFixed(2),
        "USD",
        new Date().toISOString(),
      );
      await runner.work();
      const payout = await payoutOf(shop);
      expect(await waitingPayoutIds(shop, [payout.id])).toEqual([payout.id]);
      return { shop, payout };
    };

    const found = await parkedShop("cr_fa", "fa@creators.test", 400n);
    expect(await resolveChecked(found.shop, { payoutId: found.payout.id, found: "paid" }, "42")).toMatchObject({
      ok: false,
      status: 400,
    });
    expect(await statuses(found.shop)).toEqual(["paying"]);
    expect(
      await resolveChecked(
        found.shop,
        { payoutId: found.payout.id, found: "paid", providerId: "gid://shopify/StoreCreditAccountCreditTransaction/9" },
        "42",
      ),
    ).toEqual({ intent: "checked", ok: true, payoutId: found.payout.id, found: "paid" });
    expect(await statuses(found.shop)).toEqual(["paid"]);
    expect(await payoutOf(found.shop)).toMatchObject({
      providerStatus: "CONFIRMED",
      providerItemId: "gid://shopify/StoreCreditAccountCreditTransaction/9",
      checkedBy: "42",
      voidedAt: null,
    });
    expect(await runOf(found.shop)).toMatchObject({ state: "settled" });
    expect(await waitingPayoutIds(found.shop, [found.payout.id])).toEqual([]);
    // Saying it again, either way, changes nothing.
    for (const again of ["paid", "unpaid"])
      expect(
        await resolveChecked(found.shop, { payoutId: found.payout.id, found: again, providerId: "x-1" }, "43"),
      ).toMatchObject({ ok: false, status: 409 });
    expect(await statuses(found.shop)).toEqual(["paid"]);

    const none = await parkedShop("cr_fb", "fb@creators.test", 600n);
    expect(await resolveChecked(none.shop, { payoutId: none.payout.id, found: "unpaid" }, null)).toMatchObject({
      ok: true,
      found: "unpaid",
    });
    expect(await statuses(none.shop)).toEqual(["approved"]);
    expect((await payableBalances(none.shop)).filter((b) => b.payable)).toMatchObject([
      { creatorId: "cr_fb", balanceMinor: "600" },
    ]);
    expect(await payoutOf(none.shop)).toMatchObject({
      providerStatus: "NOT_FOUND",
      voidReason: "You found no payment: payable again.",
    });
    expect(await runOf(none.shop)).toMatchObject({ state: "settled" });
    // Another shop's payout, or none: not found.
    expect(await resolveChecked(found.shop, { payoutId: none.payout.id, found: "unpaid" }, null)).toMatchObject({
      ok: false,
      status: 404,
    });
    expect(await resolveChecked(found.shop, { payoutId: "", found: "maybe" }, null)).toMatchObject({
      ok: false,
      status: 400,
    });
  });

  it("refuses the merchant's word on a payout that does not wait for it", async () => {
    const { shop } = await shopPaying("store_credit");
    addCustomer(shopify.store.shop(shop), "fc@creators.test");
    await creator(shop, "cr_fc", "fc@creators.test");
    await record(shop, "cr_fc", "USD", 300n);
    await start(shop, "store_credit");
    // Still sending: Shopify has not answered yet.
    const sending = await payoutOf(shop);
    expect(await resolveChecked(shop, { payoutId: sending.id, found: "unpaid" }, null)).toMatchObject({ status: 409 });
    await runner.work();
    expect(await statuses(shop)).toEqual(["paid"]);
    expect(await resolveChecked(shop, { payoutId: sending.id, found: "unpaid" }, null)).toMatchObject({ status: 409 });
    expect(await statuses(shop)).toEqual(["paid"]);
  });

  it("gives the records back when no customer has the creator's email and creating one is off", async () => {
    const { shop, state } = await shopPaying("store_credit");
    await creator(shop, "cr_ed", "ed@creators.test");
    await record(shop, "cr_ed", "USD", 900n);
    await start(shop, "store_credit");
    await runner.work();
    expect(state.credits).toEqual([]);
    expect(state.customers).toEqual([]);
    expect(await statuses(shop)).toEqual(["approved"]);
    expect((await payoutOf(shop)).voidReason).toMatch(/No customer account/);
    expect((await payableBalances(shop)).filter((b) => b.payable)).toHaveLength(1);
  });

  it("gives the records back when Shopify refuses the credit for a missing scope", async () => {
    const { shop, state } = await shopPaying("store_credit");
    scopes.set(shop, ["read_customers", "read_store_credit_account_transactions"]);
    addCustomer(shopify.store.shop(shop), "fa@creators.test");
    await creator(shop, "cr_fa", "fa@creators.test");
    await record(shop, "cr_fa", "USD", 400n);
    await start(shop, "store_credit");
    await runner.work();
    expect(state.credits).toEqual([]);
    expect(await statuses(shop)).toEqual(["approved"]);
    expect((await payoutOf(shop)).voidReason).toMatch(/write_store_credit_account_transactions/);
  });

  it("lists a balance in another currency apart with the reason, and never converts it", async () => {
    const { shop } = await shopPaying("store_credit");
    await creator(shop, "cr_gu", "gu@creators.test");
    await record(shop, "cr_gu", "EUR", 1000n);
    const started = await start(shop, "store_credit");
    expect(started).toMatchObject({ ok: false, errors: { balances: expect.stringContaining("cr_gu (EUR)") } });
    expect(await statuses(shop)).toEqual(["approved"]);
    expect(await prisma.payoutRun.count({ where: { shop } })).toBe(0);
  });

  it("is started from the page's form by its method, and a form naming no Shopify method starts nothing", async () => {
    const { shop } = await shopPaying("store_credit");
    addCustomer(shopify.store.shop(shop), "ida@creators.test");
    await creator(shop, "cr_ida", "ida@creators.test");
    await record(shop, "cr_ida", "USD", 600n);
    const [balance] = await payableBalances(shop);
    const form = (method: string) => {
      const data = new FormData();
      for (const [name, value] of Object.entries({ intent: "shopify-run", method, formToken: `page-${method}-token` }))
        data.set(name, value);
      data.set("balance", balance!.key);
      data.set(`shown:${balance!.key}`, balance!.balanceMinor);
      return data;
    };
    expect(await paypalAction(shop, form("paypal"), "en")).toMatchObject({ ok: false });
    expect(await prisma.payoutRun.count({ where: { shop } })).toBe(0);
    expect(await paypalAction(shop, form("store_credit"), "en")).toMatchObject({
      intent: "shopify-run",
      method: "store_credit",
      ok: true,
      lines: 1,
    });
    expect(await runOf(shop)).toMatchObject({ method: "store_credit", environment: "shopify:USD" });
  });
});

describe("a gift card payout", () => {
  it("creates the customer when allowed, has Shopify send the card, and never holds its code", async () => {
    const { shop, state } = await shopPaying("gift_card", { createCustomers: true });
    await creator(shop, "cr_hu", "hu@creators.test");
    await record(shop, "cr_hu", "USD", 2500n);
    await start(shop, "gift_card");
    shopify.faults({ loseAnswer: 1, operation: "TagGuardPayoutGiftCardCreate" });
    await runner.runOnce();
    expect(state.giftCards).toHaveLength(1);
    expect(await statuses(shop)).toEqual(["paying"]);

    await runner.work();
    expect(state.customers).toMatchObject([{ email: "hu@creators.test" }]);
    expect(state.giftCards).toHaveLength(1);
    const [card] = state.giftCards;
    expect(card).toMatchObject({ amount: "25.00", currency: "USD", recipientGid: state.customers[0]!.gid });
    const payout = await payoutOf(shop);
    expect(card!.note).toContain(payout.id);
    expect(payout).toMatchObject({ providerItemId: card!.gid, providerStatus: "PAID" });
    expect((await payoutRows(shop, payout.id))?.rows).toMatchObject([{ method: "gift_card", providerId: card!.gid }]);
    expect(await statuses(shop)).toEqual(["paid"]);
    // The code never reached the app: never asked for, never stored.
    const sent = shopify.requests().filter((r) => r.operationName === "TagGuardPayoutGiftCardCreate");
    expect(sent.length).toBeGreaterThan(0);
    for (const request of sent) expect(request.query).not.toMatch(/giftCardCode|maskedCode|lastCharacters/);
    const stored = JSON.stringify(
      await Promise.all([prisma.payout.findMany({ where: { shop } }), prisma.payoutRun.findMany({ where: { shop } })]),
      (_, value: unknown) => (typeof value === "bigint" ? String(value) : value),
    );
    expect(stored).not.toContain(card!.code);
  });
});
