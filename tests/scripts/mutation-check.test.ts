import { describe, expect, it } from "vitest";
import {
  checkMutationReport,
  isHollow,
  scoreTable,
  type MutationReport,
  type ReportMutant,
} from "../../scripts/mutation-check";
import { portableIncrementalReport } from "../../scripts/mutate";

// The check `npm run mutate` runs on Stryker's report: a run that examined nothing, or a module
// under its threshold, must fail however good its numbers look.

let nextId = 0;
function mutant(status: string, more: Partial<ReportMutant> = {}): ReportMutant {
  const line = ++nextId;
  return {
    id: String(line),
    mutatorName: "ConditionalExpression",
    replacement: "true",
    status,
    static: false,
    coveredBy: ["0", "1"],
    ...(status === "Killed" || status === "Survived" ? { testsCompleted: 1 } : {}),
    ...(status === "Killed" ? { killedBy: ["0"] } : {}),
    location: { start: { line, column: 3 }, end: { line, column: 9 } },
    ...more,
  };
}

const times = (n: number, make: () => ReportMutant) => Array.from({ length: n }, make);

function report(files: Record<string, ReportMutant[]>): MutationReport {
  return {
    files: Object.fromEntries(Object.entries(files).map(([file, mutants]) => [file, { mutants }])),
    thresholds: { high: 90, low: 80, break: 80 },
  };
}

const healthy = () =>
  report({
    "app/verification/retry-policy.ts": [
      ...times(6, () => mutant("Killed")),
      mutant("Timeout", { testsCompleted: undefined }),
      mutant("CompileError", { coveredBy: [] }),
    ],
    "app/commissions/commission-amount.ts": [
      ...times(8, () => mutant("Killed")),
      // An equivalent mutant: tests ran against it, and it survived them.
      mutant("Survived", { testsCompleted: 3 }),
      // A static mutant: every test ran against it.
      mutant("Killed", { static: true, coveredBy: [], testsCompleted: 12 }),
    ],
  });

