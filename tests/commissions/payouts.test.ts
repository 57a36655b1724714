import { describe, expect, it, vi } from "vitest";
import { databaseClient, dialect } from "../../app/database/db.server";
import { insertRows, sql } from "../../app/database/sql.server";
import { t } from "../../app/i18n";
import { payableBalances } from "../../app/commissions/payable-balances.server";
import { listPayouts, payoutRows } from "../../app/commissions/payout-history.server";
import { recordPayout, voidPayout } from "../../app/commissions/payouts.server";

const prisma = databaseClient();

// Payouts rule by rule on records written straight into the database: which balances are
// payable, what the payout form accepts, what a refused payout says, how payouts are listed and
// exported, what a void accepts, and a balance of more records than one statement can name.
// tests/commissions/payout-void.test.ts and ledger-events.test.ts take real orders through the
// worker to the same functions.

let shops = 0;
let orders = 0;
const newShop = () => `payouts-${++shops}.myshopify.com`;

/** A commission record of `amountMinor` for the creator, in the status given (approved unless said). */
async function record(shop: string, creatorId: string, currency: string, amountMinor: bigint, status = "approved") {
  const orderId = String(++orders);
  const verification = await prisma.verification.create({
    data: {
      shop,
      orderId,
      orderGid: `gid://shopify/Order/${orderId}`,
      orderCreatedAt: new Date("2026-11-01T10:00:00Z"),
      outcome: "matched",
      clickId: `clk-${orderId}`,
      currency,
      orderFacts: "{}",
    },
  });
  return prisma.commission.create({
    data: {
      shop,
      verificationId: verification.id,
      orderId,
      creatorId,
      expectedTag: `${creatorId}-tag`,
      arrivedTag: `${creatorId}-tag`,
      orderValue: "100.00",
      currency,
      rate: "10",
      amount: "0",
      amountMinor,
      status,
    },
  });
}

/** A refund's clawback on `commissionId` (negative), open unless netted by `payoutId`. */
function clawback(shop: string, commissionId: string, amountMinor: bigint, payoutId: string | null = null) {
  return prisma.commissionEntry.create({
    data: { shop, commissionId, kind: "clawback", amountMinor, amount: "0", eventId: `refund-${++orders}`, payoutId },
  });
}

const form = (balances: { key: string; shownMinor: string }[], more: Record<string, string> = {}) => ({
  idempotencyKey: `form-${++orders}-abcdefgh`,
  reference: "Wire 7",
  paidOn: "2026-11-05",
  balances,
  ...more,
});

describe("payable balances", () => {
  it("sum approved records and open clawbacks per currency and creator, in key order; payable only when positive", async () => {
    const shop = newShop();
    await record(shop, "cr_b", "USD", 1000n);
    await record(shop, "cr_b", "USD", 500n);
    await record(shop, "cr_a", "EUR", 700n);
    // Paid, then refunded by as much: nothing due.
    const evened = await record(shop, "cr_a", "USD", 300n);
    await clawback(shop, evened.id, -300n);
    // Owes more than is approved.
    await record(shop, "cr_c", "USD", 1000n);
    const paidEarlier = await record(shop, "cr_c", "USD", 2000n, "paid");
    await clawback(shop, paidEarlier.id, -1500n);
    // Only a clawback: nothing approved.
    const onlyOwed = await record(shop, "cr_d", "GBP", 900n, "paid");
    await clawback(shop, onlyOwed.id, -200n);
    // Neither pending records nor clawbacks another payout netted count.
    await record(shop, "cr_e", "USD", 800n, "pending");
    const netted = await record(shop, "cr_b", "USD", 400n, "paid");
    await clawback(shop, netted.id, -100n, "an-earlier-payout");

    expect(
      (await payableBalances(shop)).map((b) => [
        b.key,
        b.approved,
        b.owed,
        b.balance,
        b.balanceMinor,
        b.records,
        b.payable,
      ]),
    ).toEqual([
      ["EUR:cr_a", "EUR 7.00", "EUR 0.00", "EUR 7.00", "700", 1, true],
      ["GBP:cr_d", "GBP 0.00", "GBP -2.00", "GBP -2.00", "-200", 0, false],
      ["USD:cr_a", "USD 3.00", "USD -3.00", "USD 0.00", "0", 1, false],
      ["USD:cr_b", "USD 15.00", "USD 0.00", "USD 15.00", "1500", 2, true],
      ["USD:cr_c", "USD 10.00", "USD -15.00", "USD -5.00", "-500", 1, false],
    ]);
    expect((await payableBalances(shop))[0]).toMatchObject({ creatorId: "cr_a", currency: "EUR" });
  });
});

