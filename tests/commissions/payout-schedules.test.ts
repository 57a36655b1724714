import { afterAll, describe, expect, it } from "vitest";
import { startPaypalStandin } from "../../sandbox/paypal/server";

// Payout schedules on the database (SQLite and PostgreSQL) against the PayPal stand-in over HTTP:
// a period's run is due at 09:00 in the shop's zone (summer time, day 31 in February), pays
// creators at or over the minimum in the schedule's currency by their method (one run each), lists creators paid by hand without
// marking them paid, never pays a held creator, skips what falls due while paused, and is written
// once however many instances tick at once. The clock is the one each call is handed.

const paypal = await startPaypalStandin();
process.env.PAYPAL_API_ORIGIN = paypal.url;
const { batchesFor, creator, payoutRunner, record } = await import("../support/paypal-runs");
const { databaseClient } = await import("../../app/database/db.server");
const { savePaypalAccount, saveMethod } = await import("../../app/payouts/payout-settings.server");
const { saveSchedule, pauseSchedule } = await import("../../app/payouts/schedule-settings.server");
const { tickSchedule, periodRunKey } = await import("../../app/payouts/schedule-run.server");
const { schedulePart } = await import("../../app/payouts/schedule-page.server");

const prisma = databaseClient();
const runner = await payoutRunner();

afterAll(async () => {
  await runner.stop();
  await paypal.close();
});

let shops = 0;
/** A shop in `zone` paying by PayPal, its creators with emails. */
async function scheduledShop(zone: string, creators: string[]) {
  const shop = `schedules-${++shops}.myshopify.com`;
  await prisma.shopProfile.create({ data: { shop, ianaTimezone: zone, currencyCode: "USD", readAt: new Date() } });
  const client = paypal.addClient();
  await savePaypalAccount(shop, {
    environment: "sandbox",
    clientId: client.clientId,
    secret: client.secret,
    webhookId: "",
  });
  await saveMethod(shop, { creatorId: "", method: "paypal" });
  for (const id of creators) await creator(shop, id, `${id}@creators.test`);
  return shop;
}

const schedule = (over: Record<string, unknown> = {}) => ({
  enabled: true,
  cadence: "monthly",
  weekday: "1",
  monthDay: "31",
  currency: "USD",
  minimum: "25.00",
  ...over,
});
const at = (iso: string) => new Date(iso);
const periods = (shop: string) => prisma.payoutSchedulePeriod.findMany({ where: { shop }, orderBy: { dueAt: "asc" } });
const runs = (shop: string) => prisma.payoutRun.findMany({ where: { shop }, orderBy: { createdAt: "asc" } });
const statusOf = async (shop: string, creatorId: string) =>
  (await prisma.commission.findMany({ where: { shop, creatorId } })).map((c) => c.status);

