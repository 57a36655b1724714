import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
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

/** A run of the release's migrations: its end, and what it has printed so far. */
function startMigrate(databaseUrl: string): { done: Promise<Run>; output: () => string } {
  const child = spawn(process.execPath, [path.join(ROOT, "prisma/tools/migrate.mjs")], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return {
    done: new Promise((resolve) => child.once("exit", (code) => resolve({ code, output }))),
    output: () => output,
  };
}

const migrate = (databaseUrl: string) => startMigrate(databaseUrl).done;

const WAITED = "another migration is running on this database: waiting for it to finish";

describe("migrations on SQLite", () => {
  it(
    "runs wait while another holds the release's lock, then take turns: each migration once, both succeed",
    { timeout: 120_000 },
    async () => {
      const file = path.join(scratch, "app.sqlite");
      // A release still migrating holds the lock: both runs started now must wait for it (and
      // then for each other). Two runs left to race alone may both find the new lock file busy
      // for an instant, or not overlap at all, so which of them waits is not theirs to show.
      const holder = new Database(`${file}.migrate-lock`);
      holder.exec("BEGIN EXCLUSIVE");
      const started = [startMigrate(`file:${file}`), startMigrate(`file:${file}`)];
      try {
        await vi.waitFor(() => expect(started.map((run) => run.output().includes(WAITED))).toEqual([true, true]), {
          timeout: 60_000,
          interval: 50,
        });
        expect(existsSync(file) && tableExists(file, "_prisma_migrations")).toBe(false);
      } finally {
        holder.exec("ROLLBACK");
        holder.close();
      }
      const runs = await Promise.all(started.map((run) => run.done));
      for (const run of runs) expect(run.code, run.output).toBe(0);
      const db = new Database(file, { readonly: true });
      const counts = db
        .prepare(`SELECT COUNT(*) AS "all", COUNT(DISTINCT "migration_name") AS "distinct" FROM "_prisma_migrations"`)
        .get() as { all: number; distinct: number };
      db.close();
      expect(counts.all).toBe(counts.distinct);
      expect(counts.all).toBeGreaterThan(10);
    },
  );
});

function tableExists(file: string, table: string): boolean {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table) !== undefined;
  } finally {
    db.close();
  }
}

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
