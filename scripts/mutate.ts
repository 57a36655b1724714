// `npm run mutate`: StrykerJS, then scripts/mutation-check.ts on its report, so a run that
// examined nothing, or a module under its threshold, fails loudly instead of printing a score.
//
//   npm run mutate                        the whole set, incremental from reports/mutation/
//   npm run mutate -- --mutate <file>     one module (any Stryker option passes through)
//   npm run mutate -- --force             every mutant again, nothing reused
//   npm run mutate:baseline               the whole set, then, if the check passes, its incremental
//                                         file written to the committed baseline (to commit)
//   npm run mutate:ci                     CI: incremental from the committed baseline only, within
//                                         a time budget (MUTATE_CI_BUDGET_MINUTES, default 15)
//
// The working incremental file (reports/, not committed) is seeded from the committed baseline
// when it is missing, so a fresh clone's first run only tests what changed since the baseline.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { checkMutationReport, moduleThreshold, strykerConfig, summary, type MutationReport } from "./mutation-check";

const ROOT = path.resolve(import.meta.dirname, "..");

type Mode = "run" | "baseline" | "ci";

/**
 * The incremental report without this machine in it: the project's absolute path (the report's
 * projectRoot, a killed mutant's stack trace through Stryker's sandbox) made relative, and the
 * killed and timed-out mutants' failure messages dropped (they differ on every run and are not
 * used to reuse a result). Throws if the path is still in it.
 */
export function portableIncrementalReport(text: string, root: string): string {
  const report = JSON.parse(text) as MutationReport & { projectRoot?: string };
  for (const file of Object.values(report.files))
    for (const mutant of file.mutants as (MutationReport["files"][string]["mutants"][number] & {
      statusReason?: string;
    })[])
      if (mutant.status === "Killed" || mutant.status === "Timeout") delete mutant.statusReason;
  report.projectRoot = ".";
  const escaped = root.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const portable = JSON.stringify(report, null, 2)
    .replace(new RegExp(`${escaped}/reports/stryker-tmp/sandbox-[^/"]+/`, "g"), "")
    .replace(new RegExp(`${escaped}/`, "g"), "")
    .replace(new RegExp(escaped, "g"), ".");
  if (portable.includes(root)) throw new Error(`the incremental report still names ${root}`);
  return `${portable}\n`;
}

function parseArgs(argv: string[]): { mode: Mode; strykerArgs: string[] } {
  const mode: Mode = argv.includes("--ci") ? "ci" : argv.includes("--baseline") ? "baseline" : "run";
  return { mode, strykerArgs: argv.filter((arg) => arg !== "--ci" && arg !== "--baseline") };
}

/** Runs Stryker; null when it was stopped for overrunning `budgetMs`. */
function stryker(args: string[], budgetMs: number | null): Promise<number | null> {
  const bin = path.join(ROOT, "node_modules", ".bin", "stryker");
  return new Promise((resolve, reject) => {
    // A process group of its own, so that overrunning the budget stops its test runners too.
    const child = spawn(bin, ["run", ...args], { cwd: ROOT, stdio: "inherit", detached: true });
    let overrun = false;
    const timer =
      budgetMs === null
        ? undefined
        : setTimeout(() => {
            overrun = true;
            process.kill(-child.pid!, "SIGTERM");
            setTimeout(() => {
              try {
                process.kill(-child.pid!, "SIGKILL");
              } catch {
                // Gone already.
              }
            }, 10_000).unref();
          }, budgetMs);
    const stop = () => process.kill(-child.pid!, "SIGTERM");
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve(overrun ? null : (code ?? (signal ? 128 : 1)));
    });
  });
}

async function main(): Promise<number> {
  const config = await strykerConfig();
  const { committedIncrementalFile } = config;
  const { mode, strykerArgs } = parseArgs(process.argv.slice(2));
  const working = path.join(ROOT, config.incrementalFile);
  const baseline = path.join(ROOT, committedIncrementalFile);
  const reportFile = path.join(ROOT, config.jsonReporter.fileName);
  const narrowed = strykerArgs.some((arg) => arg === "--mutate" || arg === "-m" || arg.startsWith("--mutate="));

  if (mode !== "run" && (narrowed || process.env.MUTATE_SUITES)) {
    console.error(`npm run mutate:${mode} runs every module against every suite: no --mutate, no MUTATE_SUITES.`);
    return 2;
  }
  if (mode === "ci") {
    if (!existsSync(baseline)) {
      console.error(
        `No committed baseline at ${committedIncrementalFile}: run \`npm run mutate:baseline\` and commit it.`,
      );
      return 1;
    }
    // Only the committed baseline counts in CI, never what an earlier local run left.
    mkdirSync(path.dirname(working), { recursive: true });
    copyFileSync(baseline, working);
  } else if (!existsSync(working) && existsSync(baseline) && !strykerArgs.includes("--force")) {
    mkdirSync(path.dirname(working), { recursive: true });
    copyFileSync(baseline, working);
    console.log(`Starting from the committed baseline, ${committedIncrementalFile}.`);
  }
  // A report left by an earlier run must not be judged as this one's.
  rmSync(reportFile, { force: true });

  const budgetMinutes = Number(process.env.MUTATE_CI_BUDGET_MINUTES ?? 15);
  const started = Date.now();
  const exitCode = await stryker(strykerArgs, mode === "ci" ? budgetMinutes * 60_000 : null);
  const took = `${((Date.now() - started) / 60_000).toFixed(1)} min`;
  if (exitCode === null) {
    console.error(
      `\nMUTATION RUN STOPPED: over its budget of ${budgetMinutes} minutes (${took}). The committed baseline,\n` +
        `${committedIncrementalFile}, is too far behind the code: too many mutants' code or tests changed\n` +
        "since it was written. Run `npm run mutate:baseline` and commit the file it writes.",
    );
    return 1;
  }
  if (!existsSync(reportFile)) {
    console.error(`\nMUTATION RUN FAILED: Stryker exited with ${exitCode} after ${took} and wrote no report.`);
    return exitCode || 1;
  }
  const threshold = moduleThreshold(config);
  const result = checkMutationReport(JSON.parse(readFileSync(reportFile, "utf8")) as MutationReport, {
    threshold,
    // Without --mutate the report must cover every configured module.
    expectModules: narrowed ? [] : config.mutate,
  });
  console.log(`\n${summary(result, threshold)}\nStryker took ${took} (exit code ${exitCode}).`);
  if (!result.ok || exitCode !== 0) return exitCode || 1;

  if (mode === "baseline") {
    mkdirSync(path.dirname(baseline), { recursive: true });
    writeFileSync(baseline, portableIncrementalReport(readFileSync(working, "utf8"), ROOT));
    console.log(`Wrote ${committedIncrementalFile}: commit it with the code it was measured on.`);
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = await main();