describe("the mutation check", () => {
  it("passes a healthy report, and counts each module as Stryker scores it", () => {
    const result = checkMutationReport(healthy(), { threshold: 80 });
    expect(result.failures).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.hollow).toEqual([]);
    const amount = result.rows.find((row) => row.file === "app/commissions/commission-amount.ts")!;
    expect(amount).toMatchObject({ mutants: 10, killed: 9, survived: 1, timeout: 0, noCoverage: 0, errors: 0 });
    expect(amount.score).toBeCloseTo(90);
    // Compile errors are not valid mutants; a timeout counts as detected.
    const policy = result.rows.find((row) => row.file === "app/verification/retry-policy.ts")!;
    expect(policy).toMatchObject({ mutants: 8, killed: 6, timeout: 1, errors: 1, score: 100 });
    expect(result.total).toMatchObject({ mutants: 18, killed: 15, timeout: 1, survived: 1 });
  });

  it("fails a hollow run: covered mutants scored Survived with no test run, named with examples", () => {
    // What StrykerJS 9.6.1's vitest runner wrote under vitest 5: every non-static mutant covered
    // by tests, none of them run, all Survived. The static one still ran every test.
    const hollow = report({
      "app/verification/retry-policy.ts": [
        ...times(7, () => mutant("Survived", { testsCompleted: 0 })),
        mutant("Killed", { static: true, coveredBy: [], testsCompleted: 7 }),
      ],
    });
    const result = checkMutationReport(hollow, { threshold: 10 });
    expect(result.ok).toBe(false);
    expect(result.hollow).toHaveLength(7);
    const message = result.failures[0] ?? "";
    expect(message).toMatch(/^HOLLOW RUN: 7 mutant\(s\) scored Survived with no test run/);
    expect(message).toContain("app/verification/retry-policy.ts:");
    expect(message).toContain('ConditionalExpression -> "true" (covered by 2 test(s), 0 run)');
    // Five examples, then how many more.
    expect(message.match(/retry-policy\.ts:\d+:3 /g)).toHaveLength(5);
    expect(message).toContain("... and 2 more");
  });

  it("fails even one hollow mutant in an otherwise healthy report, and one with no count recorded", () => {
    const one = healthy();
    one.files["app/commissions/commission-amount.ts"]!.mutants.push(mutant("Survived", { testsCompleted: 0 }));
    expect(checkMutationReport(one, { threshold: 80 }).failures[0]).toMatch(/^HOLLOW RUN: 1 mutant/);
    expect(isHollow(mutant("Survived", { testsCompleted: undefined }))).toBe(true);
    expect(isHollow(mutant("Survived", { testsCompleted: 1 }))).toBe(false);
    // Not run is fine when Stryker says so: no test covered it, and it counts against the score.
    expect(isHollow(mutant("NoCoverage", { coveredBy: [] }))).toBe(false);
    expect(isHollow(mutant("Timeout"))).toBe(false);
  });

  it("fails a module under the threshold, and only that module", () => {
    const low = report({
      "app/verification/retry-policy.ts": times(5, () => mutant("Killed")),
      // 7 detected of 9 valid: 77.78%.
      "app/webhooks/body-budget.ts": [
        ...times(6, () => mutant("Killed")),
        mutant("Timeout"),
        mutant("Survived", { testsCompleted: 2 }),
        mutant("NoCoverage", { coveredBy: [] }),
      ],
    });
    const result = checkMutationReport(low, { threshold: 80 });
    expect(result.ok).toBe(false);
    expect(result.failures).toEqual([
      "app/webhooks/body-budget.ts: mutation score 77.77% is under the threshold of 80%",
    ]);
    // The same module at the threshold exactly passes.
    low.files["app/webhooks/body-budget.ts"]!.mutants.push(mutant("Killed"));
    expect(checkMutationReport(low, { threshold: 80 }).ok).toBe(true);
  });

  it("fails a report that measured nothing: empty, a module without a valid mutant, pending mutants, a module missing", () => {
    expect(checkMutationReport(report({}), { threshold: 80 }).failures).toEqual([
      "the report holds no module: nothing was mutated",
    ]);
    const nothing = report({ "app/codes/code-filter.ts": [mutant("CompileError"), mutant("Ignored")] });
    expect(checkMutationReport(nothing, { threshold: 80 }).failures).toEqual([
      "app/codes/code-filter.ts: no valid mutant, nothing measured",
    ]);
    const pending = healthy();
    pending.files["app/verification/retry-policy.ts"]!.mutants.push(mutant("Pending"));
    expect(checkMutationReport(pending, { threshold: 80 }).failures).toEqual([
      "1 mutant(s) still pending (in app/verification/retry-policy.ts): the run did not finish",
    ]);
    const missing = checkMutationReport(healthy(), {
      threshold: 80,
      expectModules: ["app/verification/retry-policy.ts", "app/webhooks/body-budget.ts"],
    });
    expect(missing.failures).toEqual(["app/webhooks/body-budget.ts: configured to be mutated, but not in the report"]);
  });

  it("prints the per-module table the docs take", () => {
    const table = scoreTable(checkMutationReport(healthy(), { threshold: 80 }));
    expect(table.split("\n")).toEqual([
      "| Module | Mutants | Killed | Timed out | Survived | No coverage | Errors | Score % |",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
      "| `app/commissions/commission-amount.ts` | 10 | 9 | 0 | 1 | 0 | 0 | 90.00 |",
      "| `app/verification/retry-policy.ts` | 8 | 6 | 1 | 0 | 0 | 1 | 100.00 |",
      "| **All** | 18 | 15 | 1 | 1 | 0 | 1 | 94.11 |",
    ]);
  });
});

describe("the committed baseline", () => {
  it("names no path of the machine that wrote it, and keeps what incremental mode reuses", () => {
    const root = "/home/someone/tag-guard";
    const written = {
      ...healthy(),
      projectRoot: root,
      files: {
        "app/verification/retry-policy.ts": {
          source: "export const x = 1;\n",
          mutants: [
            {
              ...mutant("Killed"),
              statusReason: `AssertionError at ${root}/reports/stryker-tmp/sandbox-AbC123/tests/x.test.ts:3:1`,
            },
            { ...mutant("CompileError"), statusReason: "app/verification/retry-policy.ts(9,79): error TS2355" },
            { ...mutant("Survived"), statusReason: `left at ${root}/app/verification/retry-policy.ts` },
          ],
        },
      },
      testFiles: { "tests/x.test.ts": { source: "it()", tests: [{ id: "0", name: "x" }] } },
    };
    const portable = portableIncrementalReport(JSON.stringify(written), root);
    expect(portable).not.toContain(root);
    expect(portable).not.toContain("sandbox-");
    const read = JSON.parse(portable);
    expect(read.projectRoot).toBe(".");
    const [killed, compileError, survived] = read.files["app/verification/retry-policy.ts"].mutants;
    expect(killed).not.toHaveProperty("statusReason");
    expect(killed).toMatchObject({ status: "Killed", killedBy: ["0"], coveredBy: ["0", "1"], testsCompleted: 1 });
    expect(compileError.statusReason).toBe("app/verification/retry-policy.ts(9,79): error TS2355");
    expect(survived.statusReason).toBe("left at app/verification/retry-policy.ts");
    expect(read.files["app/verification/retry-policy.ts"].source).toBe("export const x = 1;\n");
    expect(read.testFiles).toEqual(written.testFiles);
  });
});
