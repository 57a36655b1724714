import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen } from "../../sandbox/listen";

// Runs `npm run arena` as a user would, as a separate process: a handful of the catalogue's
// attacks and honest journeys through the production build, the real embed and pixel in
// Chromium, the stand-ins and the built-in attacker extension; and an outside extension
// (tests/fixtures/harmless-extension) loaded with --extension, which reports to a server of
// this test that it ran and what arena-config.json held.

const dir = mkdtempSync(path.join(tmpdir(), "arena-test-"));

function runArena(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // One node process with tsx as a loader, so a signal reaches the arena itself.
    const child = spawn(process.execPath, ["--import", "tsx", "sandbox/arena/main.ts", ...args], {
      cwd: process.cwd(),
      env: process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

interface Report {
  strategies: {
    name: string;
    kind: string;
    expected: string;
    credited: string;
    verification: { witnesses: { landing: string[]; landingSite: string | null } } | null;
  }[];
  attackerCredited: number;
  honestWrong: number;
  reviewCount: number;
}

describe("npm run arena", { timeout: 240_000 }, () => {
  it("plays attacks and honest journeys end to end and reports who got paid", async () => {
    const reportFile = path.join(dir, "report.json");
    const only = [
      "forge-pixel-own-token",
      "late-report-organic",
      "race-embed",
      "visitor-swap",
      "returning-visitor",
      "buy-it-now",
    ];
    const { code, stdout, stderr } = await runArena(["--only", only.join(","), "--report", reportFile]);
    expect(stderr).not.toMatch(/arena failed/);
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(reportFile, "utf8")) as Report;
    expect(Object.keys(report).sort()).toEqual(["attackerCredited", "honestWrong", "reviewCount", "strategies"]);
    const credited = Object.fromEntries(report.strategies.map((s) => [s.name, [s.kind, s.expected, s.credited]]));
    expect(credited).toEqual({
      "forge-pixel-own-token": ["attack", "rightful", "rightful"],
      "late-report-organic": ["attack", "nobody", "nobody"],
      "race-embed": ["attack", "rightful", "rightful"],
      "visitor-swap": ["attack", "rightful", "rightful"],
      "returning-visitor": ["honest", "rightful", "rightful"],
      "buy-it-now": ["honest", "rightful", "rightful"],
    });
    expect(report).toMatchObject({ attackerCredited: 0, honestWrong: 0, reviewCount: 0 });
    // The swap rewrote Shopify's record of the order's visit; the click the app saw first kept the credit.
    const swap = report.strategies.find((s) => s.name === "visitor-swap")!.verification!.witnesses;
    expect(swap.landingSite).not.toBe(swap.landing[0]);
    // The race was won: the attacker's touch reached the app before the embed's, and lost all the same.
    const race = report.strategies.find((s) => s.name === "race-embed")!.verification!.witnesses;
    expect(race.landing).toHaveLength(2);
    expect(race.landing[0]).not.toBe(race.landingSite);
    expect(race.landing[1]).toBe(race.landingSite);
    expect(stdout).toMatch(/^late-report-organic\s+attack\s+nobody\s+nobody\s+unattributed\s/m);
    expect(stdout).toMatch(/Attacker credited: 0; honest journeys credited wrongly: 0; held for review: 0/);
  });

  describe("--extension", () => {
    const told: { what: string; body: { config: Record<string, unknown>; page?: string } }[] = [];
    const probe = createServer((request, response) => {
      let text = "";
      request.on("data", (chunk: Buffer) => (text += chunk.toString()));
      request.on("end", () => {
        told.push({ what: request.url!.slice(1), body: JSON.parse(text) });
        response.writeHead(204).end();
      });
    });
    let extension: string;
    beforeAll(async () => {
      const { url } = await listen(probe);
      extension = path.join(dir, "outside-extension");
      cpSync(path.resolve("tests/fixtures/harmless-extension"), extension, { recursive: true });
      writeFileSync(path.join(extension, "probe.json"), JSON.stringify({ url }));
    });
    afterAll(() => new Promise<void>((resolve) => probe.close(() => resolve())));

    it("loads an outside extension into every honest journey, with arena-config.json written for it", async () => {
      const reportFile = path.join(dir, "outside.json");
      const { code, stdout, stderr } = await runArena([
        "--extension",
        extension,
        "--only",
        "alice,rewrite-cart",
        "--report",
        reportFile,
      ]);
      expect(stderr).not.toMatch(/arena failed/);
      expect(code).toBe(0);
      expect(stdout).toMatch(/1 attack strategy is skipped/);
      const report = JSON.parse(readFileSync(reportFile, "utf8")) as Report;
      expect(report.strategies.map((s) => [s.name, s.credited])).toEqual([["alice", "rightful"]]);
      // Its background read the config the arena wrote into its copy: exactly the three keys.
      const background = told.find((t) => t.what === "background");
      expect(Object.keys(background!.body.config).sort()).toEqual([
        "attackerCreatorId",
        "clickServiceUrl",
        "storefrontOrigin",
      ]);
      expect(background!.body.config).toMatchObject({
        attackerCreatorId: "cr_attacker",
        storefrontOrigin: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      });
      // Its content script ran on the shopper's pages: the landing through alice's link among them.
      const pages = told.filter((t) => t.what === "content").map((t) => t.body.page);
      expect(pages).toContainEqual(expect.stringMatching(/^\/products\/merino-beanie\?lb_click=clk_/));
      expect(pages).toContainEqual(expect.stringMatching(/^\/checkouts\/cn\/\w+\/thank-you$/));
    });
  });
});