describe("the payout form", () => {
  it("says what is wrong with each field, and records nothing", async () => {
    const shop = newShop();
    await record(shop, "cr_f", "USD", 1000n);
    const balances = [{ key: "USD:cr_f", shownMinor: "1000" }];
    const errorsOf = async (more: Record<string, string>, chosen = balances) => {
      const result = await recordPayout(shop, form(chosen, more));
      return result.ok ? "recorded" : result.errors;
    };
    const key = "reload the page and submit again";
    expect(await errorsOf({ idempotencyKey: "1234567" })).toEqual({ idempotencyKey: key });
    expect(await errorsOf({ idempotencyKey: "  abc12  " })).toEqual({ idempotencyKey: key });
    expect(await errorsOf({ reference: "   " })).toEqual({
      reference: "enter the payment's reference (a transfer id, a batch name)",
    });
    expect(await errorsOf({ reference: "r".repeat(201) })).toEqual({
      reference: "the reference is at most 200 characters",
    });
    for (const paidOn of ["2026-11-5", "x2026-11-05", "2026-11-05x", "05/11/2026"])
      expect([paidOn, await errorsOf({ paidOn })]).toEqual([paidOn, { paidOn: "enter the date paid as YYYY-MM-DD" }]);
    for (const paidOn of ["2026-02-30", "2026-13-01", "2026-04-31"])
      expect([paidOn, await errorsOf({ paidOn })]).toEqual([paidOn, { paidOn: "enter a real date" }]);
    for (const shownMinor of ["10.00", "x1000", "1000x", ""])
      expect([shownMinor, await errorsOf({}, [{ key: "USD:cr_f", shownMinor }])]).toEqual([
        shownMinor,
        { balances: "reload the page and choose the balances again" },
      ]);
    expect(await errorsOf({}, [])).toEqual({ balances: "choose at least one balance to pay" });
    // The first problem of each field, every field at once.
    expect(await errorsOf({ idempotencyKey: "", reference: "", paidOn: "" }, [])).toEqual({
      idempotencyKey: key,
      reference: "enter the payment's reference (a transfer id, a batch name)",
      paidOn: "enter the date paid as YYYY-MM-DD",
      balances: "choose at least one balance to pay",
    });
    expect(await prisma.payout.count({ where: { shop } })).toBe(0);
    expect(await prisma.commission.findFirstOrThrow({ where: { shop } })).toMatchObject({ status: "approved" });
  });

  it("keeps the reference and the day as typed, without the spaces around them", async () => {
    const shop = newShop();
    await record(shop, "cr_g", "USD", 250n);
    const result = await recordPayout(
      shop,
      form([{ key: "USD:cr_g", shownMinor: "250" }], { reference: "  Wire 12  ", paidOn: " 2026-11-05 " }),
    );
    expect(result).toMatchObject({ ok: true, duplicate: false, lines: 1 });
    expect(await prisma.payout.findFirstOrThrow({ where: { shop } })).toMatchObject({
      reference: "Wire 12",
      paidOn: new Date("2026-11-05T00:00:00Z"),
    });
  });

  it("pays nothing for a balance with nothing due, however the form says it", async () => {
    const shop = newShop();
    // Approved, and evened out by a refund: 0 due, and the page shows 0.
    const evened = await record(shop, "cr_h", "USD", 500n);
    await clawback(shop, evened.id, -500n);
    // Owes more than is approved.
    await record(shop, "cr_i", "USD", 100n);
    const refunded = await record(shop, "cr_i", "USD", 900n, "paid");
    await clawback(shop, refunded.id, -400n);
    const nothing = {
      ok: false,
      errors: { balances: "nothing is left to pay in the chosen balances; reload the page" },
    };
    expect(await recordPayout(shop, form([{ key: "USD:cr_h", shownMinor: "0" }]))).toEqual(nothing);
    expect(await recordPayout(shop, form([{ key: "USD:cr_i", shownMinor: "-300" }]))).toEqual(nothing);
    // A creator with no record at all.
    expect(await recordPayout(shop, form([{ key: "USD:cr_nobody", shownMinor: "0" }]))).toEqual(nothing);
    expect(await prisma.payout.count({ where: { shop } })).toBe(0);
    expect(await prisma.commission.count({ where: { shop, status: "paid", payoutId: { not: null } } })).toBe(0);
  });

  it("pays no balance whose key is not exactly a currency and a creator", async () => {
    const shop = newShop();
    const creator = "c".repeat(200);
    await record(shop, "cr_j", "USD", 600n);
    await record(shop, creator, "USD", 600n);
    const nothing = {
      ok: false,
      errors: { balances: "nothing is left to pay in the chosen balances; reload the page" },
    };
    for (const key of ["xUSD:cr_j", "usd:cr_j", `USD:${creator}x`, "USD:"])
      expect([key, await recordPayout(shop, form([{ key, shownMinor: "600" }]))]).toEqual([key, nothing]);
    expect(await prisma.commission.count({ where: { shop, status: "approved" } })).toBe(2);
  });

  it("names each balance that changed since the page loaded, as the page wrote it", async () => {
    const shop = newShop();
    await record(shop, "cr_k", "USD", 1500n);
    const result = await recordPayout(
      shop,
      form([
        { key: "USD:cr_k", shownMinor: "1400" },
        { key: "USD:cr_none", shownMinor: "0" },
      ]),
    );
    expect(result).toEqual({
      ok: false,
      errors: {
        balances:
          "The balances changed since the page loaded: cr_k was USD 14.00 when the page loaded and is USD 15.00 now; " +
          "cr_none was USD 0.00 when the page loaded and has nothing due now. " +
          "Check what you paid against the balances as they are now, and choose again.",
      },
    });
    expect(await prisma.payout.count({ where: { shop } })).toBe(0);
  });
});

