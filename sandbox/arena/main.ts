import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildPixel } from "../../scripts/build-extension";
import { startStack, withCleanups } from "../demo/stack";
import { CATALOGUE, selectEntries, UsageError } from "./catalogue";
import { playEntry, type Arena } from "./play";
import { arenaFailed, arenaReport, formatFindings, formatMatrix, type StrategyResult } from "./verdict";

// `npm run arena`: plays the catalogue's attacks and honest journeys end to end, through the
// app's production build, the real app embed and web pixel in Chromium, a stand-in storefront
// and Shopify, and the sandbox click service, and prints who got paid for each.

const ROOT = path.resolve(import.meta.dirname, "../..");
const ATTACKER_DIR = path.join(ROOT, "tests/fixtures/attacker-extension");
const log = (line: string) => process.stdout.write(`${line}\n`);

const USAGE = `Usage: npm run arena -- [--only NAME,NAME] [--extension DIR] [--report FILE]

  --only NAME,NAME  play only these entries of the catalogue
  --extension DIR   load this unpacked Manifest V3 extension into the shopper's browser for every
                    honest journey (arena-config.json is written into a scratch copy of it first);
                    the attack strategies, which need the built-in attacker, are skipped
  --report FILE     write the matrix as JSON: { strategies, attackerCredited, honestWrong, reviewCount }

The catalogue:
${CATALOGUE.map((entry) => `  ${entry.name.padEnd(34)} ${entry.kind.padEnd(7)} ${entry.description}`).join("\n")}`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      only: { type: "string" },
      extension: { type: "string" },
      report: { type: "string" },
      help: { type: "boolean", default: false },
    },
    allowPositionals: false,
  });
  if (values.help) {
    log(USAGE);
    return 0;
  }
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

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
    process.stderr.write(`${usage ? "" : "arena failed: "}${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(usage ? 2 : 1);
  },
);
