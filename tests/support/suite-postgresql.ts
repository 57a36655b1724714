import { afterAll, beforeAll } from "vitest";
import { postgresqlBinaries, SERVER_VARIABLE, startCluster, type Cluster } from "./postgresql-cluster";

/**
 * The PostgreSQL server a suite runs against: the one SERVER_VARIABLE names when it is set, else
 * a throwaway cluster started before the suite and stopped after it. Read the URL in a test.
 */
export function suitePostgresql(): () => string {
  let cluster: Cluster | null = null;
  let url = "";
  beforeAll(async () => {
    const external = process.env[SERVER_VARIABLE];
    if (external) url = external;
    else {
      cluster = await startCluster(postgresqlBinaries()!);
      url = cluster.url;
    }
  });
  afterAll(() => cluster?.stop());
  return () => url;
}