describe("a form recorded by another submission at once", () => {
  it("is found only on a unique violation: any other failure is thrown, whatever was recorded meanwhile", async () => {
    const shop = newShop();
    await record(shop, "cr_u", "USD", 700n);
    const sent = form([{ key: "USD:cr_u", shownMinor: "700" }]);
    // Another submission of the same form records it while this one fails for another reason.
    const transaction = vi.spyOn(sql, "transaction").mockImplementationOnce(async () => {
      expect(await recordPayout(shop, sent)).toMatchObject({ ok: true, duplicate: false });
      throw new Error("disk I/O error");
    });
    await expect(recordPayout(shop, sent)).rejects.toThrow("disk I/O error");
    transaction.mockRestore();
    // Sent again, it finds what the other submission recorded.
    expect(await recordPayout(shop, sent)).toMatchObject({ ok: true, duplicate: true, lines: 1 });
  });
});

describe("the payouts list and a payout's CSV", () => {
  it("gives each payout its own lines, the day paid, and the creator's name where the merchant gave one", async () => {
    const shop = newShop();
    await prisma.creatorProfile.create({
      data: { shop, creatorId: "cr_named", name: "Alice", email: "a@example.com" },
    });
    await record(shop, "cr_named", "USD", 1200n);
    await record(shop, "cr_plain", "USD", 300n);
    const first = await recordPayout(
      shop,
      form([{ key: "USD:cr_named", shownMinor: "1200" }], { paidOn: "2026-11-03" }),
    );
    const second = await recordPayout(
      shop,
      form([{ key: "USD:cr_plain", shownMinor: "300" }], { paidOn: "2026-11-04", reference: "Wire 8" }),
      new Date(Date.now() + 1_000),
    );
    if (!first.ok || !second.ok) throw new Error("both payouts are recorded");
    const listed = await listPayouts(shop);
    // Paid by hand: no provider to follow.
    expect(listed.map((p) => [p.method, p.provider])).toEqual([
      ["manual", null],
      ["manual", null],
    ]);
    expect(listed.map((p) => [p.id, p.reference, p.paidOn, p.voided, p.lines])).toEqual([
      [
        second.payoutId,
        "Wire 8",
        "2026-11-04",
        null,
        [{ creatorId: "cr_plain", creatorName: "", currency: "USD", amount: "USD 3.00", records: 1 }],
      ],
      [
        first.payoutId,
        "Wire 7",
        "2026-11-03",
        null,
        [{ creatorId: "cr_named", creatorName: "Alice", currency: "USD", amount: "USD 12.00", records: 1 }],
      ],
    ]);
    expect(await payoutRows(shop, second.payoutId)).toEqual({
      reference: "Wire 8",
      paidOn: "2026-11-04",
      rows: [
        {
          reference: "Wire 8",
          paidOn: "2026-11-04",
          creatorId: "cr_plain",
          creatorName: "",
          creatorEmail: "",
          amount: "3.00",
          currency: "USD",
          records: 1,
          voidedAt: "",
          method: "manual",
          providerId: "",
        },
      ],
    });
    expect((await payoutRows(shop, first.payoutId))?.rows).toMatchObject([
      { creatorName: "Alice", creatorEmail: "a@example.com", amount: "12.00" },
    ]);
    expect(await payoutRows(newShop(), first.payoutId)).toBeNull();
    expect(await listPayouts(newShop())).toEqual([]);
  });

  it("lists a creator's payouts with their lines only, for the creator's page", async () => {
    const shop = newShop();
    await record(shop, "cr_a", "USD", 500n);
    await record(shop, "cr_b", "USD", 700n);
    const both = await recordPayout(
      shop,
      form([
        { key: "USD:cr_a", shownMinor: "500" },
        { key: "USD:cr_b", shownMinor: "700" },
      ]),
    );
    await record(shop, "cr_b", "USD", 100n);
    const onlyB = await recordPayout(
      shop,
      form([{ key: "USD:cr_b", shownMinor: "100" }]),
      new Date(Date.now() + 1_000),
    );
    if (!both.ok || !onlyB.ok) throw new Error("both payouts are recorded");
    const ofA = await listPayouts(shop, 50, undefined, "cr_a");
    expect(ofA.map((p) => [p.id, p.lines.map((l) => [l.creatorId, l.amount])])).toEqual([
      [both.payoutId, [["cr_a", "USD 5.00"]]],
    ]);
    const ofB = await listPayouts(shop, 50, undefined, "cr_b");
    expect(ofB.map((p) => [p.id, p.lines.map((l) => l.creatorId)])).toEqual([
      [onlyB.payoutId, ["cr_b"]],
      [both.payoutId, ["cr_b"]],
    ]);
    expect(await listPayouts(shop, 1, undefined, "cr_b")).toHaveLength(1);
    expect(await listPayouts(shop, 50, undefined, "cr_nobody")).toEqual([]);
    expect(await listPayouts(newShop(), 50, undefined, "cr_a")).toEqual([]);
  });
});

