import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  postgresqlBinaries,
  postgresqlMissing,
  SERVER_VARIABLE,
  startCluster,
  type Cluster,
} from "../support/postgresql-cluster";
import { runDemo } from "../support/run-demo";

// The demo's `payouts`, played by `npm run demo` as a user runs it: once every order has settled
// and the hold (30 days, the default) has passed, each creator's whole payable balance is paid by
// the method named, through the Payouts page, PayPal's through the stand-in ending each item as
// the scenario says; store credit and gift cards are reported as not available yet.

const dir = mkdtempSync(path.join(tmpdir(), "demo-payouts-test-"));
const creators = ["cr_ok", "cr_back", "cr_wait", "cr_fail", "cr_hand", "cr_sc", "cr_gc", "cr_left"];

const scenario = {
  clicks: creators.map((creatorId, i) => ({ ref: `k${i}`, expectedTag: `${creatorId}-tag`, creatorId })),
  // 10% of each: 1.00, 2.00, ... 8.00.
  orders: creators.map((creatorId, i) => ({
    ref: `o${i}`,
    click: `k${i}`,
    arrivedTag: `${creatorId}-tag`,
    subtotal: `${(i + 1) * 10}.00`,
  })),
  payouts: [
    { creatorId: "cr_ok", method: "paypal" },
    { creatorId: "cr_back", method: "paypal", paypalOutcome: "RETURNED" },
    { creatorId: "cr_wait", method: "paypal", paypalOutcome: "UNCLAIMED" },
    { creatorId: "cr_fail", method: "paypal", paypalOutcome: "FAILED" },
    { creatorId: "cr_hand", method: "manual" },
    { creatorId: "cr_sc", method: "store_credit" },
    { creatorId: "cr_gc", method: "gift_card" },
  ],
};

/** Plays the scenario on `env`'s database and checks the report's payouts and payable. */
async function paysByMethod(name: string, env: Record<string, string> = {}) {
  const scenarioFile = path.join(dir, `scenario-${name}.json`);
  const reportFile = path.join(dir, `report-${name}.json`);
  writeFileSync(scenarioFile, JSON.stringify(scenario));
  const run = await runDemo(["--scenario", scenarioFile, "--report", reportFile], undefined, env);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  const report = JSON.parse(readFileSync(reportFile, "utf8")) as {
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
    {
      creatorId: "cr_sc",
      method: "store_credit",
      amount: "6.00",
      currency: "USD",
      status: "failed",
      providerId: null,
    },
    { creatorId: "cr_gc", method: "gift_card", amount: "7.00", currency: "USD", status: "failed", providerId: null },
  ]);
  expect(report.payouts.find((p) => p.creatorId === "cr_sc")).toMatchObject({
    note: expect.stringContaining("not available yet"),
  });
  // Bounced and not-yet-available balances are payable again; the unclaimed one is still with PayPal.
  expect(report.payable).toEqual([
    { creatorId: "cr_back", amount: "2.00", currency: "USD" },
    { creatorId: "cr_fail", amount: "4.00", currency: "USD" },
    { creatorId: "cr_gc", amount: "7.00", currency: "USD" },
    { creatorId: "cr_left", amount: "8.00", currency: "USD" },
    { creatorId: "cr_sc", amount: "6.00", currency: "USD" },
  ]);
  expect(run.stdout).toContain("cr_sc: 6.00 USD by store_credit, failed: store_credit is not available yet");
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
    let cluster: Cluster | null = null;
    let serverUrl: string;
    beforeAll(async () => {
      if (process.env[SERVER_VARIABLE]) serverUrl = process.env[SERVER_VARIABLE];
      else {
        cluster = await startCluster(postgresqlBinaries()!);
        serverUrl = cluster.url;
      }
    });
    afterAll(() => cluster?.stop());

    it("pays and reports as on SQLite", async () => {
      const report = (await paysByMethod("postgresql", { DATABASE_URL: serverUrl })) as { database?: string };
      expect(report.database).toBe("postgresql");
    });
  },
);
