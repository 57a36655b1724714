import { beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { payoutsPage } from "../../app/commissions/payouts-page.server";
import * as creatorsRoute from "../../app/routes/app.creators";
import * as ledgerRoute from "../../app/routes/app.commissions";
import * as ordersRoute from "../../app/routes/app.orders.$id";
import * as payoutsRoute from "../../app/routes/app.payouts";
import * as payoutExport from "../../app/routes/app.payouts.$id.export";
import { adminRequest, call, seedVerification, storeOfflineSession } from "./helpers";

const prisma = databaseClient();

// The Creators and Payouts pages and the payout CSV through their real loaders and actions,
// with App Bridge's session tokens, on a real database: what each creator is owed, a payout
// that pays approved records and nets clawbacks, recorded once however often it is submitted.

const SHOP = "ledger-pages.myshopify.com";
const OTHER = "ledger-pages-other.myshopify.com";
const INJECTED = '=HYPERLINK("http://evil","x")';

/** A record with its entries: the credit, then whatever else is given as [kind, minor]. */
async function record(
  shop: string,
  creatorId: string,
  status: string,
  creditMinor: bigint,
  more: [string, bigint][] = [],
  options: { redirected?: boolean; currency?: string } = {},
) {
  const currency = options.currency ?? "USD";
  const net = more.reduce((sum, [, minor]) => sum + minor, creditMinor);
  const amount = (minor: bigint) => (Number(minor) / 100).toFixed(2);
  const row = await seedVerification({
    shop,
    outcome: options.redirected ? "hijacked" : "matched",
    creatorId,
    commission: {
      creatorId,
      currency,
      status,
      amountMinor: net,
      amount: amount(net),
      redirected: options.redirected ?? false,
    },
  });
  const commission = await prisma.commission.findUniqueOrThrow({ where: { verificationId: row.id } });
  await prisma.commissionEntry.createMany({
    data: [
      { shop, commissionId: commission.id, kind: "credit", amountMinor: creditMinor, amount: amount(creditMinor) },
      ...more.map(([kind, minor], i) => ({
        shop,
        commissionId: commission.id,
        kind,
        amountMinor: minor,
        amount: amount(minor),
        eventId: `event-${commission.id}-${i}`,
      })),
    ],
  });
  return { verification: row, commission };
}

async function json<T>(response: Response): Promise<T> {
  expect(response.status).toBeLessThan(500);
  return (await response.json()) as T;
}

let alicePaid: Awaited<ReturnType<typeof record>>;

beforeAll(async () => {
  await storeOfflineSession(SHOP);
  await storeOfflineSession(OTHER);
  await record(SHOP, "cr_alice", "approved", 500n);
  await record(SHOP, "cr_alice", "approved", 250n, [["refund", -50n]], { redirected: true });
  alicePaid = await record(SHOP, "cr_alice", "paid", 300n, [["clawback", -100n]]);
  await record(SHOP, "cr_alice", "pending", 200n, [], { redirected: true });
  await record(SHOP, "cr_alice", "reversed", 400n, [["reversal", -400n]]);
  await record(SHOP, "cr_alice", "approved", 1000n, [], { currency: "EUR" });
  await record(SHOP, "cr_bob", "paid", 700n, [["clawback", -700n]]);
  await record(SHOP, INJECTED, "approved", 100n);
  await record(OTHER, "cr_alice", "approved", 99_999n);
});

describe("Creators", () => {
  it("totals each creator and currency: statuses, reversed, redirected and the balance due", async () => {
    const { rows } = await json<{ rows: Record<string, unknown>[] }>(
      await call(creatorsRoute.loader as never, adminRequest("/app/creators", SHOP)),
    );
    // Written as the merchant's locale writes money (en-US when the request names none).
    expect(rows).toEqual([
      {
        creatorId: INJECTED,
        currency: "USD",
        records: 1,
        pending: "$0.00",
        approved: "$1.00",
        paid: "$0.00",
        reversed: "$0.00",
        redirected: "$0.00",
        balanceDue: "$1.00",
      },
      {
        creatorId: "cr_alice",
        currency: "EUR",
        records: 1,
        pending: "€0.00",
        approved: "€10.00",
        paid: "€0.00",
        reversed: "€0.00",
        redirected: "€0.00",
        balanceDue: "€10.00",
      },
      {
        creatorId: "cr_alice",
        currency: "USD",
        records: 5,
        pending: "$2.00",
        approved: "$7.00",
        paid: "$2.00",
        reversed: "$5.50",
        redirected: "$4.00",
        balanceDue: "$6.00",
      },
      {
        creatorId: "cr_bob",
        currency: "USD",
        records: 1,
        pending: "$0.00",
        approved: "$0.00",
        paid: "$0.00",
        reversed: "$7.00",
        redirected: "$0.00",
        balanceDue: "-$7.00",
      },
    ]);
    const one = await json<{ rows: { creatorId: string }[] }>(
      await call(creatorsRoute.loader as never, adminRequest("/app/creators?creator=cr_bob", SHOP)),
    );
    expect(one.rows.map((row) => row.creatorId)).toEqual(["cr_bob"]);
    // Shopify admin's locale parameter: a German merchant reads the same sums the German way.
    const german = await json<{ rows: { creatorId: string; currency: string; balanceDue: string }[] }>(
      await call(creatorsRoute.loader as never, adminRequest("/app/creators?locale=de-DE", SHOP)),
    );
    expect(german.rows.find((row) => row.creatorId === "cr_alice" && row.currency === "USD")?.balanceDue).toBe(
      "6,00\u00a0$",
    );
  });

  it("answers a request without a session token with 401, never data", async () => {
    const response = await call(creatorsRoute.loader as never, adminRequest("/app/creators", SHOP, { token: null }));
    expect([302, 401]).toContain(response.status);
  });

  it("keeps a name, email and note per creator, refusing a wrong field with 400 and saving nothing", async () => {
    const save = (form: Record<string, string>) =>
      call(creatorsRoute.action as never, adminRequest("/app/creators", SHOP, { form }));
    const refused = await save({ creatorId: "cr_alice", name: "Alice\nLiddell", email: "alice@", note: "" });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      intent: "profile",
      ok: false,
      creatorId: "cr_alice",
      errors: {
        name: "The name cannot contain line breaks or control characters.",
        email: "Enter an email address like name@example.com, or leave it empty.",
      },
    });
    expect(await prisma.creatorProfile.count({ where: { shop: SHOP } })).toBe(0);
    expect((await save({ creatorId: "", name: "x", email: "", note: "" })).status).toBe(400);

    const saved = await save({
      creatorId: "cr_alice",
      name: " Alice Liddell ",
      email: "alice@example.com",
      note: "pays by wire",
    });
    expect(saved.status).toBe(200);
    const page = await json<{ profiles: Record<string, unknown> }>(
      await call(creatorsRoute.loader as never, adminRequest("/app/creators", SHOP)),
    );
    expect(page.profiles).toEqual({
      cr_alice: { creatorId: "cr_alice", name: "Alice Liddell", email: "alice@example.com", note: "pays by wire" },
    });
    // Only in its own shop.
    const elsewhere = await json<{ profiles: Record<string, unknown> }>(
      await call(creatorsRoute.loader as never, adminRequest("/app/creators", OTHER)),
    );
    expect(elsewhere.profiles).toEqual({});
  });
});

