import { afterAll, describe, expect, it } from "vitest";
import { startPaypalStandin } from "../../sandbox/paypal/server";

// A PayPal payout run end to end on the database (SQLite and PostgreSQL) against the PayPal
// stand-in over HTTP: the intent written before the call, the batch sent once whatever fails on
// the way (a 5xx, an answer lost after PayPal accepted), items followed from the batch's details
// and from signed webhooks (sent twice, out of order, forged), and a bounce that makes the
// records payable again.

const paypal = await startPaypalStandin();
process.env.PAYPAL_API_ORIGIN = paypal.url;
const { batchesFor, creator, payoutRunner, record, webhookEndpoint } = await import("../support/paypal-runs");
const { databaseClient } = await import("../../app/database/db.server");
const { payableBalances } = await import("../../app/commissions/payable-balances.server");
const { listPayouts } = await import("../../app/commissions/payout-history.server");
const { savePaypalAccount, saveMethod, payoutSettings } = await import("../../app/payouts/payout-settings.server");
const { startPaypalRun } = await import("../../app/payouts/run-intent.server");
const { receivePaypalWebhook } = await import("../../app/payouts/paypal-webhook.server");
const { dialect } = await import("../../app/database/db.server");
const { insertRows, sql } = await import("../../app/database/sql.server");
const { dueNow } = await import("../../app/queue/queue.server");

const prisma = databaseClient();
const hooks = await webhookEndpoint((shop, request) => receivePaypalWebhook(shop, request));
const runner = await payoutRunner();
const work = runner.work;

afterAll(async () => {
  await runner.stop();
  await hooks.close();
  await paypal.close();
});

let shops = 0;
async function paypalShop(creators: Record<string, string>) {
  const shop = `paypal-runs-${++shops}.myshopify.com`;
  const client = paypal.addClient();
  const webhookId = paypal.registerWebhook(hooks.url(shop), client.clientId);
  expect(
    await savePaypalAccount(shop, {
      environment: "sandbox",
      clientId: client.clientId,
      secret: client.secret,
      webhookId,
    }),
  ).toEqual({ ok: true });
  expect(await saveMethod(shop, { creatorId: "", method: "paypal" })).toEqual({ ok: true });
  for (const [creatorId, email] of Object.entries(creators)) await creator(shop, creatorId, email);
  return { shop, client };
}

const chosen = async (shop: string) =>
  (await payableBalances(shop)).filter((b) => b.payable).map((b) => ({ key: b.key, shownMinor: b.balanceMinor }));
const statuses = async (shop: string) =>
  (await prisma.commission.findMany({ where: { shop }, orderBy: { orderId: "asc" } })).map((c) => c.status);
const runOf = (shop: string) => prisma.payoutRun.findFirstOrThrow({ where: { shop } });

