import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildPixel } from "../../scripts/build-extension";
import { startStack, withCleanups } from "../demo/stack";
import { CATALOGUE, selectEntries, UsageError } from "./catalogue";
import { playEntry, type Arena } from "./play";
import { MAX_JOURNEYS } from "./population/plan";
import { formatSummary } from "./population/report";
import { runPopulation } from "./population/run";
import { arenaFailed, arenaReport, formatFindings, formatMatrix, type StrategyResult } from "./verdict";

// `npm run arena`: plays the catalogue's attacks and honest journeys end to end, through the
// app's production build, the real app embed and web pixel in Chromium, a stand-in storefront
// and Shopify, and the sandbox click service, and prints who got paid for each.

const ROOT = path.resolve(import.meta.dirname, "../..");
const ATTACKER_DIR = path.join(ROOT, "tests/fixtures/attacker-extension");
const log = (line: string) => process.stdout.write(`${line}\n`);

const USAGE = `Usage: npm run arena -- [--only NAME,NAME] [--extension DIR] [--report FILE]
       npm run arena -- --population N --days D [--seed S] [--report FILE]

  --only NAME,NAME  play only these entries of the catalogue
  --extension DIR   load this unpacked Manifest V3 extension into the shopper's browser for every
                    honest journey (arena-config.json is written into a scratch copy of it first);
                    the attack strategies, which need the built-in attacker, are skipped
  --report FILE     write the matrix as JSON: { strategies, attackerCredited, honestWrong, reviewCount }
  --population N    play N shoppers' journeys on one shop instead (honest creators, attacker accounts,
                    organic shoppers mixed), then pass the hold and pay every payable balance; the report
                    is { journeys, days, creators, attackerPaidAmount, honestPaidShare, reviewsPerThousandOrders }
  --days D          the simulated days the population's journeys spread over
  --seed S          the population's seed (default 1): the same seed plays the same mix

The catalogue:
${CATALOGUE.map((entry) => `  ${entry.name.padEnd(34)} ${entry.kind.padEnd(7)} ${entry.description}`).join("\n")}`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      only: { type: "string" },
      extension: { type: "string" },
      report: { type: "string" },
      population: { type: "string" },
      days: { type: "string" },
      seed: { type: "string" },
      help: { type: "boolean", default: false },
    },
    allowPositionals: false,
  });
  if (values.help) {
    log(USAGE);
    return 0;
  }
  const population = populationOptions(values);
  const only = (values.only ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  let entries = selectEntries(only);
  const outsideExtension = values.extension ? path.resolve(values.extension) : null;
  if (outsideExtension) {
    if (!existsSync(path.join(outsideExtension, "manifest.json")))
      throw new UsageError(`--extension ${values.extension}: no manifest.json there (an unpacked extension's folder)`);
    const skipped = entries.filter((entry) => entry.kind === "attack");
    entries = entries.filter((entry) => entry.kind === "honest");
    log(
      `--extension: ${outsideExtension} is loaded into the shopper's browser for every honest journey; ` +
        `${skipped.length} attack strateg${skipped.length === 1 ? "y is" : "ies are"} skipped (they play the built-in attacker)`,
    );
    if (entries.length === 0) throw new UsageError("nothing to play: --extension plays honest journeys only");
  }

  const started = Date.now();
  return withCleanups(async (cleanups) => {
    const { stack, clicks, dialect } = await startStack({
      log,
      shop: "arena.myshopify.com",
      cleanups,
      name: "arena",
    });
    const arena: Arena = {
      stack,
      dialect,
      clicks,
      pixelBundle: (await buildPixel()).toString("utf8"),
      attackerDir: ATTACKER_DIR,
      outsideExtension,
    };
    if (population) {
      const { report, errors } = await runPopulation(arena, { ...population, log });
      log(`\n${formatSummary(report)}`);
      log(`Played in ${Math.round((Date.now() - started) / 1000)} s`);
      if (values.report) writeFileSync(values.report, `${JSON.stringify(report, null, 2)}\n`);
      if (errors > 0) log(`${errors} journeys could not be played`);
      // Attack outcomes are what the run measures; only a journey not played fails it.
      return errors > 0 ? 1 : 0;
    }
    log(`Playing ${entries.length} journeys, each on a shop of its own, in Chromium with the real embed and pixel`);
    const results: StrategyResult[] = [];
    for (const [index, entry] of entries.entries()) {
      const result = await playEntry(arena, entry, index);
      results.push(result);
      log(
        `  ${entry.name}: ${result.credited}${result.error ? ` (error: ${result.error})` : ""} in ${result.seconds} s`,
      );
    }
    const report = arenaReport(results);
    log(`\n${formatMatrix(results)}\n`);
    log(
      `Attacker credited: ${report.attackerCredited}; honest journeys credited wrongly: ${report.honestWrong}; ` +
        `held for review: ${report.reviewCount}; ` +
        `${results.length} journeys in ${Math.round((Date.now() - started) / 1000)} s`,
    );
    const findings = formatFindings(results);
    if (findings) log(`\nWhy, where a journey did not end as expected (the order's Verification row):\n${findings}`);
    if (values.report) writeFileSync(values.report, `${JSON.stringify(report, null, 2)}\n`);
    // As the chaos run: 0 only when nobody was paid wrongly (but in a known exception, which the
    // report still counts) and every journey was played.
    return arenaFailed(results) ? 1 : 0;
  });
}

/** --population N --days D [--seed S], checked; null without --population. */
function populationOptions(values: {
  population?: string;
  days?: string;
  seed?: string;
  only?: string;
  extension?: string;
}): { journeys: number; days: number; seed: number } | null {
  if (values.population === undefined) {
    if (values.days !== undefined || values.seed !== undefined)
      throw new UsageError("--days and --seed go with --population");
    return null;
  }
  if (values.only !== undefined || values.extension !== undefined)
    throw new UsageError("--population plays its own mix: --only and --extension do not apply");
  const journeys = Number(values.population);
  if (!Number.isInteger(journeys) || journeys < 1 || journeys > MAX_JOURNEYS)
    throw new UsageError(`--population takes a whole number of journeys from 1 to ${MAX_JOURNEYS}`);
  const days = Number(values.days);
  if (values.days === undefined || !Number.isFinite(days) || days <= 0 || days > 365)
    throw new UsageError("--population needs --days D: the simulated days (more than 0, at most 365)");
  const seed = values.seed === undefined ? 1 : Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw new UsageError("--seed takes a whole number from 0 to 4294967295");
  return { journeys, days, seed };
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
    process.stderr.write(`${usage ? "" : "arena failed: "}${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(usage ? 2 : 1);
  },
);
