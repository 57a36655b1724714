import { describe, expect, it } from "vitest";
import { sqliteRuntimeProblem } from "../../app/database-client.server";

// better-sqlite3 11 aborts the process on Node 24.19 and later (measured here: 24.18.1 runs the
// SQLite suites, 24.19.0 and 24.21.0 abort in Statement::~Statement). The app refuses to open
// SQLite there, with a message that says what to run instead, rather than dying at random.
describe("sqliteRuntimeProblem", () => {
  it.each(["20.19.0", "v20.20.2", "22.12.0", "22.23.2", "24.0.0", "24.18.1"])(
    "lets better-sqlite3 11.9.1 run on Node %s",
    (node) => {
      expect(sqliteRuntimeProblem(node, "11.9.1")).toBeNull();
    },
  );

  it.each(["24.19.0", "v24.21.0", "25.0.0", "26.10.0"])("refuses better-sqlite3 11.9.1 on Node %s", (node) => {
    expect(sqliteRuntimeProblem(node, "11.9.1")).toMatch(
      /aborts the process on Node .*run the app on Node 20, 22 or 24\.18, or on PostgreSQL/,
    );
  });

  it("lets better-sqlite3 13, built on Node-API, run on any of them", () => {
    expect(sqliteRuntimeProblem("24.21.0", "13.0.3")).toBeNull();
  });
});
