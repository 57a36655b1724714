// Which suites serve the production build: vitest.config.ts runs them in its "build" project,
// which builds the app once first, and tests/structure/route-coverage.test.ts counts a route as
// called through the production server only from them.
export const SERVES_THE_BUILD = [
  "tests/demo/**/*.test.ts",
  "tests/e2e/**/*.test.ts",
  "tests/chaos/**/*.test.ts",
  "tests/server/**/*.test.ts",
  "tests/arena/**/*.test.ts",
  "tests/deploy/**/*.test.ts",
];
