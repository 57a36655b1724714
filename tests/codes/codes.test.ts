import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { parseCodeFilter } from "../../app/codes/code-filter";
import { codeTotals } from "../../app/codes/code-totals.server";
import { codesCsvStream } from "../../app/codes/codes-csv";
import { codesAction } from "../../app/codes/codes-page.server";
import { switchOffCode } from "../../app/codes/switch-off.server";
import { startHarness, type Harness } from "../shopify-admin/support";

const prisma = databaseClient();

// The Codes page's numbers on a real database, and switching a code off through the real
// Shopify library against the stand-in, which checks every document against the app's
// Admin schema and refuses both calls without the optional discount scopes.

const SHOP = "codes-page.myshopify.com";
let seq = 70_000;

async function order(input: {
  outcome: string;
  codes: [string, string][];
  clickId?: string | null;
  redirectedMinor?: bigint;
  at?: Date;
  currency?: string;
}) {
  seq += 1;
  const orderId = String(seq);
  const at = input.at ?? new Date(Date.now() - 86_400_000);
  const currency = input.currency ?? "USD";
  const verification = await prisma.verification.create({
    data: {
      shop: SHOP,
      orderId,
      orderGid: `gid://shopify/Order/${orderId}`,
      orderCreatedAt: at,
      createdAt: at,
      outcome: input.outcome,
      clickId: input.clickId === undefined ? `clk-${orderId}` : input.clickId,
      currency,
      orderFacts: "{}",
    },
  });
  for (const [code, amount] of input.codes)
    await prisma.orderDiscountCode.create({
      data: {
        id: randomUUID(),
        shop: SHOP,
        verificationId: verification.id,
        orderId,
        code,
        amount,
        amountMinor: BigInt(amount.replace(".", "")),
        type: "fixed_amount",
        currency,
        createdAt: at,
      },
    });
  if (input.redirectedMinor !== undefined)
    await prisma.commission.create({
      data: {
        shop: SHOP,
        verificationId: verification.id,
        orderId,
        creatorId: "cr_alice",
        expectedTag: "alice-20",
        arrivedTag: "honey-77",
        orderValue: "100.00",
        currency,
        rate: "10",
        amount: "0",
        amountMinor: input.redirectedMinor,
        redirected: input.outcome === "hijacked",
        createdAt: at,
      },
    });
  return verification;
}

/** Every code of the last 30 days (a function, so that the filter is read inside a test). */
const all = () => parseCodeFilter(new URLSearchParams());

beforeEach(async () => {
  await prisma.codeDeactivation.deleteMany({ where: { shop: SHOP } });
  await prisma.orderDiscountCode.deleteMany({ where: { shop: SHOP } });
  await prisma.commission.deleteMany({ where: { shop: SHOP } });
  await prisma.verification.deleteMany({ where: { shop: SHOP } });
});

