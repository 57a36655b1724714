import { randomInt } from "node:crypto";
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { CannotRun } from "./database";
import { passed } from "./report";
import { cleanUp, runChaos, type ChaosOptions } from "./run";

// `npm run chaos -- --orders N --report FILE`: see docs/chaos.md. Exit code 0 only when
// no order was lost, tagged twice, credited twice, or found hijacked without its tag (and with
// --payouts, no balance paid twice and no record marked paid unpaid); 1 when one was (or the run
// broke); 2 when it cannot run here or the options are wrong.

const log = (line: string) => process.stdout.write(`${line}\n`);
const USAGE =
  "Usage: npm run chaos -- [--orders N] [--report FILE] [--seed S] [--instances N] [--kills N] [--shops N] [--database-restarts N] [--drop-deliveries F] [--payouts]";

class UsageError extends Error {}

// Ctrl-C stops the app's processes and drops the run's database as the end of a run would.
const cleanups: ChaosOptions["cleanups"] = [];
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const) {
  process.once(signal, () => void cleanUp(cleanups).then(() => process.exit(code)));
}

function count(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed < min || parsed > max)
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return parsed;
}

/** A share from 0 to 1 (0 when not given). */
function fraction(name: string, value: string | undefined): number {
  if (value === undefined) return 0;
  const parsed = Number(value);
  if (!/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(value) || parsed > 1)
    throw new UsageError(`--${name} must be a share from 0 to 1, such as 0.1, got ${JSON.stringify(value)}`);
  return parsed;
}

function options(): { run: ChaosOptions; report?: string } {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        orders: { type: "string" },
        report: { type: "string" },
        seed: { type: "string" },
        instances: { type: "string" },
        kills: { type: "string" },
        shops: { type: "string" },
        "database-restarts": { type: "string" },
        "drop-deliveries": { type: "string" },
        payouts: { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values } = parsed;
  if (values.help) {
    log(USAGE);
    process.exit(0);
  }
  const instances = count("instances", values.instances, 2, 2, 8);
  return {
    report: values.report,
    run: {
      orders: count("orders", values.orders, 1_000, 1, 1_000_000),
      instances,
      kills: count("kills", values.kills, 2, 0, 100),
      seed: count("seed", values.seed, randomInt(2 ** 31), 0, 2 ** 32 - 1),
      shops: count("shops", values.shops, 4, 1, 100),
      databaseRestarts: count("database-restarts", values["database-restarts"], 0, 0, 20),
      dropDeliveries: fraction("drop-deliveries", values["drop-deliveries"]),
      payouts: values.payouts,
      serviceFaultRate: 0.3,
      throttleRate: 0.2,
      log,
      cleanups,
    },
  };
}

async function main(): Promise<number> {
  const { run, report: reportFile } = options();
  const report = await runChaos(run);
  const text = `${JSON.stringify(report, null, 2)}\n`;
  if (reportFile) writeFileSync(reportFile, text);
  log(text);
  const ok = passed(report);
  log(ok ? "PASS" : `FAIL (replay with --seed ${run.seed})`);
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const expected = error instanceof CannotRun || error instanceof UsageError;
    process.stderr.write(
      `${expected ? (error as Error).message : `chaos run failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`}\n`,
    );
    if (error instanceof UsageError) process.stderr.write(`${USAGE}\n`);
    process.exit(expected ? 2 : 1);
  },
);
