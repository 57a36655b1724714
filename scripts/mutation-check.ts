// Judges a Stryker report (reports/mutation/mutation.json) so that a mutation run cannot pass
// while it measured nothing. Run by `npm run mutate` (scripts/mutate.ts) after Stryker; on its
// own: `npx tsx scripts/mutation-check.ts [report.json]`.
//
// It fails on:
// - a hollow mutant: scored Survived although not one test ran against it (testsCompleted 0).
//   "Survived" means tests ran and passed; with none run, the mutant was never examined. This
//   is what StrykerJS 9.6.1's vitest runner did to every non-static mutant under vitest 5 (its
//   per-mutant test filter matched no test name), and any future runner/vitest mismatch that
//   filters every test away looks the same, whatever its cause;
// - a module whose score is under the threshold: (killed + timed out) / (killed + timed out +
//   survived + no coverage), compile and runtime errors not counted;
// - a module with no valid mutant at all (nothing measured), a mutant still pending (a report
//   from an interrupted run), a module expected and missing, an empty report.

import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

export interface ReportMutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: string;
  static?: boolean;
  coveredBy?: string[];
  killedBy?: string[];
  testsCompleted?: number;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}

export interface MutationReport {
  files: Record<string, { mutants: ReportMutant[] }>;
  thresholds?: { high: number; low: number; break?: number | null };
}

export interface ModuleRow {
  file: string;
  mutants: number;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  /** Compile errors and runtime errors: not valid mutants, not in the score. */
  errors: number;
  ignored: number;
  /** Percent, or null when the module has no valid mutant. */
  score: number | null;
}

export interface HollowMutant {
  file: string;
  mutant: ReportMutant;
}

export interface CheckResult {
  ok: boolean;
  rows: ModuleRow[];
  total: ModuleRow;
  hollow: HollowMutant[];
  /** One line each: why the check failed. */
  failures: string[];
}

export interface CheckOptions {
  /** Lowest score a module may have, in percent. */
  threshold: number;
  /** Modules that must be in the report (a full or CI run: every module the config mutates). */
  expectModules?: readonly string[];
  /** How many hollow mutants to name as examples. */
  examples?: number;
}

/** A Survived mutant no test ran against: never examined. */
export function isHollow(mutant: ReportMutant): boolean {
  return mutant.status === "Survived" && !(typeof mutant.testsCompleted === "number" && mutant.testsCompleted > 0);
}

function tally(file: string, mutants: readonly ReportMutant[]): ModuleRow {
  const count = (...statuses: string[]) => mutants.filter((m) => statuses.includes(m.status)).length;
  const killed = count("Killed");
  const timeout = count("Timeout");
  const survived = count("Survived");
  const noCoverage = count("NoCoverage");
  const valid = killed + timeout + survived + noCoverage;
  return {
    file,
    mutants: mutants.length,
    killed,
    timeout,
    survived,
    noCoverage,
    errors: count("CompileError", "RuntimeError"),
    ignored: count("Ignored"),
    score: valid === 0 ? null : ((killed + timeout) / valid) * 100,
  };
}

export function describeMutant(file: string, mutant: ReportMutant): string {
  const { line, column } = mutant.location.start;
  const replacement = mutant.replacement === undefined ? "" : ` -> ${JSON.stringify(mutant.replacement)}`;
  const covered = mutant.static ? "static" : `covered by ${mutant.coveredBy?.length ?? 0} test(s)`;
  return `${file}:${line}:${column} ${mutant.mutatorName}${replacement} (${covered}, ${mutant.testsCompleted ?? 0} run)`;
}

/** Percent with two decimals, rounded down so that 79.999 never prints as 80.00. */
export const formatScore = (score: number | null) =>
  score === null ? "n/a" : (Math.floor(score * 100) / 100).toFixed(2);

