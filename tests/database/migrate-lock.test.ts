import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onServer, postgresqlDatabaseUrl } from "../../sandbox/postgresql";
import { postgresqlBinaries, startCluster, type Cluster } from "../support/postgresql-cluster";

// The release step's migrations (`npm run setup` runs prisma/tools/migrate.mjs) never run twice
// at once on one database: a second run waits for the first, however long it takes, and then
// finds nothing to apply (decision 040). Prisma's own advisory lock gives up after 10 s, which
// failed the second of two releases started together on a slow machine (P1002).

const ROOT = path.resolve(import.meta.dirname, "../..");
const scratch = mkdtempSync(path.join(tmpdir(), "tag-guard-migrate-lock-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Run {
  code: number | null;
  output: string;
}

function migrate(databaseUrl: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, "prisma/tools/migrate.mjs")], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => resolve({ code, output }));
  });
}

const WAITED = "another migration is running on this database: waiting for it to finish";

describe("migrations on SQLite", () => {
  it("two runs at once take turns: each migration applied once, both succeed", { timeout: 120_000 }, async () => {
    const file = path.join(scratch, "app.sqlite");
    const runs = await Promise.all([migrate(`file:${file}`), migrate(`file:${file}`)]);
    for (const run of runs) expect(run.code, run.output).toBe(0);
    expect(runs.filter((run) => run.output.includes(WAITED))).toHaveLength(1);
    const db = new Database(file, { readonly: true });
    const counts = db
      .prepare(`SELECT COUNT(*) AS "all", COUNT(DISTINCT "migration_name") AS "distinct" FROM "_prisma_migrations"`)
      .get() as { all: number; distinct: number };
    db.close();
    expect(counts.all).toBe(counts.distinct);
    expect(counts.all).toBeGreaterThan(10);
  });
});

const binaries = postgresqlBinaries();

describe.skipIf(!binaries)("migrations on PostgreSQL", () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster(binaries!);
  }, 60_000);
  afterAll(() => cluster?.stop());

  const newDatabase = async (name: string) => {
    await onServer(cluster.url, (client) => client.query(`CREATE DATABASE "${name}"`));
    return postgresqlDatabaseUrl(cluster.url, name);
  };

  const applied = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const exists = await client.query(`SELECT to_regclass('_prisma_migrations') IS NOT NULL AS "exists"`);
      if (!exists.rows[0].exists) return { all: 0, distinct: 0 };
      const { rows } = await client.query(
        `SELECT COUNT(*)::int AS "all", COUNT(DISTINCT "migration_name")::int AS "distinct" FROM "_prisma_migrations"`,
      );
      return rows[0] as { all: number; distinct: number };
    } finally {
      await client.end();
    }
  };

  it(
    "runs wait while another holds the release's lock, apply nothing meanwhile, then take turns: each migration once",
    { timeout: 120_000 },
    async () => {
      const url = await newDatabase("held");
      const holder = new pg.Client({ connectionString: url });
      await holder.connect();
      await holder.query("SELECT pg_advisory_lock(7426010045)");
      // Two releases started together, while a third (the holder) is migrating.
      const runs = [migrate(url), migrate(url)];
      let finished = 0;
      for (const run of runs) void run.then(() => (finished += 1));
      // Longer than a cold start of the CLI: either would have applied the first migrations by now.
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      expect(finished).toBe(0);
      expect(await applied(url)).toEqual({ all: 0, distinct: 0 });
      await holder.end();
      for (const { code, output } of await Promise.all(runs)) {
        expect(code, output).toBe(0);
        expect(output).toContain(WAITED);
      }
      const counts = await applied(url);
      expect(counts.all).toBe(counts.distinct);
      expect(counts.all).toBeGreaterThan(10);
    },
  );
});
