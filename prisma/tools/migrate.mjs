// The release step's migrations (`npm run setup`, after the clients): `prisma migrate deploy` on
// DATABASE_URL, never two at once (decision 040). Two releases started together (two deploys,
// a platform retrying its release command, two containers told to migrate) take turns: the
// second waits for the first and then finds nothing left to apply.
//
// Prisma's own lock (a PostgreSQL advisory lock) gives up after 10 s: a second deploy then fails
// with P1002 while the first is still migrating, and a release fails for no fault of its own.
// SQLite has no lock of Prisma's at all. So the whole run holds a lock of its own, held by this
// process and let go by the system when it ends, however it ends:
// - PostgreSQL: a session advisory lock, on a connection of this process's;
// - SQLite: an exclusive transaction on a small lock file beside the database.
//
// Plain JavaScript on production dependencies only, so that it runs in the image's run stage.
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
/** The key of the advisory lock (any 64-bit number no other tool takes; Prisma's is 72707369). */
const LOCK_KEY = "7426010045";
/** How long a run waits for another to finish before it gives up. */
const WAIT_MS = 15 * 60_000;

const url = process.env.DATABASE_URL?.trim() || "file:./data/app.sqlite";
const dialect = /^file:./.test(url) ? "sqlite" : /^postgres(ql)?:\/\/./.test(url) ? "postgresql" : null;
if (!dialect) {
  console.error("DATABASE_URL must be a SQLite file URL (file:...) or a PostgreSQL URL (postgresql://...)");
  process.exit(1);
}

const say = (line) => console.log(`[migrate] ${line}`);

async function postgresqlLock() {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const [{ taken }] = (await client.query("SELECT pg_try_advisory_lock($1::bigint) AS taken", [LOCK_KEY])).rows;
  if (!taken) {
    say("another migration is running on this database: waiting for it to finish");
    await client.query(`SET statement_timeout = ${WAIT_MS}`);
    await client.query("SELECT pg_advisory_lock($1::bigint)", [LOCK_KEY]);
  }
  return () => client.end();
}

function sqliteLock() {
  const Database = require("better-sqlite3");
  // As the app resolves it (app/platform/database-url.ts): relative to the folder it runs in.
  const file = path.resolve(url.replace(/^file:/, ""));
  mkdirSync(path.dirname(file), { recursive: true });
  const lock = new Database(`${file}.migrate-lock`, { timeout: 0 });
  try {
    lock.exec("BEGIN EXCLUSIVE");
  } catch (error) {
    if (error?.code !== "SQLITE_BUSY") throw error;
    say("another migration is running on this database: waiting for it to finish");
    lock.pragma(`busy_timeout = ${WAIT_MS}`);
    lock.exec("BEGIN EXCLUSIVE");
  }
  return async () => {
    lock.exec("ROLLBACK");
    lock.close();
  };
}

function prismaMigrateDeploy() {
  const cli = require.resolve("prisma/build/index.js");
  return new Promise((resolve) => {
    // In the folder npm runs scripts in (the app's), where prisma.config.ts is found.
    const child = spawn(process.execPath, [cli, "migrate", "deploy"], { stdio: "inherit" });
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const release = dialect === "postgresql" ? await postgresqlLock() : sqliteLock();
let code;
try {
  code = await prismaMigrateDeploy();
} finally {
  await release();
}
process.exit(code);
