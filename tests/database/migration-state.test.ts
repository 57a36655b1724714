import path from "node:path";
import { Prisma } from "@prisma/client";
import { describe, expect, it } from "vitest";
import { dialect } from "../../app/database/db.server";
import { MIGRATIONS_FOLDER, migrationState, shippedMigrations } from "../../app/database/migrations.server";
import { sql } from "../../app/database/sql.server";
import { MIGRATIONS } from "../../prisma/tools/schemas";

// What an instance checks at start (app/instance/start.server.ts): the database's migrations
// against the ones the build ships, on each database the app runs on.

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("the database's migrations against the build's", () => {
  it("reads the build's from the folders Prisma's CLI migrates from", () => {
    for (const each of ["sqlite", "postgresql"] as const)
      expect(path.resolve(ROOT, MIGRATIONS_FOLDER[each])).toBe(MIGRATIONS[each]);
    const shipped = shippedMigrations(ROOT);
    expect(shipped.length).toBeGreaterThan(10);
    expect([...shipped].sort()).toEqual(shipped);
  });

  it("are current on a migrated database, behind when one is missing or failed, and say which are newer", async () => {
    const shipped = shippedMigrations(ROOT);
    expect(await migrationState(shipped)).toEqual({ state: "current", ahead: [] });
    const last = shipped.at(-1)!;
    // A migration whose run failed half-way: recorded, never finished.
    await sql.execute(
      Prisma.sql`UPDATE "_prisma_migrations" SET "finished_at" = NULL WHERE "migration_name" = ${last}`,
    );
    expect(await migrationState(shipped)).toEqual({ state: "behind", missing: [last], ahead: [] });
    // A newer release's migration is no reason to refuse: the build is older than the database.
    const at = dialect === "sqlite" ? Prisma.sql`${Date.now()}` : Prisma.sql`now()`;
    await sql.execute(
      Prisma.sql`UPDATE "_prisma_migrations" SET "finished_at" = ${at} WHERE "migration_name" = ${last}`,
    );
    expect(await migrationState(shipped.slice(0, -1))).toEqual({ state: "current", ahead: [last] });
  });
});
