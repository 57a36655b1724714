// `npm run bench`: measures the app as production runs it and writes bench/results.json.
// Run by hand (or on a schedule), never as part of `npm test`; it exits 0 either way and says
// which targets were met.
//
//   npm run bench                               SQLite, and PostgreSQL beside it when there is one
//                                               (DATABASE_URL, or PostgreSQL installed for a throwaway cluster)
//   npm run bench -- --database postgresql      one database only (sqlite, postgresql)
//   npm run bench -- --orders 20000 --shops 200 bigger end-to-end run
//   npm run bench -- --only intake,flashSale    some measures only (intake, endToEnd, flashSale,
//                                               proxyTouches, storefront, admin, databasePaths)
//   npm run bench -- --probe                   where the database's time goes, per order (end to end, flash sale)
//   npm run bench -- --cpu-prof DIR             also write the app's CPU profile (one per measure) to DIR
//   npm run bench -- --app-env NAME=VALUE       run the app with a setting changed (repeatable), for
//                                               experiments: results.json records it under settings
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { DatabaseDialect } from "../app/platform/database-url";
import { benchEndToEnd, DEFAULT_END_TO_END } from "./end-to-end";
import { benchFlashSale, DEFAULT_FLASH_SALE } from "./flash-sale";
import { benchIntake, DEFAULT_INTAKE } from "./intake";
import { benchProxyTouches } from "./proxy-touches";
import { startBenchStack } from "./stack";
import { benchStorefront } from "./storefront";
import { formatTargets, TARGETS } from "./targets";
import { postgresqlMissing } from "../sandbox/postgresql-cluster";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MEASURES = ["intake", "endToEnd", "flashSale", "proxyTouches", "storefront", "admin", "databasePaths"] as const;

const { values } = parseArgs({
  options: {
    database: { type: "string" },
    orders: { type: "string" },
    shops: { type: "string" },
    "flash-orders": { type: "string" },
    "admin-rows": { type: "string" },
    only: { type: "string" },
    "cpu-prof": { type: "string" },
    probe: { type: "boolean", default: false },
    "app-env": { type: "string", multiple: true },
  },
});
const appEnv = Object.fromEntries(
  (values["app-env"] ?? []).map((pair) => {
    const at = pair.indexOf("=");
    if (at < 1) throw new Error(`--app-env takes NAME=VALUE, not ${pair}`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);
if (values.database !== undefined && values.database !== "sqlite" && values.database !== "postgresql")
  throw new Error("--database is sqlite or postgresql");
const postgresqlThere = process.env.DATABASE_URL?.startsWith("postgres") || postgresqlMissing() === null;
const databases: DatabaseDialect[] = values.database
  ? [values.database as DatabaseDialect]
  : postgresqlThere
    ? ["sqlite", "postgresql"]
    : ["sqlite"];
const only = new Set(values.only ? values.only.split(",") : MEASURES);
const endToEndOptions = {
  ...DEFAULT_END_TO_END,
  ...(values.orders && { orders: Number(values.orders) }),
  ...(values.shops && { shops: Number(values.shops) }),
};
const flashSaleOptions = {
  ...DEFAULT_FLASH_SALE,
  ...(values["flash-orders"] && { orders: Number(values["flash-orders"]) }),
};

const results: Record<string, unknown> = {
  machine: { cores: cpus().length, memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version },
  settings: {
    database: databases[0],
    databases,
    appEnv,
    intake: DEFAULT_INTAKE,
    endToEnd: endToEndOptions,
    flashSale: flashSaleOptions,
  },
};

// Node's own profiler, in the app's process; open the files in Chrome's DevTools or any
// .cpuprofile reader.
const appNodeArgs = values["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(values["cpu-prof"])}`] : [];

const log = (line: string) => process.stdout.write(`${line}\n`);

// The measures that run the app on a database, on each database: the first database's results
// go at the top of results.json, the second's under its name.
for (const [i, database] of databases.entries()) {
  const into = i === 0 ? results : ((results[database] = {}) as Record<string, unknown>);
  for (const [name, run] of [
    ["intake", benchIntake],
    ["endToEnd", (stack) => benchEndToEnd(stack, endToEndOptions)],
    ["flashSale", (stack) => benchFlashSale(stack, flashSaleOptions)],
    ["proxyTouches", (stack) => benchProxyTouches(stack)],
  ] as const satisfies readonly (readonly [
    string,
    (stack: Awaited<ReturnType<typeof startBenchStack>>) => Promise<unknown>,
  ])[]) {
    if (!only.has(name)) continue;
    log(`measuring ${name} on ${database}...`);
    // Each measure gets a stack of its own, so one's backlog never slows the next.
    const stack = await startBenchStack({ database, appNodeArgs, appEnv, probe: values.probe });
    try {
      into[name] = await run(stack);
    } catch (error) {
      into[name] = { error: error instanceof Error ? error.message : String(error) };
    } finally {
      await stack.stop();
    }
  }
}
if (only.has("storefront")) {
  log("measuring the storefront script...");
  results.storefront = await benchStorefront();
}
/** A bench script in a process of its own, which prints its figures on a line of `RESULT {json}`. */
function runScript(script: string, args: string[] = []): unknown {
  const run = spawnSync(process.execPath, ["--import", "tsx", path.join(HERE, script), "--json", ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = run.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  return line ? JSON.parse(line.slice("RESULT ".length)) : { error: `exit ${run.status}` };
}

if (only.has("admin")) {
  // On each database, into its column as the measures above; PostgreSQL on a database of its own
  // on DATABASE_URL's server, or a throwaway cluster the script starts.
  for (const [i, database] of databases.entries()) {
    log(`measuring the admin's queries on seeded data (${database})...`);
    const into = (i === 0 ? results : (results[database] ??= {})) as Record<string, unknown>;
    into.admin = runScript("admin-queries.bench.ts", [
      "--database",
      database,
      ...(values["admin-rows"] ? ["--rows", values["admin-rows"]] : []),
    ]);
  }
}
if (only.has("databasePaths")) {
  log("measuring one statement's CPU on each way to the database (SQLite)...");
  results.databasePaths = runScript("database-paths.bench.ts");
}

for (const [i, database] of databases.entries()) {
  const measures = (i === 0 ? results : results[database]) as Record<string, { probe?: unknown } | undefined>;
  for (const [measure, span] of [
    ["endToEnd", "end to end"],
    ["flashSale", "flash sale, to the last verdict"],
  ] as const) {
    const probed = measures[measure]?.probe;
    if (probed) log(`\n${database}, per order (${span}):\n${JSON.stringify(probed, null, 2)}`);
  }
}

const file = path.join(HERE, "results.json");
writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
const columns = databases.map((database, i) => ({
  title: database,
  results: (i === 0 ? results : results[database]) as Record<string, unknown>,
}));
log(`\n${formatTargets(columns, TARGETS)}\n\nwritten to ${path.relative(process.cwd(), file)}`);
