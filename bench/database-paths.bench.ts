// What one statement costs on each way to the database, in CPU per call on SQLite: a model
// call through the Prisma client, $queryRaw/$executeRaw through the client, the driver
// adapter's public queryRaw/executeRaw, and the app's `sql` (app/database/sql.server.ts), which
// prepares each text once on the adapter's connection. Decision 026 chose the app's path by
// these figures; run it again when Prisma or better-sqlite3 changes major.
//
//   npm run bench -- --only databasePaths
//   npx tsx bench/database-paths.bench.ts [--calls 20000] [--json]
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { calls: { type: "string", default: "20000" }, json: { type: "boolean", default: false } },
});
const CALLS = Number(values.calls);
const ROWS = 1_000;

const dir = mkdtempSync(path.join(tmpdir(), "tag-guard-paths-"));
const file = path.join(dir, "paths.sqlite");
try {
  execFileSync("npx", ["prisma", "migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: `file:${file}` },
    stdio: "pipe",
  });
  Object.assign(process.env, {
    NODE_ENV: "production",
    DATABASE_URL: `file:${file}`,
    SHOPIFY_API_KEY: "bench-api-key",
    SHOPIFY_API_SECRET: "bench-api-secret",
    SHOPIFY_APP_URL: "https://bench.example.com",
    SETTINGS_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString("base64"),
    WORKER_ENABLED: "false",
    LOG_LEVEL: "silent",
  });
  const { Prisma } = await import("@prisma/client");
  const { databaseClient, startDatabaseCheckpoints, sqlTime } = await import("../app/database/db.server");
  // As the server runs it: checkpoints on their own thread.
  startDatabaseCheckpoints();
  const prisma = databaseClient();
  const { sql, insertRows } = await import("../app/database/sql.server");
  const { connectedDriver } = await import("../app/database/connect.server");

  const now = new Date();
  const ids = Array.from({ length: ROWS }, () => randomUUID());
  await insertRows(
    sql,
    "Job",
    ids.map((id, i) => ({
      id,
      shop: "paths.myshopify.com",
      kind: "order",
      subject: String(i),
      runAt: now,
      createdAt: now,
      updatedAt: now,
    })),
  );
  const driver = await connectedDriver(prisma);
  const id = (i: number) => ids[i % ROWS]!;
  // The adapter's own statement shape; times as the column stores them (Unix ms, decision 001).
  const driverQuery = (text: string, args: unknown[]) => ({
    sql: text,
    args,
    argTypes: args.map(() => ({ scalarType: "string", arity: "scalar" as const })),
  });
  const READ = `SELECT * FROM "Job" WHERE "id" = ?`;
  const WRITE = `UPDATE "Job" SET "updatedAt" = ? WHERE "id" = ?`;

  const paths: Record<string, { read: (i: number) => Promise<unknown>; write: (i: number) => Promise<unknown> }> = {
    model: {
      read: (i) => prisma.job.findUnique({ where: { id: id(i) } }),
      write: (i) => prisma.job.update({ where: { id: id(i) }, data: { updatedAt: now }, select: { id: true } }),
    },
    clientRaw: {
      read: (i) => prisma.$queryRaw`SELECT * FROM "Job" WHERE "id" = ${id(i)}`,
      write: (i) => prisma.$executeRaw`UPDATE "Job" SET "updatedAt" = ${sqlTime(now)} WHERE "id" = ${id(i)}`,
    },
    adapterPublic: {
      read: (i) => driver.queryRaw(driverQuery(READ, [id(i)])),
      write: (i) => driver.executeRaw(driverQuery(WRITE, [now.getTime(), id(i)])),
    },
    appSql: {
      read: (i) => sql.rows(Prisma.sql`SELECT * FROM "Job" WHERE "id" = ${id(i)}`),
      write: (i) => sql.execute(Prisma.sql`UPDATE "Job" SET "updatedAt" = ${sqlTime(now)} WHERE "id" = ${id(i)}`),
    },
  };

  /** CPU microseconds per call (user and system, this process), after a warm-up of a tenth. */
  async function cpuPerCall(call: (i: number) => Promise<unknown>): Promise<number> {
    for (let i = 0; i < CALLS / 10; i++) await call(i);
    const before = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) await call(i);
    const used = process.cpuUsage(before);
    return Math.round(((used.user + used.system) / CALLS) * 10) / 10;
  }

  const result: Record<string, { readUs: number; writeUs: number }> = {};
  for (const [name, path] of Object.entries(paths))
    result[name] = { readUs: await cpuPerCall(path.read), writeUs: await cpuPerCall(path.write) };
  await prisma.$disconnect();

  if (values.json) console.log(`RESULT ${JSON.stringify({ calls: CALLS, ...result })}`);
  else {
    console.log(`CPU per call, microseconds (${CALLS.toLocaleString("en")} calls each, SQLite):`);
    for (const [name, figures] of Object.entries(result))
      console.log(
        `  ${name.padEnd(14)} read ${String(figures.readUs).padStart(7)}   write ${String(figures.writeUs).padStart(7)}`,
      );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
