import { randomBytes } from "node:crypto";
import { databaseDialect } from "../../app/platform/database-url";
import { postgresqlBinaries, startCluster } from "../postgresql-cluster";
import { dropDatabase, onServer, postgresqlDatabaseUrl } from "../postgresql";

// Several instances share one database only on PostgreSQL. The run plays on a database of its
// own, dropped at the end: a new one on the server DATABASE_URL names, when it names one (its
// user needs CREATEDB), else on a throwaway cluster started from the installed binaries.

export class CannotRun extends Error {}

export interface ChaosDatabase {
  url: string;
  /** Where it lives, for the log. */
  where: string;
  /** Stops the server at once (as a crash or a restart does) and starts it again after `downMs`; on a throwaway cluster only. */
  restart?(downMs: number): Promise<void>;
  drop(): Promise<void>;
}

/**
 * `restartable`: the run will restart the server, so it plays on a throwaway cluster that
 * acknowledges only flushed commits (as production does): a server of DATABASE_URL's is never
 * stopped by a test run.
 */
export async function chaosDatabase(requested: string | undefined, restartable = false): Promise<ChaosDatabase> {
  if (requested && databaseDialect(requested) === "postgresql") {
    if (restartable)
      throw new CannotRun(
        "the chaos run cannot restart the PostgreSQL server DATABASE_URL names: unset DATABASE_URL to play on a throwaway cluster, or leave out --database-restarts",
      );
    return databaseOn(requested, "the server in DATABASE_URL");
  }
  const binaries = postgresqlBinaries();
  if (!binaries) {
    throw new CannotRun(
      "the chaos run cannot run: it needs PostgreSQL (several app instances share one database), and " +
        "DATABASE_URL does not name a PostgreSQL server and no PostgreSQL binaries (initdb, pg_ctl) were found. " +
        "Set DATABASE_URL=postgresql://user@host:5432/postgres (the user needs CREATEDB) or install PostgreSQL " +
        "(Debian: apt-get install postgresql).",
    );
  }
  const cluster = await startCluster(binaries, { durable: restartable });
  try {
    const database = await databaseOn(cluster.url, "a throwaway PostgreSQL cluster");
    return {
      ...database,
      restart: async (downMs) => {
        await cluster.down();
        await new Promise((resolve) => setTimeout(resolve, downMs));
        await cluster.up();
      },
      drop: async () => cluster.stop(),
    };
  } catch (error) {
    cluster.stop();
    throw error;
  }
}

async function databaseOn(serverUrl: string, where: string): Promise<ChaosDatabase> {
  const name = `tag_guard_chaos_${randomBytes(6).toString("hex")}`;
  try {
    await onServer(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  } catch (error) {
    throw new CannotRun(
      `the chaos run cannot run: it could not create its database on ${where} (the user needs CREATEDB): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return {
    url: postgresqlDatabaseUrl(serverUrl, name),
    where,
    drop: () => onServer(serverUrl, (client) => dropDatabase(client, name)).then(() => {}),
  };
}