describe("a PayPal payout run", () => {
  it("writes its intent before PayPal hears of it, sends one batch, and pays once PayPal says SUCCESS", async () => {
    const { shop } = await paypalShop({ cr_ana: "ana@creators.test" });
    await record(shop, "cr_ana", "USD", 1250n);
    await record(shop, "cr_ana", "USD", 300n);
    const started = await startPaypalRun(shop, { idempotencyKey: "form-token-one", balances: await chosen(shop) });
    expect(started).toMatchObject({ ok: true, duplicate: false, lines: 1 });
    // The same form again finds the run.
    expect(await startPaypalRun(shop, { idempotencyKey: "form-token-one", balances: [] })).toMatchObject({
      duplicate: true,
    });
    expect(await statuses(shop)).toEqual(["paying", "paying"]);
    expect((await payableBalances(shop)).filter((b) => b.payable)).toEqual([]);
    const run = await runOf(shop);
    expect(run.state).toBe("intent");
    expect(batchesFor(paypal, run.senderBatchId)).toHaveLength(0);

    await work();
    const [batch] = batchesFor(paypal, run.senderBatchId);
    expect(batch!.items).toMatchObject([
      { receiver: "ana@creators.test", value: "15.50", currency: "USD", status: "PENDING" },
    ]);
    expect((await runOf(shop)).state).toBe("sent");
    expect(await statuses(shop)).toEqual(["paying", "paying"]);
    // The Payouts page follows the item: PayPal's id, its status, not settled yet.
    const sent = batch!.items[0]!.payoutItemId;
    expect((await listPayouts(shop)).map((p) => [p.method, p.provider])).toEqual([
      ["paypal", { itemId: sent, status: expect.any(String), settled: false }],
    ]);

    await paypal.advance();
    await expect.poll(() => prisma.paypalEvent.count({ where: { shop } })).toBe(1);
    await work();
    expect(await statuses(shop)).toEqual(["paid", "paid"]);
    expect(await runOf(shop)).toMatchObject({ state: "settled", providerBatchId: batch!.batchId });
    const payout = await prisma.payout.findFirstOrThrow({ where: { shop } });
    expect(payout).toMatchObject({
      method: "paypal",
      providerStatus: "SUCCESS",
      providerItemId: batch!.items[0]!.payoutItemId,
      voidedAt: null,
    });
    expect(batchesFor(paypal, run.senderBatchId)).toHaveLength(1);
    expect((await listPayouts(shop)).map((p) => p.provider)).toEqual([
      { itemId: sent, status: "SUCCESS", settled: true },
    ]);
  });

  it("asks again with the same sender_batch_id after a 5xx and after an answer lost once PayPal accepted: one batch", async () => {
    const { shop } = await paypalShop({ cr_ben: "ben@creators.test" });
    await record(shop, "cr_ben", "EUR", 990n);
    await startPaypalRun(shop, { idempotencyKey: "form-token-two", balances: await chosen(shop) });
    const run = await runOf(shop);
    paypal.faults({ serverErrors: 1 });
    await runner.runOnce();
    expect((await runOf(shop)).state).toBe("unknown");
    paypal.faults({ dropAfterAccept: 1 });
    runner.later(86_400_000);
    await runner.runOnce();
    expect(batchesFor(paypal, run.senderBatchId)).toHaveLength(1);
    expect((await runOf(shop)).state).toBe("unknown");
    await work();
    // PayPal refused the third as a duplicate and named the batch the second created.
    expect(batchesFor(paypal, run.senderBatchId)).toHaveLength(1);
    expect(await runOf(shop)).toMatchObject({
      state: "sent",
      providerBatchId: batchesFor(paypal, run.senderBatchId)[0]!.batchId,
    });
    expect(await statuses(shop)).toEqual(["paying"]);
  });

  it("puts a returned payment back to payable, whatever order its webhooks come in and however often", async () => {
    const { shop } = await paypalShop({ cr_cy: "cy@creators.test" });
    paypal.plan("cy@creators.test", "UNCLAIMED");
    await record(shop, "cr_cy", "USD", 700n);
    await startPaypalRun(shop, { idempotencyKey: "form-token-three", balances: await chosen(shop) });
    await work();
    paypal.faults({ duplicateWebhooks: true, reorderWebhooks: true });
    await paypal.advance();
    await work();
    const payout = () => prisma.payout.findFirstOrThrow({ where: { shop } });
    expect(await payout()).toMatchObject({ providerStatus: "UNCLAIMED", voidedAt: null, settledAt: null });
    expect(await statuses(shop)).toEqual(["paying"]);
    // PayPal returns it after its term: RETURNED is delivered before the UNCLAIMED it follows.
    await paypal.advance({ returnUnclaimed: true });
    await work();
    paypal.faults({ duplicateWebhooks: false, reorderWebhooks: false });
    expect(await payout()).toMatchObject({ providerStatus: "RETURNED" });
    expect((await payout()).voidReason).toMatch(/payable again/);
    expect(await statuses(shop)).toEqual(["approved"]);
    expect((await payableBalances(shop)).map((b) => [b.key, b.balanceMinor, b.payable])).toEqual([
      ["USD:cr_cy", "700", true],
    ]);
    const entries = await prisma.commissionEntry.findMany({ where: { shop, kind: "payout_void" } });
    expect(entries).toHaveLength(1);
  });

  // Found by the chaos run (`npm run chaos -- --payouts`): a report left pending for good. On
  // PostgreSQL the webhook's transaction left a run's job that was queued and due alone, and a
  // worker could claim it and read the run before that transaction committed; the job finished
  // without the report, and nothing ran it again. A bounce reported after the run settled stayed
  // unapplied: its records paid although PayPal took the money back.
  it.runIf(dialect === "postgresql")(
    "applies a bounce reported while a worker claims the settled run's job, however the two interleave",
    async () => {
      const { shop } = await paypalShop({ cr_fay: "fay@creators.test" });
      await record(shop, "cr_fay", "USD", 1100n);
      await startPaypalRun(shop, { idempotencyKey: "form-token-race", balances: await chosen(shop) });
      await work();
      await paypal.advance();
      await expect.poll(() => prisma.paypalEvent.count({ where: { shop } })).toBe(1);
      await work();
      const run = await runOf(shop);
      expect(run.state).toBe("settled");
      expect(await statuses(shop)).toEqual(["paid"]);
      const payout = await prisma.payout.findFirstOrThrow({ where: { shop } });
      // An earlier report left the job queued and due, as a webhook does.
      await prisma.job.updateMany({
        where: { kind: "payout-run", subject: run.id },
        data: { state: "queued", runAt: new Date(Date.now() - 1_000) },
      });

      // PayPal refunds the item: its report is recorded as the webhook records it, and while that
      // transaction is still open a worker looks for due jobs.
      const now = new Date();
      await sql.transaction(async (tx) => {
        await insertRows(tx, "PaypalEvent", [
          {
            shop,
            eventId: "WH-EVT-RACE",
            eventType: "PAYMENT.PAYOUTS-ITEM.REFUNDED",
            itemId: payout.providerItemId,
            senderItemId: payout.id,
            status: "REFUNDED",
            outcome: "pending",
            receivedAt: now,
          },
        ]);
        await dueNow(tx, [{ shop, kind: "payout-run", subject: run.id, runAt: now }], now);
        await runner.runOnce();
      });
      await work();

      expect(await prisma.paypalEvent.findFirstOrThrow({ where: { shop, eventId: "WH-EVT-RACE" } })).toMatchObject({
        outcome: "applied",
      });
      expect(await prisma.payout.findFirstOrThrow({ where: { shop } })).toMatchObject({ providerStatus: "REFUNDED" });
      expect(await statuses(shop)).toEqual(["approved"]);
    },
  );

  it("a refund on a record PayPal still has is netted by no other payout: a bounce leaves the creator whole", async () => {
    const { shop } = await paypalShop({ cr_dee: "dee@creators.test" });
    paypal.plan("dee@creators.test", "RETURNED");
    const sent = await record(shop, "cr_dee", "USD", 1000n);
    await startPaypalRun(shop, { idempotencyKey: "form-token-dee", balances: await chosen(shop) });
    await work();
    // A refund reaches the record while PayPal has it: the record goes down, a clawback is written.
    await prisma.commission.update({ where: { id: sent.id }, data: { amountMinor: 700n, amount: "7.00" } });
    await prisma.commissionEntry.create({
      data: {
        shop,
        commissionId: sent.id,
        kind: "clawback",
        amountMinor: -300n,
        amount: "-3.00",
        eventId: "refund-dee",
      },
    });
    await record(shop, "cr_dee", "USD", 500n);
    const balance = async () => (await payableBalances(shop)).map((b) => [b.key, b.balanceMinor]);
    // The other record alone: the refund is not the next payout's to take.
    expect(await balance()).toEqual([["USD:cr_dee", "500"]]);
    await paypal.advance();
    await work();
    expect(await statuses(shop)).toEqual(["approved", "approved"]);
    // Back at its reduced amount, with the refund settled by the bounce: 700 + 500.
    expect(await balance()).toEqual([["USD:cr_dee", "1200"]]);
  });

  it("gives the lines back when PayPal refuses the batch, and refuses what it must not send", async () => {
    const { shop } = await paypalShop({ cr_dee: "not-an-email" });
    await record(shop, "cr_dee", "USD", 400n);
    await record(shop, "cr_eve", "USD", 400n);
    expect(
      await startPaypalRun(shop, { idempotencyKey: "form-token-four", balances: (await chosen(shop)).slice(1) }),
    ).toMatchObject({
      ok: false,
      errors: { balances: expect.stringContaining("cr_eve") },
    });
    await saveMethod(shop, { creatorId: "cr_eve", method: "manual" });
    expect(
      await startPaypalRun(shop, { idempotencyKey: "form-token-five", balances: (await chosen(shop)).slice(1) }),
    ).toMatchObject({ ok: false, errors: { balances: expect.stringContaining("Not paid by PayPal") } });
    await startPaypalRun(shop, { idempotencyKey: "form-token-six", balances: (await chosen(shop)).slice(0, 1) });
    await work();
    expect(await runOf(shop)).toMatchObject({
      state: "refused",
      lastError: expect.stringContaining("VALIDATION_ERROR"),
    });
    expect(await statuses(shop)).toEqual(["approved", "approved"]);
  });

  it("refuses a forged webhook and records nothing", async () => {
    const { shop } = await paypalShop({});
    const response = await fetch(hooks.url(shop), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "paypal-transmission-sig": "forged",
        "paypal-auth-algo": "SHA256withRSA",
      },
      body: JSON.stringify({
        id: "WH-FORGED",
        event_type: "PAYMENT.PAYOUTS-ITEM.SUCCEEDED",
        resource: { transaction_status: "SUCCESS" },
      }),
    });
    expect(response.status).toBe(401);
    expect(await prisma.paypalEvent.count({ where: { shop } })).toBe(0);
  });

  it("keeps the secret sealed, off the settings the page reads, and sends it only to PayPal's origin", async () => {
    const { shop, client } = await paypalShop({});
    const row = await prisma.payoutSettings.findUniqueOrThrow({ where: { shop } });
    expect(JSON.stringify(row)).not.toContain(client.secret);
    const shown = await payoutSettings(shop);
    expect(JSON.stringify(shown)).not.toContain(client.secret);
    expect(shown.paypal).toMatchObject({ saved: true, secretLast4: client.secret.slice(-4) });
    // Another environment is another origin: the stored secret is not carried over to it.
    expect(
      await savePaypalAccount(shop, { environment: "live", clientId: "", secret: "", webhookId: "" }),
    ).toMatchObject({
      ok: false,
      errors: { secret: expect.stringContaining("none are saved for this environment") },
    });
    const basic = Buffer.from(`${client.clientId}:${client.secret}`).toString("base64");
    expect(
      paypal
        .requests()
        .filter((r) => r.authorization.includes(basic))
        .every((r) => r.path === "/v1/oauth2/token"),
    ).toBe(true);
  });
});