describe("the void form", () => {
  it("takes the payout's id and a reason of one or more lines, without the spaces around them", async () => {
    const shop = newShop();
    await record(shop, "cr_v", "USD", 700n);
    const paid = await recordPayout(shop, form([{ key: "USD:cr_v", shownMinor: "700" }]));
    if (!paid.ok) throw new Error("recorded");
    const voided = await voidPayout(
      shop,
      { payoutId: `  ${paid.payoutId} `, reason: " bounced\nwrong IBAN\r\nsee the bank's letter " },
      "staff-1",
    );
    expect(voided).toEqual({ ok: true, payoutId: paid.payoutId, records: 1, clawbacks: 0 });
    expect(await prisma.payout.findUniqueOrThrow({ where: { id: paid.payoutId } })).toMatchObject({
      voidReason: "bounced\nwrong IBAN\r\nsee the bank's letter",
      voidedBy: "staff-1",
    });
  });

  it("refuses a reason that is missing, too long or holds control characters, saying which", async () => {
    const shop = newShop();
    const errorsOf = async (reason: string, payoutId = "some-payout") => {
      const result = await voidPayout(shop, { payoutId, reason }, null);
      return result.ok ? "voided" : result.errors;
    };
    expect(await errorsOf("")).toEqual({ reason: t("payouts.voidReasonMissing") });
    expect(await errorsOf("r".repeat(501))).toEqual({ reason: t("payouts.voidReasonTooLong") });
    expect(await errorsOf("bounced\u0007")).toEqual({ reason: t("payouts.voidReasonControl") });
    expect(await errorsOf("\u0000bounced")).toEqual({ reason: t("payouts.voidReasonControl") });
    expect(await errorsOf("bounced", "  ")).toMatchObject({ payoutId: expect.any(String) });
    // Valid, but no such payout.
    expect(await errorsOf("r".repeat(500))).toEqual({ void: t("payouts.voidNotFound") });
  });

  it("names every later payout that netted a refund of its records", async () => {
    const shop = newShop();
    const paidOn = (day: string) => new Date(`${day}T00:00:00Z`);
    const payout = (id: string, reference: string, day: string) =>
      prisma.payout.create({ data: { id, shop, idempotencyKey: `key-${id}`, reference, paidOn: paidOn(day) } });
    await payout(`${shop}-p1`, "Wire 1", "2026-11-01");
    await payout(`${shop}-p2`, "Wire 2", "2026-11-10");
    await payout(`${shop}-p3`, "Wire 3", "2026-11-12");
    const paid = await record(shop, "cr_w", "USD", 1000n, "paid");
    await prisma.commission.update({ where: { id: paid.id }, data: { payoutId: `${shop}-p1` } });
    await clawback(shop, paid.id, -100n, `${shop}-p2`);
    await clawback(shop, paid.id, -200n, `${shop}-p3`);
    const refused = await voidPayout(shop, { payoutId: `${shop}-p1`, reason: "bounced" }, null);
    expect(refused.ok).toBe(false);
    const message = refused.ok ? "" : refused.errors.void;
    const both = ["Wire 2 (2026-11-10)", "Wire 3 (2026-11-12)"];
    expect([
      t("payouts.voidNettedLater", { payouts: both.join(", ") }),
      t("payouts.voidNettedLater", { payouts: [...both].reverse().join(", ") }),
    ]).toContain(message);
    expect(await prisma.payout.findUniqueOrThrow({ where: { id: `${shop}-p1` } })).toMatchObject({ voidedAt: null });
  });
});

