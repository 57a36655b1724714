import pg from "pg";

// Small helpers for code that manages whole PostgreSQL databases on a server (the demo's
// throwaway database, the test run's databases); the app itself only ever uses its own.

/** The same server URL, naming another database. */
export function postgresqlDatabaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Runs work on one connection to the server, closed afterwards. */
export async function onServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Drops a database even while clients are still connected to it (PostgreSQL 13 or newer). */
export function dropDatabase(client: pg.Client, database: string): Promise<unknown> {
  return client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
}
