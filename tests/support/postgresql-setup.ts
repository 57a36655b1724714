import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { dropDatabase, onServer, postgresqlDatabaseUrl } from "../../sandbox/postgresql";
import {
  postgresqlBinaries,
  postgresqlMissing,
  SERVER_VARIABLE,
  startCluster,
  type Cluster,
} from "./postgresql-cluster";

// Global setup of the "postgresql" project: a server (TEST_POSTGRES_URL, or a throwaway cluster
// started here), one database migrated with the project's real PostgreSQL migrations, and each
// test file then gets its own copy of it (CREATE DATABASE ... TEMPLATE, tests/support/setup-env.ts).

export interface PostgresqlTestServer {
  /** A URL on the server with the right to create databases. */
  serverUrl: string;
  template: string;
  /** Every database of this run starts with it, so teardown drops exactly those. */
  prefix: string;
}

export default async function setup(project: TestProject) {
  const missing = postgresqlMissing();
  if (missing) throw new Error(`PostgreSQL suites cannot run: ${missing}`);
  let cluster: Cluster | null = null;
  const external = process.env[SERVER_VARIABLE];
  if (!external) cluster = await startCluster(postgresqlBinaries()!);
  const serverUrl = external ?? cluster!.url;

  const prefix = `tag_guard_test_${randomBytes(4).toString("hex")}`;
  const template = `${prefix}_template`;
  const dropAll = () =>
    onServer(serverUrl, async (client) => {
      const { rows } = await client.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE starts_with(datname, $1)",
        [prefix],
      );
      for (const { datname } of rows) await dropDatabase(client, datname);
    });
  try {
    await onServer(serverUrl, (client) => client.query(`CREATE DATABASE "${template}"`));
    execFileSync("npx", ["prisma", "migrate", "deploy"], {
      env: { ...process.env, DATABASE_URL: postgresqlDatabaseUrl(serverUrl, template) },
      stdio: "pipe",
    });
  } catch (error) {
    if (external) await dropAll().catch(() => {});
    cluster?.stop();
    throw error;
  }
  project.provide("postgresql", { serverUrl, template, prefix });
  return async () => {
    if (cluster) cluster.stop();
    else await dropAll();
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    postgresql?: PostgresqlTestServer;
  }
}
