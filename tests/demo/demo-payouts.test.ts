import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { postgresqlMissing } from "../support/postgresql-cluster";
import { runDemo } from "../support/run-demo";
import { suitePostgresql } from "../support/suite-postgresql";

// The demo's `payouts`, played by `npm run demo` as a user runs it: once every order has settled
// and the hold (30 days, the default) has passed, each creator's whole payable balance is paid by
// the method named, through the Payouts page: PayPal's through its stand-in ending each item as
// the scenario says, store credit and gift cards through the Shopify stand-in (read back here over
// its management API while the demo serves), a balance in another currency than the shop's refused.

const dir = mkdtempSync(path.join(tmpdir(), "demo-payouts-test-"));
const creators = ["cr_ok", "cr_back", "cr_wait", "cr_fail", "cr_hand", "cr_sc", "cr_gc", "cr_left", "cr_eur"];

const scenario = {
  clicks: creators.map((creatorId, i) => ({ ref: `k${i}`, expectedTag: `${creatorId}-tag`, creatorId })),
  // 10% of each: 1.00, 2.00, ... 9.00 (cr_eur's in euros, the shop's currency being dollars).
  orders: creators.map((creatorId, i) => ({
    ref: `o${i}`,
    click: `k${i}`,
    arrivedTag: `${creatorId}-tag`,
    subtotal: `${(i + 1) * 10}.00`,
    ...(creatorId === "cr_eur" && { currency: "EUR" }),
  })),
  payouts: [
    { creatorId: "cr_ok", method: "paypal" },
    { creatorId: "cr_back", method: "paypal", paypalOutcome: "RETURNED" },
    { creatorId: "cr_wait", method: "paypal", paypalOutcome: "UNCLAIMED" },
    { creatorId: "cr_fail", method: "paypal", paypalOutcome: "FAILED" },
    { creatorId: "cr_hand", method: "manual" },
    { creatorId: "cr_sc", method: "store_credit" },
    { creatorId: "cr_gc", method: "gift_card" },
    { creatorId: "cr_eur", method: "gift_card" },
  ],
};

interface ShopifyPayouts {
  customers: { gid: string; email: string }[];
  credits: { gid: string; customerGid: string; amount: string; currency: string }[];
  giftCards: { gid: string; code: string; amount: string; currency: string; recipientGid: string | null }[];
}

