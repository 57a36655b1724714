import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import {
  beginImmediately,
  checkAdapter,
  checkClient,
  scalarFieldTypes,
} from "../../app/database/prisma-internals.server";

// What the app reads of Prisma beyond its promises is checked at start: on the versions in
// package.json every check passes on the real packages, and one that finds a part gone names
// the package and its version.

const dir = mkdtempSync(path.join(tmpdir(), "prisma-internals-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function connectedAdapter() {
  const factory = new PrismaBetterSQLite3({ url: `file:${path.join(dir, "db.sqlite")}` });
  return factory.connect();
}

describe("Prisma's parts the app relies on", () => {
  it("are all there on the installed client and SQLite adapter", async () => {
    expect(() => checkClient()).not.toThrow();
    const adapter = await connectedAdapter();
    try {
      const database = checkAdapter(adapter);
      expect(database.prepare("SELECT 1 AS one").all()).toEqual([{ one: 1n }]);
    } finally {
      await adapter.dispose();
    }
  });

  it("give the column types raw rows are read back into", () => {
    const session = scalarFieldTypes("Session");
    expect(session.get("expires")).toBe("DateTime");
    expect(session.get("isOnline")).toBe("Boolean");
    expect(session.get("userId")).toBe("BigInt");
  });

  it("make the adapter's transactions begin IMMEDIATE, and leave other statements alone", async () => {
    const adapter = await connectedAdapter();
    try {
      const database = checkAdapter(adapter);
      const own = beginImmediately(database).prepare;
      expect((database.prepare("BEGIN") as unknown as { source: string }).source).toBe("BEGIN IMMEDIATE");
      expect((database.prepare("SELECT 1") as unknown as { source: string }).source).toBe("SELECT 1");
      expect((own("BEGIN") as unknown as { source: string }).source).toBe("BEGIN");
    } finally {
      await adapter.dispose();
    }
  });

  it("name the package and version when a part is gone", () => {
    expect(() => checkAdapter({ provider: "sqlite" })).toThrow(
      /^@prisma\/adapter-better-sqlite3 \d+\.\d+\.\d+ no longer has its better-sqlite3 connection as `client`/,
    );
    expect(() => scalarFieldTypes("NoSuchModel" as never)).toThrow(
      /^@prisma\/client \d+\.\d+\.\d+ no longer has the model NoSuchModel in Prisma\.dmmf/,
    );
  });
});
