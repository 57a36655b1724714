import { defineConfig } from "vitest/config";

// The suites `npm run mutate` (stryker.config.mjs) runs against each mutant: only those that test
// the mutated modules, on SQLite, none that builds or serves the app. Stryker's vitest runner
// runs each mutant against the tests that reached it in the first, unmutated run.
const SUITES_BY_MODULE = {
  "attribution/find-click": ["tests/attribution/find-click.test.ts"],
  "commissions/commission-amount": ["tests/commissions/commission-amount.test.ts"],
  "verification/retry-policy": ["tests/verification/retry-policy.test.ts"],
  "verification/order-facts": ["tests/webhooks/hardening.test.ts"],
  "click-service/{client,http,retry,contract}": [
    "tests/click-service/client-contract.test.ts",
    "tests/click-service/client-retries.test.ts",
    "tests/click-service/conformance.test.ts",
    "tests/click-service/destination.test.ts",
    "tests/click-service/tag-property.test.ts",
  ],
  "settings/settings-schema, settings/sealing.server": [
    "tests/settings/defaults.test.ts",
    "tests/settings/shop-settings.test.ts",
    "tests/settings/rotation.test.ts",
    "tests/admin/session-storage.test.ts",
  ],
  "commissions/csv": ["tests/admin/ledger.test.ts"],
  "verification/verify-order.server": [
    "tests/verification/pipeline.test.ts",
    "tests/verification/pipeline-failures.test.ts",
  ],
};

export default defineConfig({
  test: {
    name: "mutate",
    environment: "node",
    include: Object.values(SUITES_BY_MODULE).flat(),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    setupFiles: ["tests/support/setup-env.ts"],
    globalSetup: ["tests/support/global-setup.ts"],
  },
});