/** Plays the scenario on `env`'s database and checks the report's payouts and payable. */
async function paysByMethod(name: string, env: Record<string, string> = {}) {
  const scenarioFile = path.join(dir, `scenario-${name}.json`);
  const reportFile = path.join(dir, `report-${name}.json`);
  writeFileSync(scenarioFile, JSON.stringify(scenario));
  // Served, so that the Shopify stand-in can be read once the report is written.
  let shopify: ShopifyPayouts | undefined;
  let requests: { query?: string }[] = [];
  const run = await runDemo(
    ["--scenario", scenarioFile, "--report", reportFile, "--serve"],
    (line, stop) => {
      if (!line.startsWith("DEMO_READY ")) return;
      const ready = JSON.parse(line.slice("DEMO_READY ".length)) as { shopifyStandinUrl: string; shop: string };
      const read = async (what: string) =>
        (await fetch(`${ready.shopifyStandinUrl}/standin/${what}?shop=${ready.shop}`)).json() as Promise<unknown>;
      void Promise.all([read("payouts"), read("requests")])
        .then(([payouts, log]) => {
          shopify = payouts as ShopifyPayouts;
          requests = (log as { requests: { query?: string }[] }).requests;
        })
        .finally(stop);
    },
    env,
  );
  expect(run.stderr).toBe("");
  expect(run.code).toBe(143); // stopped by the signal once the stand-in was read
  const reportText = readFileSync(reportFile, "utf8");
  const report = JSON.parse(reportText) as {
    payouts: {
      creatorId: string;
      method: string;
      amount: string;
      currency: string;
      status: string;
      providerId: string | null;
    }[];
    payable: { creatorId: string; amount: string; currency: string }[];
  };
  const item = expect.stringMatching(/\S/);
  expect(
    report.payouts.map(({ creatorId, method, amount, currency, status, providerId }) => ({
      creatorId,
      method,
      amount,
      currency,
      status,
      providerId,
    })),
  ).toEqual([
    { creatorId: "cr_ok", method: "paypal", amount: "1.00", currency: "USD", status: "paid", providerId: item },
    { creatorId: "cr_back", method: "paypal", amount: "2.00", currency: "USD", status: "returned", providerId: item },
    {
      creatorId: "cr_wait",
      method: "paypal",
      amount: "3.00",
      currency: "USD",
      status: "unclaimed",
      providerId: item,
    },
    { creatorId: "cr_fail", method: "paypal", amount: "4.00", currency: "USD", status: "failed", providerId: item },
    { creatorId: "cr_hand", method: "manual", amount: "5.00", currency: "USD", status: "paid", providerId: null },
    { creatorId: "cr_sc", method: "store_credit", amount: "6.00", currency: "USD", status: "paid", providerId: item },
    { creatorId: "cr_gc", method: "gift_card", amount: "7.00", currency: "USD", status: "paid", providerId: item },
    { creatorId: "cr_eur", method: "gift_card", amount: "9.00", currency: "EUR", status: "failed", providerId: null },
  ]);
  // The app refused the euro balance: gift cards are in the shop's currency, never converted.
  expect(report.payouts.find((p) => p.creatorId === "cr_eur")).toMatchObject({
    note: expect.stringContaining("paid in the shop’s currency (USD) only: cr_eur (EUR)"),
  });
  // What Shopify holds: a customer the app created for each creator by their email, one credit and
  // one gift card for them, each of the balance and each the id the report gives.
  const customer = (creatorId: string) => shopify!.customers.find((c) => c.email === `${creatorId}@creators.demo`)!.gid;
  const paid = (creatorId: string) => report.payouts.find((p) => p.creatorId === creatorId)!.providerId;
  expect(shopify?.customers.map((c) => c.email).sort()).toEqual(["cr_gc@creators.demo", "cr_sc@creators.demo"]);
  expect(shopify?.credits).toEqual([
    expect.objectContaining({ gid: paid("cr_sc"), customerGid: customer("cr_sc"), amount: "6.00", currency: "USD" }),
  ]);
  expect(shopify?.giftCards).toEqual([
    expect.objectContaining({ gid: paid("cr_gc"), recipientGid: customer("cr_gc"), amount: "7.00", currency: "USD" }),
  ]);
  // The card's code is the creator's alone: Shopify sends it to them, the demo never shows it.
  const code = shopify!.giftCards[0]!.code;
  expect(code).toMatch(/\S{8}/);
  expect(run.stdout).not.toContain(code);
  expect(reportText).not.toContain(code);
  // Nor did it reach the app, whose logs could then hold it: none of its Admin requests asked for it.
  expect(requests.some((r) => r.query?.includes("giftCardCreate"))).toBe(true);
  expect(requests.filter((r) => /\b(giftCardCode|maskedCode|lastCharacters)\b/.test(r.query ?? ""))).toEqual([]);
  // Bounced balances are payable again, as is the one in another currency (as the Payouts page
  // lists them: by currency, then creator); the unclaimed one is still with PayPal.
  expect(report.payable).toEqual([
    { creatorId: "cr_eur", amount: "9.00", currency: "EUR" },
    { creatorId: "cr_back", amount: "2.00", currency: "USD" },
    { creatorId: "cr_fail", amount: "4.00", currency: "USD" },
    { creatorId: "cr_left", amount: "8.00", currency: "USD" },
  ]);
  expect(run.stdout).toContain(`cr_sc: 6.00 USD by store_credit, paid (store credit transaction ${paid("cr_sc")})`);
  expect(run.stdout).toContain(`cr_gc: 7.00 USD by gift_card, paid (gift card ${paid("cr_gc")})`);
  return report;
}

describe("npm run demo's payouts", { timeout: 240_000 }, () => {
  it("pays each balance by its method once the hold has passed, and reports what is payable after", async () => {
    await paysByMethod("sqlite");
  });

  it("refuses a payout naming an unknown method, a creator no click names, or a PayPal outcome elsewhere, by its field", async () => {
    const refused = async (payouts: object[]) => {
      const scenarioFile = path.join(dir, "bad.json");
      writeFileSync(scenarioFile, JSON.stringify({ ...scenario, payouts }));
      const run = await runDemo(["--scenario", scenarioFile]);
      expect(run.code).toBe(2);
      return run.stderr;
    };
    expect(await refused([{ creatorId: "cr_ok", method: "bitcoin" }])).toContain("payouts.0.method: Invalid option");
    const stderr = await refused([
      { creatorId: "cr_nobody", method: "manual" },
      { creatorId: "cr_hand", method: "manual", paypalOutcome: "FAILED" },
      { creatorId: "cr_hand", method: "paypal" },
    ]);
    expect(stderr).toContain('payouts.0.creatorId: names creator "cr_nobody", whom no click of the scenario names');
    expect(stderr).toContain('payouts.1.paypalOutcome: `paypalOutcome` applies with `method: "paypal"`');
    expect(stderr).toContain('payouts.2.creatorId: pays creator "cr_hand" twice');
  });
});

// Without PostgreSQL this says why (and vitest.config.ts already refuses to run in CI without it).
const missing = postgresqlMissing();
describe.skipIf(missing)(
  `npm run demo's payouts on PostgreSQL${missing ? ` (skipped: ${missing})` : ""}`,
  { timeout: 240_000 },
  () => {
    const serverUrl = suitePostgresql();

    it("pays and reports as on SQLite", async () => {
      const report = (await paysByMethod("postgresql", { DATABASE_URL: serverUrl() })) as { database?: string };
      expect(report.database).toBe("postgresql");
    });
  },
);