describe("Payouts", () => {
  type Balances = {
    balances: { key: string; balance: string; balanceMinor: string; payable: boolean }[];
    payouts: { id: string; paidOn: string; paidOnText: string; lines: { amount: string }[] }[];
    formToken: string;
  };

  it("records a payout once however often the form is sent, and pays what was approved less clawbacks", async () => {
    const page = await json<Balances>(await call(payoutsRoute.loader as never, adminRequest("/app/payouts", SHOP)));
    expect(page.balances.map((b) => [b.key, b.balance, b.balanceMinor, b.payable])).toEqual([
      ["EUR:cr_alice", "€10.00", "1000", true],
      [`USD:${INJECTED}`, "$1.00", "100", true],
      ["USD:cr_alice", "$6.00", "600", true],
      ["USD:cr_bob", "-$7.00", "-700", false],
    ]);
    const submit = () =>
      call(
        payoutsRoute.action as never,
        adminRequest("/app/payouts", SHOP, {
          form: { formToken: page.formToken, reference: "Wire 2026-11", paidOn: "2026-11-21" },
        }),
      );
    // The form's checkboxes add one balance field each: build the body by hand for repeats.
    const body = new URLSearchParams({ formToken: page.formToken, reference: "Wire 2026-11", paidOn: "2026-11-21" });
    // Each with the amount the page shows beside it.
    for (const key of ["USD:cr_alice", `USD:${INJECTED}`]) {
      body.append("balance", key);
      body.append(`shown:${key}`, page.balances.find((b) => b.key === key)!.balanceMinor);
    }
    const post = () => {
      const request = adminRequest("/app/payouts", SHOP, { method: "POST" });
      return call(
        payoutsRoute.action as never,
        new Request(request.url, {
          method: "POST",
          headers: {
            authorization: request.headers.get("authorization")!,
            "content-type": "application/x-www-form-urlencoded",
          },
          body,
        }),
      );
    };
    const [first, second] = await Promise.all([post(), post()]);
    const results = [
      await json<{ ok: boolean; duplicate: boolean; payoutId: string }>(first),
      await json<{ ok: boolean; duplicate: boolean; payoutId: string }>(second),
    ];
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    expect(results.filter((r) => r.duplicate)).toHaveLength(1);
    expect(results[0]!.payoutId).toBe(results[1]!.payoutId);
    expect(await prisma.payout.count({ where: { shop: SHOP } })).toBe(1);
    // The clawback of the earlier payment is netted; the paid record keeps its status.
    expect(
      (
        await prisma.commissionEntry.findFirstOrThrow({
          where: { commissionId: alicePaid.commission.id, kind: "clawback" },
        })
      ).payoutId,
    ).toBe(results[0]!.payoutId);
    expect(await prisma.commission.count({ where: { shop: SHOP, status: "approved", currency: "USD" } })).toBe(0);

    const missing = await submit();
    expect(missing.status).toBe(400);
    expect(await prisma.payout.count({ where: { shop: SHOP } })).toBe(1);

    const after = await json<Balances>(await call(payoutsRoute.loader as never, adminRequest("/app/payouts", SHOP)));
    expect(after.balances.map((b) => b.key)).toEqual(["EUR:cr_alice", "USD:cr_bob"]);
    // The history: the day as the merchant chose it, in their locale; each line's sum likewise.
    expect(after.payouts.map((p) => [p.paidOn, p.paidOnText, p.lines.map((line) => line.amount)])).toEqual([
      ["2026-11-21", "Nov 21, 2026", ["$1.00", "$6.00"]],
    ]);
    expect(after.formToken).not.toBe(page.formToken);
  });

  it("refuses a payout without a reference or a real date, recording nothing", async () => {
    const body = new URLSearchParams({ formToken: "token-invalid-1", reference: " ", paidOn: "2026-02-30" });
    body.append("balance", "EUR:cr_alice");
    body.append("shown:EUR:cr_alice", "1000");
    const request = adminRequest("/app/payouts", SHOP);
    const response = await call(
      payoutsRoute.action as never,
      new Request(request.url, {
        method: "POST",
        headers: {
          authorization: request.headers.get("authorization")!,
          "content-type": "application/x-www-form-urlencoded",
        },
        body,
      }),
    );
    expect(response.status).toBe(400);
    const { errors } = (await response.json()) as { errors: Record<string, string> };
    expect(Object.keys(errors).sort()).toEqual(["paidOn", "reference"]);
    expect(await prisma.payout.count({ where: { shop: SHOP, idempotencyKey: "token-invalid-1" } })).toBe(0);
  });

  it("exports a payout as CSV, one row per creator and currency, formulas neutralised, only in its shop", async () => {
    const payout = await prisma.payout.findFirstOrThrow({ where: { shop: SHOP } });
    const response = await call(payoutExport.loader as never, adminRequest(`/app/payouts/${payout.id}/export`, SHOP), {
      id: payout.id,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="payout-2026-11-21.csv"');
    expect((await response.text()).split("\r\n")).toEqual([
      "Reference,Date paid,Creator,Creator name,Creator email,Amount,Currency,Records,Voided at (UTC),Method,Provider id",
      `Wire 2026-11,2026-11-21,"'=HYPERLINK(""http://evil"",""x"")",,,1.00,USD,1,,manual,`,
      "Wire 2026-11,2026-11-21,cr_alice,Alice Liddell,alice@example.com,6.00,USD,2,,manual,",
      "",
    ]);
    const elsewhere = await call(
      payoutExport.loader as never,
      adminRequest(`/app/payouts/${payout.id}/export`, OTHER),
      { id: payout.id },
    );
    expect(elsewhere.status).toBe(404);
  });
});

describe("the order page", () => {
  it("lists the record's entries", async () => {
    const response = await call(
      ordersRoute.loader as never,
      adminRequest(`/app/orders/${alicePaid.verification.id}`, SHOP),
      { id: alicePaid.verification.id },
    );
    const { order } = await json<{ order: { commission: { entries: { kind: string; amount: string }[] } } }>(response);
    expect(order.commission.entries.map((e) => [e.kind, e.amount])).toEqual([
      ["credit", "3.00"],
      ["clawback", "-1.00"],
    ]);
  });
});

describe("Payouts: currencies and voiding", () => {
  it("refuses balances in two currencies with 400, recording nothing", async () => {
    const body = new URLSearchParams({ formToken: "token-mixed-001", reference: "batch", paidOn: "2026-11-22" });
    for (const [key, shown] of [
      ["EUR:cr_alice", "1000"],
      [`USD:${INJECTED}`, "100"],
    ]) {
      body.append("balance", key!);
      body.append(`shown:${key}`, shown!);
    }
    const request = adminRequest("/app/payouts", SHOP);
    const response = await call(
      payoutsRoute.action as never,
      new Request(request.url, {
        method: "POST",
        headers: {
          authorization: request.headers.get("authorization")!,
          "content-type": "application/x-www-form-urlencoded",
        },
        body,
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      intent: "record",
      ok: false,
      errors: { balances: expect.stringContaining("you chose balances in EUR, USD") },
    });
    expect(await prisma.payout.count({ where: { shop: SHOP, idempotencyKey: "token-mixed-001" } })).toBe(0);
  });

  it("voids a payout once, in its own shop only, and answers a second void with 400", async () => {
    const payout = await prisma.payout.findFirstOrThrow({ where: { shop: SHOP } });
    const voidIt = (shop: string, reason = "the transfer bounced") =>
      call(
        payoutsRoute.action as never,
        adminRequest("/app/payouts", shop, { form: { intent: "void", payoutId: payout.id, reason } }),
      );
    expect((await voidIt(OTHER)).status).toBe(400);
    expect((await voidIt(SHOP, "")).status).toBe(400);
    const voided = await voidIt(SHOP);
    expect(voided.status).toBe(200);
    expect(await voided.json()).toMatchObject({ intent: "void", ok: true, records: 3, clawbacks: 1 });
    const again = await voidIt(SHOP);
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({
      intent: "void",
      ok: false,
      errors: { void: "This payout was already voided; nothing changed." },
    });
    const page = await json<{ payouts: { id: string; voided: { reason: string } | null }[] }>(
      await call(payoutsRoute.loader as never, adminRequest("/app/payouts", SHOP)),
    );
    expect(page.payouts.find((p) => p.id === payout.id)?.voided).toMatchObject({ reason: "the transfer bounced" });
  });
});

describe("a shop in Tokyo", () => {
  // The shop's zone as afterAuth keeps it (tests/admin/shop-zone.test.ts reads it from Shopify).
  const TOKYO = "ledger-pages-tokyo.myshopify.com";
  // 20:30 UTC on the 26th is 05:30 on the 27th in Tokyo: the day and the hour both differ.
  const AT = new Date("2026-11-26T20:30:00.000Z");
  // ICU builds differ on the space before AM (narrow no-break or plain): compare the words.
  const plain = (text: string | undefined) => text?.replace(/[\u202f\u00a0]/g, " ");

  beforeAll(async () => {
    await storeOfflineSession(TOKYO);
    await prisma.shopProfile.upsert({
      where: { shop: TOKYO },
      create: { shop: TOKYO, ianaTimezone: "Asia/Tokyo", currencyCode: "USD", readAt: new Date() },
      update: { ianaTimezone: "Asia/Tokyo", currencyCode: "USD" },
    });
    await seedVerification({
      shop: TOKYO,
      outcome: "matched",
      creatorId: "cr_tokyo",
      createdAt: AT,
      commission: {
        creatorId: "cr_tokyo",
        currency: "USD",
        status: "approved",
        amountMinor: 123456n,
        amount: "1234.56",
      },
    });
    const payout = await prisma.payout.create({
      data: {
        shop: TOKYO,
        idempotencyKey: "tokyo-payout-1",
        reference: "Wire T",
        paidOn: new Date("2026-11-20T00:00:00.000Z"),
        voidedAt: AT,
        voidReason: "sent twice",
      },
    });
    await prisma.payoutLine.create({
      data: {
        payoutId: payout.id,
        creatorId: "cr_tokyo",
        currency: "USD",
        amountMinor: 500n,
        amount: "5.00",
        records: 1,
      },
    });
  });

  it("sees its own times, its money, a status badge's status and Shopify's order on the ledger", async () => {
    const page = await json<{
      rows: { orderId: string; createdAt: string; amountText: string; adminOrderUrl: string; status: string }[];
      totals: { total: string; totalText: string }[];
      times: Record<string, string>;
    }>(await call(ledgerRoute.loader as never, adminRequest("/app/commissions", TOKYO)));
    expect(page.rows).toHaveLength(1);
    const [row] = page.rows;
    expect(row!.createdAt).toBe(AT.toISOString());
    expect(plain(page.times[row!.createdAt])).toBe("Nov 27, 2026, 5:30 AM GMT+9");
    expect(row!.amountText).toBe("$1,234.56");
    expect(row!.adminOrderUrl).toBe(`shopify://admin/orders/${row!.orderId}`);
    // The machine text stays beside the merchant's: the totals the CSV and other callers read.
    expect(page.totals).toMatchObject([{ total: "USD 1,234.56", totalText: "$1,234.56" }]);
  });

  it("sees when a payout was voided in its own time, and the form opens on its own day", async () => {
    const page = await json<{
      payouts: { paidOnText: string; voided: { at: string } | null }[];
      times: Record<string, string>;
    }>(await call(payoutsRoute.loader as never, adminRequest("/app/payouts", TOKYO)));
    const [payout] = page.payouts;
    expect(payout!.paidOnText).toBe("Nov 20, 2026");
    expect(plain(page.times[payout!.voided!.at])).toBe("Nov 27, 2026, 5:30 AM GMT+9");
    // At 05:30 in Tokyo it is already the 27th there, though UTC is still on the 26th.
    const shown = await payoutsPage(TOKYO, AT, { locale: "en-US", timeZone: "Asia/Tokyo" });
    expect(shown.today).toBe("2026-11-27");
  });
});
