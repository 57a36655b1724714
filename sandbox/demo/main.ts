import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
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
} from "./run-scenario";
import { formatCodes, formatPayouts, formatSummary, formatTable, summarise } from "./report";
import { BUILT_IN_SCENARIO, parseScenario, ScenarioError } from "./scenario";
import { startStack, withCleanups } from "./stack";
import { playPayouts } from "./payouts";
import { startPaypalStandin } from "../paypal/server";

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

  return withCleanups(async (cleanups) => {
    // The scenario's PayPal payouts go to the PayPal stand-in, which the app is pointed at.
    const paypal = scenario.payouts.some((p) => p.method === "paypal") ? await startPaypalStandin() : null;
    if (paypal) cleanups.push(() => paypal.close());
    const { stack, dialect } = await startStack({
      log,
      shop: "demo-shop.myshopify.com",
      dev: values.dev,
      cleanups,
      name: "demo",
      env: paypal ? { PAYPAL_API_ORIGIN: paypal.url } : {},
    });
    const { shop, apiSecret, shopify, appUrl } = stack;
    await saveSettings(stack, scenario.settings);
    log(`Installed ${shop} and saved its settings through the app's settings page`);
    // Orders that say "landing": true reach the app through the app proxy, signed as Shopify signs.
    const capture = await chooseCapture(log, { appProxy: { appUrl, apiSecret, shop } });
    cleanups.push(() => capture.close());
    // The app connected its web pixel when the shop was installed, with no merchant step.
    const pixel = await startDemoPixel(shopify, { appUrl, apiSecret, shop });
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
    const edits = scenario.orders.reduce((sum, order) => sum + order.edits.length, 0);
    log(
      `Sent ${deliveries} signed orders/create deliveries for ${scenario.orders.length} orders` +
        (edits + refunds + cancellations > 0
          ? `, then ${edits > 0 ? `${counted(edits, "edit")}, ` : ""}${counted(refunds, "refund")} and ${counted(cancellations, "cancellation")}`
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

    const paid = await playPayouts(stack, scenario.payouts, paypal);
    if (scenario.payouts.length > 0)
      log(`Paid ${counted(paid.payouts.length, "balance")} through the Payouts page once the holds had passed`);

    const orders = await readReport(stack, scenario, placed);
    const codes = codesReport(stack, orders);
    const summary = summarise(orders, deliveries, scenario.settings.hijackTag);
    log(`\n${formatTable(orders)}\n\n${formatSummary(summary)}${formatCodes(codes)}${formatPayouts(paid.payouts)}`);
    if (values.report)
      writeFileSync(
        values.report,
        `${JSON.stringify({ database: dialect, orders, codes, summary, ...paid }, null, 2)}\n`,
      );

    if (values.serve) {
      const ready = {
        appUrl,
        shop,
        apiKey: stack.apiKey,
        apiSecret,
        clickServiceUrl: stack.clickServiceUrl,
        clickServiceApiKey: stack.clickServiceApiKey,
        shopifyStandinUrl: shopify.url,
      };
      log(`DEMO_READY ${JSON.stringify(ready)}`);
      await new Promise<never>(() => {}); // until SIGINT or SIGTERM
    }
    return 0;
  });
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
