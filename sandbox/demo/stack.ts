import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDatabaseClient } from "../../app/database/connect.server";
import type { DatabaseDialect } from "../../app/platform/database-url";
import { startClickService, type RunningClickService } from "../click-service/server";
import { startShopifyStandin } from "../shopify";
import { APP_SCOPES, ensureBuild, migrate, standinAppEnv, startApp, type AppProcess } from "./app-process";
import { createDemoDatabase } from "./database";
import type { Stack } from "./run-scenario";

// What `npm run demo` and `npm run arena` play against: the sandbox click service, the Shopify
// stand-in and the app's production build (its worker on) on a throwaway database (a SQLite
// file, or a new database on the PostgreSQL server DATABASE_URL names), all on this machine.

/** One step undoing what a run started; a run's steps are undone newest first. */
export type Cleanup = () => Promise<unknown> | unknown;

export interface RunningStack {
  stack: Stack;
  dialect: DatabaseDialect;
  app: AppProcess;
  clicks: RunningClickService;
  /** A scratch folder of the run's own, removed at the end. */
  workDir: string;
}

export interface StackOptions {
  log: (line: string) => void;
  /** The shop the stack's `shop` names (the demo's; the arena installs one per journey). */
  shop: string;
  /** Run the app from its sources, as `npm run dev` does, instead of the build. */
  dev?: boolean;
  /** Where the run registers its cleanups. */
  cleanups: Cleanup[];
  /** Names the scratch folder. */
  name: string;
  /** More environment for the app (PAYPAL_API_ORIGIN, when a scenario pays with PayPal). */
  env?: Record<string, string>;
}

export async function startStack(options: StackOptions): Promise<RunningStack> {
  const { log, cleanups } = options;
  const apiKey = process.env.SHOPIFY_API_KEY || randomBytes(16).toString("hex");
  const apiSecret = process.env.SHOPIFY_API_SECRET || randomBytes(32).toString("hex");
  const workDir = mkdtempSync(path.join(tmpdir(), `tag-guard-${options.name}-`));
  cleanups.push(() => rmSync(workDir, { recursive: true, force: true }));

  if (!options.dev) ensureBuild(log);
  const database = await createDemoDatabase(process.env.DATABASE_URL?.trim() || undefined, workDir);
  cleanups.push(() => database.drop());
  migrate(database.url);
  log(`Playing on a throwaway ${database.dialect} database`);
  const clicks = await startClickService();
  cleanups.push(() => clicks.close());
  const shopify = await startShopifyStandin({ appSecret: apiSecret, apiKey, scopes: APP_SCOPES });
  cleanups.push(() => shopify.close());
  const app = await startApp(
    {
      ...standinAppEnv({
        apiKey,
        apiSecret,
        databaseUrl: database.url,
        shopifyUrl: shopify.url,
        clickServiceUrl: clicks.url,
      }),
      WORKER_POLL_INTERVAL_MS: "500",
      LOG_LEVEL: "warn",
      ...options.env,
    },
    log,
    [],
    "healthy",
    options.dev ? "dev" : "build",
  );
  cleanups.push(() => app.stop());
  const db = createDatabaseClient(database.url);
  cleanups.push(() => db.$disconnect());
  return {
    stack: {
      appUrl: app.url,
      shop: options.shop,
      apiKey,
      apiSecret,
      db,
      clickServiceUrl: clicks.url,
      clickServiceApiKey: clicks.createApiKey(),
      shopify,
    },
    dialect: database.dialect,
    app,
    clicks,
    workDir,
  };
}

/**
 * Runs `main` with a list of cleanups, undone newest first when it ends, or when SIGINT or
 * SIGTERM stops the run (which then exits 130 or 143 once they are done).
 */
export async function withCleanups(main: (cleanups: Cleanup[]) => Promise<number>): Promise<number> {
  const cleanups: Cleanup[] = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse().splice(0)) await Promise.resolve(step()).catch(() => {});
  };
  let interrupted = false;
  const onSignal = (code: number) => () => {
    interrupted = true;
    void cleanup().then(() => process.exit(code));
  };
  process.once("SIGINT", onSignal(130));
  process.once("SIGTERM", onSignal(143));
  try {
    return await main(cleanups);
  } finally {
    if (!interrupted) await cleanup();
  }
}
