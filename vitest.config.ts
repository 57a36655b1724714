import { defineConfig } from "vitest/config";

// Kept apart from vite.config.ts: the Remix plugin has no place in test runs. Two projects: the
// suites that serve the production build (the demo, browser tests, anything that starts the
// app's server) build it once in their global setup; every other suite never builds, so
// `npx vitest run tests/commissions` starts at once on a fresh clone.
const SERVES_THE_BUILD = ["tests/demo/**/*.test.ts", "tests/e2e/**/*.test.ts", "tests/chaos/**/*.test.ts"];

export default defineConfig({
  test: {
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
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
    ],
  },
});