export function checkMutationReport(report: MutationReport, options: CheckOptions): CheckResult {
  const failures: string[] = [];
  const files = Object.entries(report.files ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const rows = files.map(([file, { mutants }]) => tally(file, mutants));
  const total = tally(
    "All modules",
    files.flatMap(([, { mutants }]) => mutants),
  );
  if (files.length === 0) failures.push("the report holds no module: nothing was mutated");

  const hollow = files.flatMap(([file, { mutants }]) => mutants.filter(isHollow).map((mutant) => ({ file, mutant })));
  if (hollow.length > 0) {
    const shown = options.examples ?? 5;
    const examples = hollow.slice(0, shown).map(({ file, mutant }) => `    ${describeMutant(file, mutant)}`);
    const more = hollow.length > shown ? [`    ... and ${hollow.length - shown} more`] : [];
    failures.push(
      [
        `HOLLOW RUN: ${hollow.length} mutant(s) scored Survived with no test run against them: they were never examined.`,
        "  The test runner ran zero tests per mutant (a runner that no longer matches the test framework's test",
        "  names does this), or the results came from an incremental file such a run wrote. Fix the runner,",
        "  delete reports/mutation/stryker-incremental.json and run again with --force. Examples:",
        ...examples,
        ...more,
      ].join("\n"),
    );
  }

  const pending = files.flatMap(([file, { mutants }]) => mutants.filter((m) => m.status === "Pending").map(() => file));
  if (pending.length > 0)
    failures.push(
      `${pending.length} mutant(s) still pending (in ${[...new Set(pending)].join(", ")}): the run did not finish`,
    );

  for (const row of rows) {
    if (row.score === null) failures.push(`${row.file}: no valid mutant, nothing measured`);
    else if (row.score < options.threshold)
      failures.push(
        `${row.file}: mutation score ${formatScore(row.score)}% is under the threshold of ${options.threshold}%`,
      );
  }

  const present = new Set(files.map(([file]) => file));
  for (const file of options.expectModules ?? [])
    if (!present.has(file)) failures.push(`${file}: configured to be mutated, but not in the report`);

  return { ok: failures.length === 0, rows, total, hollow, failures };
}

/** The per-module table, in Markdown (docs/mutation-testing.md takes it as it is). */
export function scoreTable(result: CheckResult): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
  const row = (r: ModuleRow, name: string) =>
    line([name, r.mutants, r.killed, r.timeout, r.survived, r.noCoverage, r.errors, formatScore(r.score)]);
  return [
    line(["Module", "Mutants", "Killed", "Timed out", "Survived", "No coverage", "Errors", "Score %"]),
    line(["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]),
    ...result.rows.map((r) => row(r, `\`${r.file}\``)),
    row(result.total, "**All**"),
  ].join("\n");
}

export function summary(result: CheckResult, threshold: number): string {
  const verdict = result.ok
    ? `Mutation check passed: every module at ${threshold}% or more, no hollow mutant.`
    : [`MUTATION CHECK FAILED (${result.failures.length} problem(s)):`, ...result.failures.map((f) => `- ${f}`)].join(
        "\n",
      );
  return `${scoreTable(result)}\n\n${verdict}`;
}

async function main(): Promise<void> {
  const config = await strykerConfig();
  const file = process.argv[2] ?? config.jsonReporter.fileName;
  const threshold = moduleThreshold(config);
  const result = checkMutationReport(JSON.parse(readFileSync(file, "utf8")) as MutationReport, { threshold });
  console.log(summary(result, threshold));
  process.exitCode = result.ok ? 0 : 1;
}

/** What scripts read of stryker.config.mjs. */
export interface StrykerConfig {
  mutate: string[];
  thresholds: { high: number; low: number; break: number | null };
  incrementalFile: string;
  jsonReporter: { fileName: string };
  /** The named export beside the config: the committed incremental file (the CI baseline). */
  committedIncrementalFile: string;
}

/** stryker.config.mjs, the one place the modules, thresholds and report paths are named. */
export async function strykerConfig(): Promise<StrykerConfig> {
  const file = path.resolve(import.meta.dirname, "../stryker.config.mjs");
  const loaded = (await import(pathToFileURL(file).href)) as {
    default: Omit<StrykerConfig, "committedIncrementalFile">;
    committedIncrementalFile: string;
  };
  return { ...loaded.default, committedIncrementalFile: loaded.committedIncrementalFile };
}

/** A module's lowest score: the config's breaking threshold, which Stryker applies to the whole run. */
export function moduleThreshold(config: StrykerConfig): number {
  if (typeof config.thresholds.break !== "number") throw new Error("stryker.config.mjs sets no thresholds.break");
  return config.thresholds.break;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
