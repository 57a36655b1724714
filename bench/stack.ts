import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { PrismaClient } from "@prisma/client";
import { createDatabaseClient } from "../app/database/connect.server";
import type { DatabaseDialect } from "../app/platform/database-url";
import { ensureBuild, migrate, standinAppEnv, startApp, type AppProcess } from "../sandbox/demo/app-process";
import { createDemoDatabase } from "../sandbox/demo/database";
import { saveSettings } from "../sandbox/demo/run-scenario";
import { freePort } from "../sandbox/listen";
import { DEFAULT_SCENARIO_SETTINGS } from "../sandbox/demo/scenario";
import { postgresqlBinaries, startCluster, type Cluster } from "../tests/support/postgresql-cluster";

// What every benchmark runs against: the app's production build as a host runs it (its worker
// on, as in production), the sandbox click service and the Shopify stand-in in a process of
// their own, on a throwaway database (SQLite, or PostgreSQL with --database postgresql).

const HERE = path.dirname(fileURLToPath(import.meta.url));

export interface BenchStack {
  appUrl: string;
  appPid: number;
  apiKey: string;
  apiSecret: string;
  clickServiceUrl: string;
  clickServiceApiKey: string;
  shopifyUrl: string;
  database: DatabaseDialect;
  db: PrismaClient;
  /** With the probe: the app's metrics port's base URL, and the PostgreSQL server's main process when the bench started it. */
  probe: { metricsUrl: string; serverPid: number | null } | null;
  installShop(shop: string): Promise<void>;
  stop(): Promise<void>;
}

export interface StackOptions {
  database: DatabaseDialect;
  appEnv?: Record<string, string>;
  /** Options for the app's Node (a CPU profile, say). */
  appNodeArgs?: string[];
  /** The database probe (bench/database-probe.ts): the app's metrics port, and pg_stat_statements on a cluster the bench starts. */
  probe?: boolean;
}

export async function startBenchStack(options: StackOptions): Promise<BenchStack> {
  const log = () => {};
  const stops: (() => Promise<unknown> | void)[] = [];
  const stop = async () => {
    for (const step of stops.reverse().splice(0)) await Promise.resolve(step()).catch(() => {});
  };
  try {
    ensureBuild((line) => process.stdout.write(`${line}\n`), "bench");
    const apiKey = randomBytes(16).toString("hex");
    const apiSecret = randomBytes(32).toString("hex");
    const workDir = mkdtempSync(path.join(tmpdir(), "tag-guard-bench-"));
    stops.push(() => rmSync(workDir, { recursive: true, force: true }));

    let server: string | undefined;
    let serverPid: number | null = null;
    const metricsPort = options.probe ? await freePort() : null;
    if (options.database === "postgresql") {
      server = process.env.DATABASE_URL?.startsWith("postgres") ? process.env.DATABASE_URL : undefined;
      if (!server) {
        const binaries = postgresqlBinaries();
        if (!binaries)
          throw new Error("--database postgresql needs DATABASE_URL naming a server, or PostgreSQL installed");
        const cluster: Cluster = await startCluster(binaries, options.probe ? { preload: ["pg_stat_statements"] } : {});
        serverPid = cluster.serverPid();
        stops.push(() => cluster.stop());
        server = cluster.url;
      }
    }
    const database = await createDemoDatabase(server, workDir);
    stops.push(() => database.drop());
    migrate(database.url);

    const standins = await startStandins(apiKey, apiSecret);
    stops.push(() => void standins.child.kill("SIGTERM"));

    const app: AppProcess = await startApp(
      {
        ...standinAppEnv({
          apiKey,
          apiSecret,
          databaseUrl: database.url,
          shopifyUrl: standins.shopifyUrl,
          clickServiceUrl: standins.clickServiceUrl,
        }),
        LOG_LEVEL: "info",
        ...(metricsPort !== null && { METRICS_PORT: String(metricsPort) }),
        ...options.appEnv,
      },
      log,
      options.appNodeArgs,
      "healthy",
      "bench",
    );
    stops.push(() => app.stop());
    const db = createDatabaseClient(database.url);
    stops.push(() => db.$disconnect());

    return {
      appUrl: app.url,
      appPid: app.pid,
      apiKey,
      apiSecret,
      clickServiceUrl: standins.clickServiceUrl,
      clickServiceApiKey: standins.clickServiceApiKey,
      shopifyUrl: standins.shopifyUrl,
      database: database.dialect,
      db,
      probe: metricsPort === null ? null : { metricsUrl: `http://127.0.0.1:${metricsPort}`, serverPid },
      installShop: (shop) =>
        saveSettings(
          {
            appUrl: app.url,
            shop,
            apiKey,
            apiSecret,
            clickServiceUrl: standins.clickServiceUrl,
            clickServiceApiKey: standins.clickServiceApiKey,
          },
          DEFAULT_SCENARIO_SETTINGS,
        ),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function startStandins(apiKey: string, apiSecret: string) {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", path.join(HERE, "standins-process.ts")], {
    env: { ...process.env, BENCH_APP_KEY: apiKey, BENCH_APP_SECRET: apiSecret },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ready = await new Promise<{ clickServiceUrl: string; clickServiceApiKey: string; shopifyUrl: string }>(
    (resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`the stand-ins exited with ${code}`)));
      child.stdout!.on("data", (chunk: Buffer) => {
        const match = /READY (\{.*\})/.exec(chunk.toString());
        if (match) resolve(JSON.parse(match[1]!));
      });
    },
  );
  return { child, ...ready };
}
