import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { postgresqlMissing } from "./tests/support/postgresql-cluster";
import { SERVES_THE_BUILD } from "./tests/support/test-projects";

// Kept apart from vite.config.ts: the Remix plugin has no place in test runs. Three projects:
// - "unit": every suite that does not serve the build, on a SQLite file per test file;
// - "build": the suites that serve the production build (the demo, browser tests, anything that
//   starts the app's server), which build it once in their global setup, so every other suite
//   never builds and `npx vitest run tests/commissions` starts at once on a fresh clone;
// - "postgresql": the suites that exercise the database, again on PostgreSQL, a database per
//   test file on a throwaway cluster (tests/support/postgresql-setup.ts).
// SERVES_THE_BUILD (tests/support/test-projects.ts) names the "build" project's suites.

// tests/admin/query-plans.test.ts reads SQLite's EXPLAIN QUERY PLAN: SQLite only.
// tests/admin/postgresql-plans.test.ts reads PostgreSQL's EXPLAIN: PostgreSQL only (it runs, and
// passes at once, in "unit" too).
const ON_BOTH_DATABASES = [
  "tests/database/migrations.test.ts",
  "tests/database/sql.test.ts",
  "tests/database/probe.test.ts",
  "tests/database/connect.test.ts",
  "tests/database/migration-state.test.ts",
  "tests/commissions/**/*.test.ts",
  "tests/verification/{intake-races,order-run,order-value,pipeline,pipeline-failures,shop-lifecycle,verification-hours,verify-order,worker-lifecycle}.test.ts",
  "tests/webhooks/**/*.test.ts",
  "tests/admin/{auth,creators,dashboard,ledger,ledger-pages,order-detail,postgresql-plans,session-storage,settings,shop-zone}.test.ts",
  "tests/landing/**/*.test.ts",
  "tests/pixel/**/*.test.ts",
  "tests/fuzz/**/*.test.ts",
  "tests/queue/runner.test.ts",
  "tests/queue/runner-limit.test.ts",
  "tests/queue/fenced-writes.test.ts",
  "tests/database/transaction-groups.test.ts",
  "tests/codes/**/*.test.ts",
  "tests/reconciliation/**/*.test.ts",
];

function postgresqlProject(): TestProjectInlineConfiguration[] {
  const missing = postgresqlMissing();
  if (missing) {
    // In CI a machine without PostgreSQL is a broken machine, not a reason to test less.
    if (process.env.CI === "true") throw new Error(`PostgreSQL suites cannot run in CI: ${missing}`);
    // Vitest evaluates this file once per project: say it once.
    const said = globalThis as { postgresqlSkipNoticeShown?: boolean };
    if (!said.postgresqlSkipNoticeShown) console.warn(`\nPostgreSQL suites SKIPPED: ${missing}.\n`);
    said.postgresqlSkipNoticeShown = true;
    return [];
  }
  return [
    {
      extends: true,
      test: {
        name: "postgresql",
        include: ON_BOTH_DATABASES,
        globalSetup: ["tests/support/postgresql-setup.ts"],
      },
    },
  ];
}

export default defineConfig({
  test: {
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits for what a test reads; vitest's own 1 s made it a race on a two-core
    // machine busy with other work, where a browser's round trip or a worker's turn takes seconds.
    // Only a failing poll ever waits this long.
    expect: { poll: { timeout: 10_000 } },
    pool: "forks",
    setupFiles: ["tests/support/setup-env.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["tests/**/*.test.ts", "tests/**/*.test.tsx"],
          exclude: SERVES_THE_BUILD,
          globalSetup: ["tests/support/global-setup.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "build",
          include: SERVES_THE_BUILD,
          globalSetup: ["tests/support/global-setup.ts", "tests/support/build-setup.ts"],
        },
      },
      ...postgresqlProject(),
    ],
  },
});