describe("code totals", () => {
  it("counts each code's orders with a click, the hijacked share, and the money on hijacked orders, exactly", async () => {
    const first = new Date(Date.now() - 5 * 86_400_000);
    const last = new Date(Date.now() - 2 * 86_400_000);
    await order({ outcome: "hijacked", codes: [["LEAKED", "12.50"]], redirectedMinor: 1000n, at: first });
    await order({
      outcome: "hijacked",
      codes: [
        ["LEAKED", "7.25"],
        ["SHIPFREE", "5.00"],
      ],
      redirectedMinor: 333n,
      at: last,
    });
    // The shopper's spelling: the same code to Shopify.
    await order({ outcome: "matched", codes: [["leaked", "99.00"]], redirectedMinor: 900n });
    await order({ outcome: "matched", codes: [["VIP", "3.00"]], redirectedMinor: 100n });
    // Without a click the order says nothing about hijacking: left out.
    await order({ outcome: "unattributed", codes: [["LEAKED", "50.00"]], clickId: null });
    // Outside a 7-day period.
    await order({ outcome: "hijacked", codes: [["OLD", "1.00"]], at: new Date(Date.now() - 20 * 86_400_000) });

    const rows = await codeTotals(SHOP, parseCodeFilter(new URLSearchParams("days=7")));
    expect(rows.map((r) => r.code)).toEqual(["LEAKED", "SHIPFREE", "VIP"]);
    expect(rows[0]).toMatchObject({
      orders: 3,
      hijacked: 2,
      hijackedShare: "66.7%",
      discountOnHijacked: "USD 19.75",
      redirectedOnHijacked: "USD 13.33",
      firstHijackedAt: first.toISOString(),
      lastHijackedAt: last.toISOString(),
      deactivation: null,
    });
    expect(rows[2]).toMatchObject({ orders: 1, hijacked: 0, hijackedShare: "0.0%", discountOnHijacked: "USD 0.00" });
    expect(rows[2]!.firstHijackedAt).toBeNull();

    const filtered = await codeTotals(SHOP, parseCodeFilter(new URLSearchParams("days=30&code=ship&hijacked=1")));
    expect(filtered.map((r) => r.code)).toEqual(["SHIPFREE"]);
    expect(
      (await codeTotals(SHOP, parseCodeFilter(new URLSearchParams("days=90&hijacked=1")))).map((r) => r.code),
    ).toEqual(["LEAKED", "SHIPFREE", "OLD"]); // one hijacked order each: the larger discount first
    expect(
      (await codeTotals(SHOP, parseCodeFilter(new URLSearchParams("days=7&sort=code")))).map((r) => r.code),
    ).toEqual(["LEAKED", "SHIPFREE", "VIP"]);
    // LIKE's own characters in a search are literal.
    expect(await codeTotals(SHOP, parseCodeFilter(new URLSearchParams("code=%25")))).toEqual([]);
  });

  it("sorts by harm, by orders or by code, as asked", async () => {
    // AAA rides on the most orders and no hijacked one; BBB and CCC on one hijacked order each,
    // BBB giving the larger discount there.
    for (let i = 0; i < 3; i++) await order({ outcome: "matched", codes: [["AAA", "9.00"]] });
    await order({ outcome: "hijacked", codes: [["BBB", "5.00"]] });
    await order({ outcome: "hijacked", codes: [["CCC", "1.00"]] });
    await order({ outcome: "matched", codes: [["CCC", "1.00"]] });
    const codes = async (query: string) =>
      (await codeTotals(SHOP, parseCodeFilter(new URLSearchParams(query)))).map((r) => r.code);
    expect(await codes("sort=harm")).toEqual(["BBB", "CCC", "AAA"]);
    expect(await codes("sort=orders")).toEqual(["AAA", "CCC", "BBB"]);
    expect(await codes("sort=code")).toEqual(["AAA", "BBB", "CCC"]);
  });

  it("shows each code's latest switch-off, whatever case it was recorded in", async () => {
    await order({ outcome: "hijacked", codes: [["LEAKED", "2.00"]] });
    await order({ outcome: "matched", codes: [["VIP", "2.00"]] });
    const earlier = new Date("2026-11-01T09:00:00.000Z");
    const latest = new Date("2026-11-02T10:30:00.000Z");
    await prisma.codeDeactivation.create({
      data: {
        shop: SHOP,
        code: "LEAKED",
        discountId: "gid://shopify/DiscountCodeNode/1",
        userId: "7",
        createdAt: earlier,
      },
    });
    await prisma.codeDeactivation.create({
      data: {
        shop: SHOP,
        code: "leaked",
        discountId: "gid://shopify/DiscountCodeNode/1",
        userId: null,
        createdAt: latest,
      },
    });
    // Another shop's switch-off of the same code is not this shop's.
    await prisma.codeDeactivation.create({
      data: { shop: "other-codes.myshopify.com", code: "VIP", discountId: "gid://shopify/DiscountCodeNode/2" },
    });
    const rows = await codeTotals(SHOP, all());
    expect(rows.map((r) => [r.code, r.deactivation])).toEqual([
      ["LEAKED", { at: latest.toISOString(), userId: null }],
      ["VIP", null],
    ]);
    await prisma.codeDeactivation.deleteMany({ where: { shop: "other-codes.myshopify.com" } });
  });

  it("exports the rows as CSV with the ledger's formula guard", async () => {
    const at = new Date(Date.now() - 3 * 86_400_000);
    await order({ outcome: "hijacked", codes: [['=HYPERLINK("x")', "1.00"]], redirectedMinor: 10n, at });
    await order({ outcome: "matched", codes: [["VIP", "3.00"]], redirectedMinor: 100n });
    const switchedOff = new Date("2026-11-20T08:00:00.000Z");
    await prisma.codeDeactivation.create({
      data: { shop: SHOP, code: "VIP", discountId: "gid://shopify/DiscountCodeNode/3", createdAt: switchedOff },
    });
    const chunks: Buffer[] = [];
    for await (const chunk of codesCsvStream(await codeTotals(SHOP, all()))) chunks.push(Buffer.from(chunk));
    expect(Buffer.concat(chunks).toString("utf8")).toBe(
      [
        "Code,Currency,Orders with a click,Hijacked orders,Share hijacked,Discount on hijacked orders,Commission redirected,First seen hijacked (UTC),Last seen hijacked (UTC),Switched off at (UTC)",
        `"'=HYPERLINK(""X"")",USD,1,1,100.0%,USD 1.00,USD 0.10,${at.toISOString()},${at.toISOString()},`,
        // Never hijacked: no first or last time; switched off: when.
        `VIP,USD,1,0,0.0%,USD 0.00,USD 0.00,,,${switchedOff.toISOString()}`,
        "",
      ].join("\r\n"),
    );
  });
});

