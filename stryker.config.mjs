// @ts-check
// `npm run mutate`: mutation testing of the modules where a wrong branch costs a merchant money
// or miscounts a creator. Not part of `npm test`: by the per-module runs in
// docs/mutation-testing.md the whole set takes over an hour on two shared cores. One module:
// `npm run mutate -- --mutate app/verification/retry-policy.ts`.
/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
const config = {
  mutate: [
    "app/attribution/click-claims.ts",
    "app/attribution/witnesses.ts",
    "app/commissions/commission-amount.ts",
    "app/verification/retry-policy.ts",
    "app/verification/order-facts.ts",
    "app/click-service/client.ts",
    "app/click-service/http.ts",
    "app/click-service/retry.ts",
    "app/click-service/contract.ts",
    "app/settings/settings-schema.ts",
    "app/platform/sealing.server.ts",
    "app/commissions/csv.ts",
    "app/verification/verify-order.server.ts",
  ],
  testRunner: "vitest",
  // The suites these modules need, on SQLite; never the "build" or "postgresql" projects.
  vitest: { configFile: "vitest.mutate.config.ts" },
  checkers: ["typescript"],
  // Only the mutated modules and their imports: see tsconfig.mutate.json.
  tsconfigFile: "tsconfig.mutate.json",
  coverageAnalysis: "perTest",
  // Two cores, shared: one test runner (and one checker) unless asked, e.g. `-- --concurrency 2`.
  concurrency: 1,
  // Later runs test only the mutants whose code or tests changed since the last one.
  incremental: true,
  incrementalFile: "reports/mutation/stryker-incremental.json",
  reporters: ["html", "json", "clear-text", "progress"],
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  tempDirName: "reports/stryker-tmp",
  // Left out of the sandbox Stryker copies the project into: built, generated or local data.
  ignorePatterns: ["/build", "/data", "/.cache", "/coverage", "/test-results", "/bench/results", "/bench/results.json"],
  // The pipeline suites run real servers: a slow mutant is not a hung one.
  timeoutMS: 30_000,
  cleanTempDir: true,
};

export default config;