// SQLite takes at most 32,766 values in one statement: the rows are marked a thousand at a time.
// 33,000 is over that limit and a whole number of thousands, the edge of the last batch.
// PostgreSQL's limit is 65,535, twice the rows for the same point, and marking rows a thousand
// at a time is far slower there (over a minute for these 33,000): SQLite only.
describe.runIf(dialect === "sqlite")("payouts of many records", () => {
  it("pays, then voids, a balance of more records and clawbacks than one statement can name", async () => {
    const shop = newShop();
    const count = 33_000;
    const ids = Array.from({ length: count }, (_, i) => `${shop}-${i}`);
    const verifications = ids.map((id, i) => ({
      id,
      shop,
      orderId: String(i),
      orderGid: `gid://shopify/Order/${i}`,
      orderCreatedAt: new Date("2026-11-01T10:00:00Z"),
      outcome: "matched",
      clickId: `clk-${i}`,
      currency: "USD",
      orderFacts: "{}",
    }));
    const commissions = ids.map((id, i) => ({
      id,
      shop,
      verificationId: id,
      orderId: String(i),
      creatorId: "cr_many",
      expectedTag: "t",
      arrivedTag: "t",
      orderValue: "100.00",
      currency: "USD",
      rate: "10",
      amount: "0",
      amountMinor: 10n,
      status: "approved",
    }));
    const clawbacks = ids.map((id) => ({
      shop,
      commissionId: id,
      kind: "clawback",
      amountMinor: -1n,
      amount: "0",
      eventId: `r-${id}`,
    }));
    // Written a thousand rows a statement, in one transaction: the client's own createMany takes long.
    await sql.transaction(async (tx) => {
      for (let at = 0; at < count; at += 1_000) {
        await insertRows(tx, "Verification", verifications.slice(at, at + 1_000));
        await insertRows(tx, "Commission", commissions.slice(at, at + 1_000));
        await insertRows(tx, "CommissionEntry", clawbacks.slice(at, at + 1_000));
      }
    });
    const paid = await recordPayout(shop, form([{ key: "USD:cr_many", shownMinor: String(9 * count) }]));
    expect(paid).toMatchObject({ ok: true, lines: 1 });
    const payoutId = paid.ok ? paid.payoutId : "";
    expect(await prisma.commission.count({ where: { shop, status: "paid", payoutId } })).toBe(count);
    expect(await prisma.commissionEntry.count({ where: { shop, kind: "clawback", payoutId } })).toBe(count);
    expect(await voidPayout(shop, { payoutId, reason: "bounced" }, null)).toEqual({
      ok: true,
      payoutId,
      records: count,
      clawbacks: count,
    });
    expect(await prisma.commission.count({ where: { shop, status: "approved", payoutId: null } })).toBe(count);
    expect(await prisma.commissionEntry.count({ where: { shop, kind: "clawback", payoutId: null } })).toBe(count);
    expect(await prisma.commissionEntry.count({ where: { shop, kind: "payout_void", payoutId } })).toBe(count);
  });
});