describe("switching a code off", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  const graphqlFor = async (shop: string) => (await h.app.unauthenticated.admin(shop)).admin.graphql;

  it("without the optional scopes, Shopify refuses the lookup and nothing is recorded", async () => {
    const shop = "codes-no-scopes.myshopify.com";
    await h.installShop(shop);
    h.standin.store.ensureDiscount(shop, "LEAKED");
    const result = await switchOffCode({ graphql: await graphqlFor(shop), shop, code: "LEAKED", userId: "7" });
    expect(result).toMatchObject({ ok: false, reason: "scopes" });
    expect(h.standin.store.discountByCode(h.standin.store.shop(shop), "LEAKED")!.status).toBe("ACTIVE");
    expect(await prisma.codeDeactivation.count({ where: { shop } })).toBe(0);
    expect(h.standin.validationFailures()).toEqual([]);
  });

  it("with them, finds the discount by its code, deactivates it, and records who and when", async () => {
    const shop = "codes-scopes.myshopify.com";
    await h.installShop(shop);
    h.standin.store.ensureDiscount(shop, "Leaked", "Spring sale");
    // What App Bridge's scopes.request leads to once the merchant accepts.
    h.standin.store.grantScopes(shop, ["read_discounts", "write_discounts"]);
    const now = new Date("2026-11-26T12:00:00.000Z");
    const result = await switchOffCode({ graphql: await graphqlFor(shop), shop, code: "LEAKED", userId: "7", now });
    expect(result).toEqual({ ok: true, code: "LEAKED", title: "Spring sale", at: now.toISOString() });
    expect(h.standin.store.discountByCode(h.standin.store.shop(shop), "leaked")!.status).toBe("EXPIRED");
    expect(
      await prisma.codeDeactivation.findMany({
        where: { shop },
        select: { code: true, userId: true, createdAt: true },
      }),
    ).toEqual([{ code: "LEAKED", userId: "7", createdAt: now }]);
    const unknown = await switchOffCode({ graphql: await graphqlFor(shop), shop, code: "NOPE", userId: null });
    expect(unknown).toMatchObject({ ok: false, reason: "not-found" });
    expect(h.standin.validationFailures()).toEqual([]);
    await prisma.codeDeactivation.deleteMany({ where: { shop } });
  });

  it("refuses a form without a usable code before calling Shopify", async () => {
    const graphql = async () => {
      throw new Error("Shopify must not be called");
    };
    for (const code of ["", " ", "a\u0000b", "x".repeat(256)]) {
      const form = new FormData();
      form.set("intent", "switch-off");
      form.set("code", code);
      expect((await codesAction({ graphql, shop: SHOP, form, userId: null })).status).toBe(400);
    }
  });
});
