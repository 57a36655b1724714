import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createDatabaseClient } from "../../app/database/connect.server";
import { startClickService } from "../click-service/server";
import { startShopifyStandin } from "../shopify";
import { APP_SCOPES, ensureBuild, migrate, standinAppEnv, startApp, type AppProcess } from "./app-process";
import { createDemoDatabase } from "./database";
import { chooseCapture } from "./storefront-capture";
import { startDemoPixel } from "./pixel-journey";
import {
  codesReport,
  createClicks,
  deactivateCodes,
  placeOrders,
  readReport,
  saveSettings,
  waitForOutcomes,
  type Stack,
} from "./run-scenario";
import { formatCodes, formatSummary, formatTable, summarise } from "./report";
import { BUILT_IN_SCENARIO, parseScenario, ScenarioError } from "./scenario";

// `npm run demo`: the whole flow on one machine with no Shopify account. Starts the sandbox
// click service, a Shopify stand-in and the app's production build on a throwaway database
// (a SQLite file, or a new database on the PostgreSQL server DATABASE_URL names), plays a
// scenario through them, and prints what happened.

const log = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      scenario: { type: "string" },
      report: { type: "string" },
      serve: { type: "boolean", default: false },
      dev: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
    allowPositionals: false,
  });
  if (values.help) {
    log("Usage: npm run demo -- [--scenario FILE] [--report FILE] [--serve] [--dev]");
    return 0;
  }
  const scenario = parseScenario(values.scenario ? readScenarioFile(values.scenario) : BUILT_IN_SCENARIO);

  const apiKey = process.env.SHOPIFY_API_KEY || randomBytes(16).toString("hex");
  const apiSecret = process.env.SHOPIFY_API_SECRET || randomBytes(32).toString("hex");
  const shop = "demo-shop.myshopify.com";
  const workDir = mkdtempSync(path.join(tmpdir(), "tag-guard-demo-"));

  const cleanups: (() => Promise<unknown> | void)[] = [() => rmSync(workDir, { recursive: true, force: true })];
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
    if (!values.dev) ensureBuild(log);
    const database = await createDemoDatabase(process.env.DATABASE_URL?.trim() || undefined, workDir);
    cleanups.push(() => database.drop());
    migrate(database.url);
    log(`Playing on a throwaway ${database.dialect} database`);
    const clicks = await startClickService();
    cleanups.push(() => clicks.close());
    const shopify = await startShopifyStandin({ appSecret: apiSecret, apiKey, scopes: APP_SCOPES });
    cleanups.push(() => shopify.close());
    const app: AppProcess = await startApp(
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
      },
      log,
      [],
      "healthy",
      values.dev ? "dev" : "build",
    );
    cleanups.push(() => app.stop());
    const db = createDatabaseClient(database.url);
    cleanups.push(() => db.$disconnect());

    const stack: Stack = {
      appUrl: app.url,
      shop,
      apiKey,
      apiSecret,
      db,
      clickServiceUrl: clicks.url,
      clickServiceApiKey: clicks.createApiKey(),
      shopify,
    };
    await saveSettings(stack, scenario.settings);
    log(`Installed ${shop} and saved its settings through the app's settings page`);
    // Orders that say "landing": true reach the app through the app proxy, signed as Shopify signs.
    const capture = await chooseCapture(log, { appProxy: { appUrl: app.url, apiSecret, shop } });
    cleanups.push(() => capture.close());
    // The app connected its web pixel when the shop was installed, with no merchant step.
    const pixel = await startDemoPixel(shopify, { appUrl: app.url, apiSecret, shop });
    cleanups.push(() => pixel.close());
    log(
      `Web pixel connected by the app at install (webPixelCreate, ${shopify.store.shop(shop).webPixel!.id}); ` +
        "it runs in a stand-in of Shopify's sandbox and reports through the app proxy",
    );
    const clickRefs = await createClicks(stack, scenario);
    const placed = await placeOrders(stack, scenario, clickRefs, capture.captureShopper, pixel);
    const deliveries = scenario.orders.reduce((sum, order) => sum + order.deliveries, 0);
    const refunds = scenario.orders.reduce((sum, order) => sum + order.refunds.length, 0);
    const cancellations = scenario.orders.filter((order) => order.cancel).length;
    log(
      `Sent ${deliveries} signed orders/create deliveries for ${scenario.orders.length} orders` +
        (refunds + cancellations > 0
          ? `, then ${counted(refunds, "refund")} and ${counted(cancellations, "cancellation")}`
          : "") +
        "; waiting for verification...",
    );
    await waitForOutcomes(
      stack,
      [...placed.values()].map((order) => order.orderId),
    );

    await deactivateCodes(stack, scenario.deactivate);
    if (scenario.deactivate.length > 0)
      log(`Switched off ${scenario.deactivate.join(", ")} through the admin's Codes page`);

    const orders = await readReport(stack, scenario, placed);
    const codes = codesReport(stack, orders);
    const summary = summarise(orders, deliveries, scenario.settings.hijackTag);
    log(`\n${formatTable(orders)}\n\n${formatSummary(summary)}${formatCodes(codes)}`);
    if (values.report)
      writeFileSync(
        values.report,
        `${JSON.stringify({ database: database.dialect, orders, codes, summary }, null, 2)}\n`,
      );

    if (values.serve) {
      const ready = {
        appUrl: app.url,
        shop,
        apiKey,
        apiSecret,
        clickServiceUrl: clicks.url,
        clickServiceApiKey: stack.clickServiceApiKey,
        shopifyStandinUrl: shopify.url,
      };
      log(`DEMO_READY ${JSON.stringify(ready)}`);
      await new Promise<never>(() => {}); // until SIGINT or SIGTERM
    }
    return 0;
  } finally {
    if (!interrupted) await cleanup();
  }
}

function readScenarioFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ScenarioError(`cannot read the scenario file ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ScenarioError(`the scenario file ${file} is not JSON: ${(error as Error).message}`);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof ScenarioError ? error.message : `demo failed: ${error instanceof Error ? error.message : String(error)}`}\n`,
    );
    process.exit(error instanceof ScenarioError ? 2 : 1);
  },
);

function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