describe("a payout schedule", () => {
  it("is off until turned on: a tick pays nothing and the page shows no next run", async () => {
    const shop = await scheduledShop("UTC", ["cr_off"]);
    await record(shop, "cr_off", "USD", 5000n);
    expect(await tickSchedule(shop, at("2027-02-28T12:00:00Z"))).toEqual({ to: "off" });
    expect(await saveSchedule(shop, schedule({ enabled: false }), at("2027-02-01T00:00:00Z"))).toEqual({ ok: true });
    expect(await tickSchedule(shop, at("2027-02-28T12:00:00Z"))).toEqual({ to: "off" });
    expect(await pauseSchedule(shop, true)).toMatchObject({ ok: false });
    expect(await periods(shop)).toEqual([]);
    expect((await schedulePart(shop, "en-US")).preview).toBeNull();
    expect(await statusOf(shop, "cr_off")).toEqual(["approved"]);
  });

  it("pays day 31 on February 28th at 09:00 New York time, then March 31st after the clocks change", async () => {
    const shop = await scheduledShop("America/New_York", ["cr_ana"]);
    await record(shop, "cr_ana", "USD", 3000n);
    await saveSchedule(shop, schedule(), at("2027-02-01T00:00:00Z"));
    // 08:59 in New York (UTC-5): not yet.
    expect(await tickSchedule(shop, at("2027-02-28T13:59:00Z"))).toMatchObject({
      to: "wait",
      until: at("2027-02-28T14:00:00Z"),
      wrote: null,
    });
    expect(await tickSchedule(shop, at("2027-02-28T14:00:00Z"))).toMatchObject({
      to: "wait",
      // 09:00 summer time (UTC-4) on March 31st.
      until: at("2027-03-31T13:00:00Z"),
      wrote: { key: "2027-02", state: "done", runId: expect.any(String) },
    });
    const [run] = await runs(shop);
    expect(run).toMatchObject({ idempotencyKey: periodRunKey("2027-02"), method: "paypal", state: "intent" });
    expect(await statusOf(shop, "cr_ana")).toEqual(["paying"]);
    // Ticked again in the same month: nothing new.
    expect(await tickSchedule(shop, at("2027-03-05T00:00:00Z"))).toMatchObject({ wrote: null });

    await record(shop, "cr_ana", "USD", 4000n);
    expect(await tickSchedule(shop, at("2027-03-31T13:00:00Z"))).toMatchObject({ wrote: { key: "2027-03" } });
    expect((await periods(shop)).map((p) => [p.periodKey, p.dueAt.toISOString(), p.runId !== null])).toEqual([
      ["2027-02", "2027-02-28T14:00:00.000Z", true],
      ["2027-03", "2027-03-31T13:00:00.000Z", true],
    ]);
    expect(await runs(shop)).toHaveLength(2);
  });

  it("pays the minimum and over, lists creators paid by hand, and never pays a held one or another currency", async () => {
    const shop = await scheduledShop("Asia/Tokyo", ["cr_min", "cr_under", "cr_hand", "cr_held", "cr_euro"]);
    await record(shop, "cr_min", "USD", 2500n);
    await record(shop, "cr_under", "USD", 2499n);
    await record(shop, "cr_hand", "USD", 9000n);
    await record(shop, "cr_held", "USD", 9000n);
    await record(shop, "cr_euro", "EUR", 9000n);
    await saveMethod(shop, { creatorId: "cr_hand", method: "manual" });
    await prisma.creatorStanding.create({ data: { shop, creatorId: "cr_held", state: "suspected" } });
    await saveSchedule(shop, schedule({ cadence: "weekly", weekday: "5" }), at("2027-01-01T00:00:00Z"));

    const part = await schedulePart(shop, "en-US", at("2027-01-02T00:00:00Z"));
    // Friday the 8th, 09:00 in Tokyo, as the page writes it in the shop's zone.
    expect(part.preview).toMatchObject({ period: "2027-W01", time: expect.stringMatching(/Jan 8, 2027, 9:00\sAM/) });
    expect(part.preview!.pay.map((l) => [l.creatorId, l.amount])).toEqual([["cr_min", "$25.00"]]);
    expect(part.preview!.byHand.map((l) => l.creatorId)).toEqual(["cr_hand"]);
    expect(part.preview!.excluded.map((l) => [l.creatorId, l.reason])).toEqual([
      ["cr_euro", "otherCurrency"],
      ["cr_held", "held"],
      ["cr_under", "underMinimum"],
    ]);

    // 09:00 on Friday January 8th in Tokyo is midnight UTC.
    expect(await tickSchedule(shop, at("2027-01-08T00:00:00Z"))).toMatchObject({ wrote: { key: "2027-W01" } });
    const [run] = await runs(shop);
    const lines = await prisma.payoutLine.findMany({ where: { payout: { runId: run!.id } } });
    expect(lines.map((l) => [l.creatorId, l.amount, l.currency])).toEqual([["cr_min", "25.00", "USD"]]);
    expect(await statusOf(shop, "cr_min")).toEqual(["paying"]);
    for (const id of ["cr_under", "cr_hand", "cr_held", "cr_euro"])
      expect(await statusOf(shop, id)).toEqual(["approved"]);
    const [period] = await periods(shop);
    expect(JSON.parse(period!.summary)).toMatchObject({
      pay: [{ creatorId: "cr_min", amountMinor: "2500" }],
      byHand: [{ creatorId: "cr_hand", amountMinor: "9000" }],
    });
  });

  it("pays nothing while paused, and a period that fell due while paused is skipped on resuming", async () => {
    const shop = await scheduledShop("Europe/Berlin", ["cr_pau"]);
    await record(shop, "cr_pau", "USD", 5000n);
    await saveSchedule(shop, schedule({ monthDay: "1" }), at("2027-01-15T00:00:00Z"));
    expect(await pauseSchedule(shop, true, at("2027-01-20T00:00:00Z"))).toEqual({ ok: true });
    expect(await tickSchedule(shop, at("2027-02-01T08:00:00Z"))).toMatchObject({ wrote: null });
    expect(await pauseSchedule(shop, false, at("2027-02-03T00:00:00Z"))).toEqual({ ok: true });
    expect(await tickSchedule(shop, at("2027-02-03T00:00:00Z"))).toMatchObject({
      wrote: null,
      until: at("2027-03-01T08:00:00Z"),
    });
    expect(await periods(shop)).toEqual([]);
    expect(await statusOf(shop, "cr_pau")).toEqual(["approved"]);
    expect(await tickSchedule(shop, at("2027-03-01T08:00:00Z"))).toMatchObject({ wrote: { key: "2027-03" } });
  });

  it("is written once when two instances tick at once, with a run to pay or without", async () => {
    const shop = await scheduledShop("UTC", ["cr_two"]);
    await record(shop, "cr_two", "USD", 5000n);
    await saveSchedule(shop, schedule({ monthDay: "10" }), at("2027-01-01T00:00:00Z"));
    const now = at("2027-01-10T09:30:00Z");
    const ticks = await Promise.all([tickSchedule(shop, now), tickSchedule(shop, now), tickSchedule(shop, now)]);
    expect(ticks.filter((t) => t.to === "wait" && t.wrote)).toHaveLength(1);
    expect(await periods(shop)).toHaveLength(1);
    expect(await runs(shop)).toHaveLength(1);
    expect(await statusOf(shop, "cr_two")).toEqual(["paying"]);

    // February: nothing is due (the balance is with PayPal), and still one period row.
    const february = at("2027-02-10T09:00:00Z");
    const empty = await Promise.all([tickSchedule(shop, february), tickSchedule(shop, february)]);
    expect(empty.filter((t) => t.to === "wait" && t.wrote)).toHaveLength(1);
    expect((await periods(shop)).map((p) => [p.periodKey, p.runId === null])).toEqual([
      ["2027-01", false],
      ["2027-02", true],
    ]);
    expect(await runs(shop)).toHaveLength(1);
  });

  it("pays each creator by their method, one run per method written with the period, once however many tick", async () => {
    const shop = await scheduledShop("UTC", ["cr_pp", "cr_sc", "cr_gc"]);
    await saveMethod(shop, { creatorId: "cr_sc", method: "store_credit" });
    await saveMethod(shop, { creatorId: "cr_gc", method: "gift_card" });
    await record(shop, "cr_pp", "USD", 3000n);
    await record(shop, "cr_sc", "USD", 4000n);
    await record(shop, "cr_gc", "USD", 5000n);
    await saveSchedule(shop, schedule({ monthDay: "5" }), at("2027-01-01T00:00:00Z"));
    const part = await schedulePart(shop, "en-US", at("2027-01-02T00:00:00Z"));
    expect(part.preview!.pay.map((l) => [l.creatorId, l.method])).toEqual([
      ["cr_gc", "gift_card"],
      ["cr_pp", "paypal"],
      ["cr_sc", "store_credit"],
    ]);

    const now = at("2027-01-05T09:00:00Z");
    const ticks = await Promise.all([tickSchedule(shop, now), tickSchedule(shop, now)]);
    expect(ticks.filter((t) => t.to === "wait" && t.wrote)).toHaveLength(1);
    const written = await runs(shop);
    expect(written.map((r) => [r.method, r.idempotencyKey]).sort()).toEqual([
      ["gift_card", "schedule:2027-01:gift_card"],
      ["paypal", "schedule:2027-01"],
      ["store_credit", "schedule:2027-01:store_credit"],
    ]);
    for (const id of ["cr_pp", "cr_sc", "cr_gc"]) expect(await statusOf(shop, id)).toEqual(["paying"]);
    const [period] = await periods(shop);
    expect(period).toMatchObject({ state: "done", lastError: null });
    expect(written.map((r) => r.id)).toContain(period!.runId);
    expect((await schedulePart(shop, "en-US", now)).lastRun).toMatchObject({ paid: 3, error: null });
    // Once: a later tick in the same month writes nothing more.
    expect(await tickSchedule(shop, at("2027-01-20T00:00:00Z"))).toMatchObject({ wrote: null });
    expect(await runs(shop)).toHaveLength(3);
  });

  it("pays by the methods it can when another is refused, and says which was not sent", async () => {
    const shop = await scheduledShop("UTC", ["cr_pp2", "cr_sc2"]);
    await saveMethod(shop, { creatorId: "cr_sc2", method: "store_credit" });
    await record(shop, "cr_pp2", "USD", 3000n);
    await record(shop, "cr_sc2", "USD", 4000n);
    await saveSchedule(shop, schedule({ monthDay: "5" }), at("2027-01-01T00:00:00Z"));
    // PayPal's account cannot be read any more (a lost sealing key, say): store credit is still paid.
    await prisma.payoutSettings.update({ where: { shop }, data: { paypalCredentials: "v1.unreadable" } });
    expect(await tickSchedule(shop, at("2027-01-05T09:00:00Z"))).toMatchObject({ wrote: { state: "done" } });
    expect((await runs(shop)).map((r) => r.method)).toEqual(["store_credit"]);
    expect(await statusOf(shop, "cr_pp2")).toEqual(["approved"]);
    expect(await statusOf(shop, "cr_sc2")).toEqual(["paying"]);
    const [period] = await periods(shop);
    expect(period!.lastError).toBeTruthy();
    expect(JSON.parse(period!.summary).pay.map((l: { creatorId: string }) => l.creatorId)).toEqual(["cr_sc2"]);
    expect((await schedulePart(shop, "en-US", at("2027-01-06T00:00:00Z"))).lastRun).toMatchObject({
      state: "done",
      paid: 1,
      error: period!.lastError,
    });
  });

  it("runs as the worker's job: saving brings it to now, it defers itself to the period's time, then pays", async () => {
    const shop = await scheduledShop("UTC", ["cr_job"]);
    await record(shop, "cr_job", "USD", 5000n);
    const job = () => prisma.job.findFirstOrThrow({ where: { kind: "payout-schedule", subject: shop } });
    // Due tomorrow at 09:00 UTC, whatever today is.
    const tomorrow = new Date(Date.now() + 86_400_000);
    await saveSchedule(shop, schedule({ cadence: "weekly", weekday: String(((tomorrow.getUTCDay() + 6) % 7) + 1) }));
    await runner.runOnce();
    const deferred = await job();
    expect(deferred.state).toBe("queued");
    expect(deferred.runAt.getTime()).toBeGreaterThan(Date.now());
    expect(await periods(shop)).toEqual([]);
    runner.later(deferred.runAt.getTime() - Date.now() + 60_000);
    await runner.runOnce();
    await runner.runOnce();
    expect(await periods(shop)).toHaveLength(1);
    const [run] = await runs(shop);
    expect(batchesFor(paypal, run!.senderBatchId)).toHaveLength(1);
    expect((await job()).runAt.getTime()).toBeGreaterThan(deferred.runAt.getTime());
  });
});
