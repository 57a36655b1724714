import { randomBytes } from "node:crypto";
import path from "node:path";
import { databaseDialect, type DatabaseDialect } from "../../app/platform/database-url";
import { dropDatabase, onServer, postgresqlDatabaseUrl } from "../postgresql";

// The demo always plays on a database of its own, deleted at the end, so it can never touch
// data it did not create: a SQLite file in its work folder, or, when DATABASE_URL names a
// PostgreSQL server, a new database on that server (its user needs CREATEDB).

export interface DemoDatabase {
  dialect: DatabaseDialect;
  url: string;
  drop(): Promise<void>;
}

export async function createDemoDatabase(requested: string | undefined, workDir: string): Promise<DemoDatabase> {
  const dialect = requested ? databaseDialect(requested) : "sqlite";
  if (!dialect) throw new Error("DATABASE_URL must start with file: (SQLite) or postgresql:// (PostgreSQL)");
  if (dialect === "sqlite") {
    // Removed with the work folder.
    return { dialect, url: `file:${path.join(workDir, "demo.sqlite")}`, drop: async () => {} };
  }
  const name = `tag_guard_demo_${randomBytes(6).toString("hex")}`;
  try {
    await onServer(requested!, (client) => client.query(`CREATE DATABASE "${name}"`));
  } catch (error) {
    throw new Error(
      `could not create the demo's database on the PostgreSQL server in DATABASE_URL (its user needs CREATEDB): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return {
    dialect,
    url: postgresqlDatabaseUrl(requested!, name),
    drop: () => onServer(requested!, (client) => dropDatabase(client, name)).then(() => {}),
  };
}
