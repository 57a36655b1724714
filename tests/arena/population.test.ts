import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Decimal from "decimal.js";
import { describe, expect, it } from "vitest";

// `npm run arena -- --population`, run as a user runs it: a tiny population (six shoppers over
// two simulated days on one shop: honest creators, both attacker accounts, the rewrite-only
// account and an organic shopper), through the production build, the real embed, pixel and
// attacker extension in Chromium, the hold and the merchant's payout; then the report's shape
// and its sums. Seed 15 brings two shoppers behind one address (two orders in one journey) and
// two late reports. What the app decides is the app's tests'
// business; this checks that the run plays every journey and reports what it found faithfully.

const dir = mkdtempSync(path.join(tmpdir(), "population-test-"));

function arena(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "sandbox/arena/main.ts", ...args], {
      cwd: process.cwd(),
      env: process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out = { stdout: "", stderr: "" };
    child.stdout.on("data", (chunk: Buffer) => (out.stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (out.stderr += chunk.toString()));
    child.on("exit", (code) => resolve({ code, ...out }));
  });
}

interface Creator {
  creatorId: string;
  kind: string;
  ordersCredited: number;
  rightfulAmount: string;
  paidAmount: string;
  suspectedAfterOrders: number | null;
}

interface Row {
  entry: string;
  shopper: string;
  account: string | null;
  orderId: string | null;
  rightfulCreatorId: string | null;
  commissionStatus: string | null;
  otherOrder?: { rightfulCreatorId: string | null; commissionStatus: string | null };
  error?: string;
}

interface Report {
  journeys: number;
  days: number;
  creators: Creator[];
  attackerPaidAmount: string;
  honestPaidShare: string | null;
  reviewsPerThousandOrders: number;
  orders: number;
  reviewCount: number;
  mix: { shoppers: Record<string, number> };
  journeyResults: Row[];
}

const AMOUNT = /^\d+\.\d{2}$/;
const total = (amounts: string[]) => amounts.reduce((sum, amount) => sum.plus(amount), new Decimal(0));

describe("npm run arena -- --population", { timeout: 300_000 }, () => {
  it("plays a small population on one shop, pays it out and reports per creator", async () => {
    const file = path.join(dir, "population.json");
    const { code, stdout, stderr } = await arena([
      "--population",
      "6",
      "--days",
      "2",
      "--seed",
      "15",
      "--report",
      file,
    ]);
    expect(stderr).not.toMatch(/arena failed/);
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(file, "utf8")) as Report;

    expect(report).toMatchObject({ journeys: 6, days: 2 });
    expect(report.journeyResults).toHaveLength(6);
    expect(report.journeyResults.filter((row) => row.error)).toEqual([]);
    expect(Object.values(report.mix.shoppers).reduce((a, b) => a + b, 0)).toBe(6);
    expect(report.creators.map((c) => [c.creatorId, c.kind])).toEqual([
      ["cr_alice", "honest"],
      ["cr_bob", "honest"],
      ["cr_carol", "honest"],
      ["cr_dana", "honest"],
      ["cr_attacker_1", "attacker"],
      ["cr_attacker_2", "attacker"],
      ["cr_rewriter", "rewrite-only"],
    ]);
    for (const creator of report.creators) {
      expect(Object.keys(creator)).toEqual(expect.arrayContaining(["suspectedAfterOrders"]));
      expect(creator.rightfulAmount).toMatch(AMOUNT);
      expect(creator.paidAmount).toMatch(AMOUNT);
      expect(Number.isInteger(creator.ordersCredited)).toBe(true);
    }
    // The rewrite-only account plays nothing else.
    expect(report.journeyResults.filter((row) => row.account === "cr_rewriter").map((row) => row.entry)).toEqual([
      "rewrite-landing-request",
    ]);

    // Every order is one of the journeys'; two shoppers behind one address place two.
    const rows = report.journeyResults;
    expect(report.orders).toBe(rows.filter((r) => r.orderId).length + rows.filter((r) => r.otherOrder).length);
    expect(rows.find((r) => r.entry === "shared-address")?.otherOrder?.rightfulCreatorId).toMatch(/^cr_/);
    // Only the creators a journey's truth names are owed anything; attacker accounts never are.
    const owed = new Set(rows.flatMap((r) => [r.rightfulCreatorId, r.otherOrder?.rightfulCreatorId ?? null]));
    for (const creator of report.creators)
      expect(new Decimal(creator.rightfulAmount).gt(0)).toBe(owed.has(creator.creatorId));

    // The figures are the creators' sums, as the report defines them.
    const of = (kind: string, field: "paidAmount" | "rightfulAmount") =>
      total(report.creators.filter((c) => c.kind === kind).map((c) => c[field]));
    expect(report.attackerPaidAmount).toBe(of("attacker", "paidAmount").toFixed(2));
    expect(report.honestPaidShare).toBe(
      of("honest", "paidAmount")
        .dividedBy(of("honest", "rightfulAmount"))
        .toDecimalPlaces(4, Decimal.ROUND_DOWN)
        .toFixed(4),
    );
    const reviews =
      rows.filter((r) => r.commissionStatus === "review").length +
      rows.filter((r) => r.otherOrder?.commissionStatus === "review").length;
    expect(report.reviewCount).toBe(reviews);
    expect(report.reviewsPerThousandOrders).toBe(Math.round((reviews * 10_000) / report.orders) / 10);
    // The payout ran: the merchant paid what the Payouts page showed as payable.
    expect(rows.some((r) => r.commissionStatus === "paid")).toBe(true);

    expect(stdout).toMatch(/^Mix \(seed 15;/m);
    expect(stdout).toMatch(/^creator\s+kind\s+credited\s+rightful\s+paid\s+suspected after/m);
  });
});
