import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { Prisma } from "@prisma/client";
import type { DatabaseDialect } from "../platform/database-url";
import { databaseAnswers } from "./availability.server";
import { dialect } from "./db.server";
import { sql } from "./sql.server";

// Whether the database's migrations are the ones this build was made with. Migrations run once
// per release, before the new build starts (`npm run setup`, decision 040); a build started on
// a database its migrations have not reached would fail later, on a missing column, in the
// middle of an order. The instance refuses to start instead (app/instance/start.server.ts).

/** Each dialect's migrations, from the app's folder (where `npm start` and Prisma's CLI run). */
export const MIGRATIONS_FOLDER: Record<DatabaseDialect, string> = {
  sqlite: "prisma/migrations",
  postgresql: "prisma/postgresql/migrations",
};

export type MigrationState =
  /** Every migration of the build is applied; `ahead`: applied ones the build does not know (a newer release's). */
  | { state: "current"; ahead: string[] }
  /** `missing`: the build's migrations the database has not applied (or whose run failed). */
  | { state: "behind"; missing: string[]; ahead: string[] }
  /** The database could not be asked. */
  | { state: "unknown"; reason: string };

/** The migrations this build ships, oldest first: the folders holding a migration.sql. */
export function shippedMigrations(from: string = process.cwd(), which: DatabaseDialect = dialect): string[] {
  const folder = path.resolve(from, MIGRATIONS_FOLDER[which]);
  if (!existsSync(folder))
    throw new Error(`${folder} is missing: the app must run from its own folder, where prisma/ is`);
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(folder, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort();
}

/** The migrations Prisma recorded as applied and not rolled back; none when it never ran. */
async function appliedMigrations(): Promise<string[]> {
  const [table] = await sql.rows<{ present: unknown }>(
    dialect === "sqlite"
      ? Prisma.sql`SELECT COUNT(*) AS "present" FROM "sqlite_master" WHERE "type" = 'table' AND "name" = '_prisma_migrations'`
      : Prisma.sql`SELECT COUNT(*) AS "present" FROM "pg_catalog"."pg_tables"
          WHERE "tablename" = '_prisma_migrations' AND "schemaname" = current_schema()`,
  );
  if (Number(table?.present ?? 0) === 0) return [];
  const rows = await sql.rows<{ name: string }>(
    Prisma.sql`SELECT "migration_name" AS "name" FROM "_prisma_migrations"
      WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL`,
  );
  return rows.map((row) => row.name);
}

/** How the database's migrations stand against the build's. */
export async function migrationState(shipped: string[] = shippedMigrations()): Promise<MigrationState> {
  if (!(await databaseAnswers())) return { state: "unknown", reason: "the database does not answer" };
  let applied: Set<string>;
  try {
    applied = new Set(await appliedMigrations());
  } catch (error) {
    return { state: "unknown", reason: error instanceof Error ? error.message : String(error) };
  }
  const known = new Set(shipped);
  const missing = shipped.filter((name) => !applied.has(name));
  const ahead = [...applied].filter((name) => !known.has(name)).sort();
  return missing.length === 0 ? { state: "current", ahead } : { state: "behind", missing, ahead };
}
