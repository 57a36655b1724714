import { defineConfig } from "vitest/config";

// The suites `npm run mutate` (stryker.config.mjs) runs against each mutant: only those that test
// the mutated modules, on SQLite, none that builds or serves the app. Stryker's vitest runner
// runs each mutant against the tests that reached it in the first, unmutated run.
const SUITES_BY_MODULE = {
  "attribution/click-claims": ["tests/attribution/click-claims.test.ts"],
  // Which witness's click is credited (decision 030): the policy alone, then through the pipeline.
  "attribution/{witnesses,arrival}": [
    "tests/attribution/witnesses.test.ts",
    "tests/attribution/arrival.test.ts",
    "tests/attribution/creator-evidence.test.ts",
    "tests/landing/landing-verdict.test.ts",
    "tests/pixel/pixel-verdict.test.ts",
  ],
  "commissions/commission-amount": ["tests/commissions/commission-amount.test.ts"],
  "verification/retry-policy": ["tests/verification/retry-policy.test.ts"],
  "verification/order-facts": ["tests/verification/order-facts.test.ts", "tests/webhooks/hardening.test.ts"],
  "click-service/{client,http,retry,contract}": [
    "tests/click-service/client-contract.test.ts",
    "tests/click-service/client-retries.test.ts",
    "tests/click-service/conformance.test.ts",
    "tests/click-service/retry.test.ts",
    "tests/click-service/client-wire.test.ts",
    "tests/click-service/destination.test.ts",
    "tests/click-service/tag-property.test.ts",
    // The client refuses to be called inside a transaction, naming itself.
    "tests/platform/transaction-scope.test.ts",
  ],
  "settings/settings-schema": [
    "tests/settings/settings-schema.test.ts",
    "tests/settings/defaults.test.ts",
    "tests/settings/shop-settings.test.ts",
  ],
  "platform/sealing.server": [
    "tests/platform/sealing.test.ts",
    "tests/settings/shop-settings.test.ts",
    "tests/settings/rotation.test.ts",
    "tests/admin/session-storage.test.ts",
  ],
  "commissions/csv": ["tests/commissions/csv.test.ts", "tests/admin/ledger.test.ts"],
  // The order's path: each step's decisions alone, then applied through the pipeline.
  "verification/{verdict,attribution-step,tagging,crediting,order-steps,order-run.server}": [
    "tests/verification/order-steps.test.ts",
    "tests/verification/attribution-step.test.ts",
    "tests/verification/verdict.test.ts",
    "tests/verification/crediting.test.ts",
    "tests/verification/order-run.test.ts",
    "tests/verification/verify-order.test.ts",
    "tests/verification/pipeline.test.ts",
    "tests/verification/pipeline-failures.test.ts",
    "tests/verification/shop-lifecycle.test.ts",
    "tests/verification/order-value.test.ts",
    "tests/commissions/ledger-events.test.ts",
    "tests/commissions/order-edits.test.ts",
    "tests/landing/landing-verdict.test.ts",
    "tests/commissions/creator-decisions.test.ts",
  ],
  // The pixel's report as the app proxy reads it.
  "pixel/report-input": ["tests/pixel/report-input.test.ts", "tests/pixel/proxy-pixel.test.ts"],
  // What the sweep reads of Shopify's orders, and what it records of them.
  "reconciliation/{shopify-readings,sweep.server}": [
    "tests/reconciliation/shopify-payloads.test.ts",
    "tests/reconciliation/shopify-readings.test.ts",
    "tests/reconciliation/sweep-turns.test.ts",
    "tests/reconciliation/sweep.test.ts",
  ],
  "commissions/{payouts.server,payable-balances.server,payout-history.server,payout-forms}": [
    "tests/commissions/payouts.test.ts",
    "tests/commissions/payout-void.test.ts",
    "tests/commissions/ledger-events.test.ts",
    "tests/commissions/commission-day.test.ts",
    // Top-ups and clawbacks of edited orders, paid and voided (decision 045).
    "tests/commissions/order-edits.test.ts",
    // A suspected creator's balance, held out of payouts.
    "tests/commissions/creator-decisions.test.ts",
    // Payouts the app sends (decision 050): records paying, their clawbacks, the provider's item.
    "tests/commissions/paypal-runs.test.ts",
  ],
  // Evidence by creator (issue 55): an order's claims alone, the rule alone, then through the
  // pipeline and the decisions.
  "attribution/creator-evidence": [
    "tests/attribution/creator-evidence.test.ts",
    "tests/commissions/creator-decisions.test.ts",
  ],
  "creators/suspicion": ["tests/creators/suspicion.test.ts", "tests/commissions/creator-decisions.test.ts"],
  // What an order edit does to a commission (decision 045): the decision alone, then applied.
  "commissions/order-edits": [
    "tests/commissions/order-edits-decisions.test.ts",
    "tests/commissions/order-edits.test.ts",
  ],
  "codes/{code-totals.server,codes-csv,code-filter}": ["tests/codes/code-filter.test.ts", "tests/codes/codes.test.ts"],
  // The pace of click lookups: alone, then through the proxy's touches and the verdicts.
  "landing/lookup-pace.server": [
    "tests/landing/lookup-pace.test.ts",
    "tests/landing/proxy-touch.test.ts",
    "tests/landing/landing-verdict.test.ts",
  ],
  "webhooks/body-budget": ["tests/webhooks/body-budget.test.ts"],
  // Payout schedules (decision 052): periods and plans alone, then ticked on the database.
  "payouts/{schedule-periods,schedule-plan}": [
    "tests/payouts/schedule-periods.test.ts",
    "tests/payouts/schedule-plan.test.ts",
    "tests/commissions/payout-schedules.test.ts",
  ],
};

// MUTATE_SUITES=click-service,settings (parts of the keys above) runs only those modules' suites:
// a module-level constant's mutants ("static" ones) run every suite, and with all of them one
// such mutant costs the whole set. A mutant another module's suite would have killed then
// survives, so a narrowed score is a lower bound.
const wanted = (process.env.MUTATE_SUITES ?? "").split(",").filter(Boolean);
const chosen = Object.entries(SUITES_BY_MODULE).filter(
  ([module]) => wanted.length === 0 || wanted.some((part) => module.includes(part)),
);
if (chosen.length === 0) throw new Error(`MUTATE_SUITES=${process.env.MUTATE_SUITES} names no module`);

export default defineConfig({
  test: {
    name: "mutate",
    environment: "node",
    include: [...new Set(chosen.flatMap(([, suites]) => suites))],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    setupFiles: ["tests/support/setup-env.ts"],
    globalSetup: ["tests/support/global-setup.ts"],
  },
});
