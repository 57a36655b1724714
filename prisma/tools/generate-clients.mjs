// Generates the Prisma client of each dialect (docs/decisions/007-sqlite-and-postgresql-from-one-code-base.md):
// @prisma/client from the SQLite schema, .prisma/client-postgresql from the derived PostgreSQL one.
// Plain JavaScript so that it runs at postinstall even where dev dependencies are left out.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");
const require = createRequire(import.meta.url);
const prismaCli = require.resolve("prisma/build/index.js");
const generated = path.join(root, "node_modules/.prisma");
const postgresqlClient = path.join(generated, "client-postgresql");

// Prisma keeps to its JavaScript engine only when the schema's datasource url is of the
// schema's own kind (otherwise it tries to download a native engine), so each run is given
// such a URL. Generating connects to nothing.
const clients = [
  { schema: "prisma/schema.prisma", url: "file:./data/app.sqlite" },
  { schema: "prisma/postgresql/schema.prisma", url: "postgresql://localhost/generate-only" },
];

// Both clients are generated from exactly these inputs: when the stamp left by the last
// generation still matches, there is nothing to do. The release step (`npm run setup`) then
// writes nothing to node_modules, which the image's run stage leaves read-only to the app's user.
const stamp = path.join(generated, "tag-guard-clients.sha256");
const inputs = createHash("sha256")
  .update(readFileSync(require.resolve("prisma/package.json")))
  .update(clients.map(({ schema }) => readFileSync(path.join(root, schema), "utf8")).join("\0"))
  .digest("hex");
const current =
  existsSync(stamp) &&
  readFileSync(stamp, "utf8") === inputs &&
  existsSync(path.join(generated, "client/index.js")) &&
  existsSync(path.join(postgresqlClient, "index.js"));
if (current) {
  console.log("Prisma clients are up to date (node_modules/.prisma); nothing to generate");
  process.exit(0);
}

for (const { schema, url } of clients) {
  const result = spawnSync(process.execPath, [prismaCli, "generate", "--schema", schema], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url },
    stdio: "inherit",
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

// A client generated outside node_modules/.prisma/client gets its own copy of Prisma's runtime,
// and with it its own error classes: the app's `instanceof Prisma.PrismaClientKnownRequestError`
// (a unique violation, a lost lease) would never match PostgreSQL's errors. Both clients come
// from the same @prisma/client, so the PostgreSQL one is pointed at that runtime instead.
for (const file of readdirSync(postgresqlClient)) {
  if (!/\.(js|d\.ts)$/.test(file)) continue;
  const full = path.join(postgresqlClient, file);
  const source = readFileSync(full, "utf8");
  const shared = source.replaceAll("'./runtime/", "'@prisma/client/runtime/");
  if (shared !== source) writeFileSync(full, shared);
}
rmSync(path.join(postgresqlClient, "runtime"), { recursive: true, force: true });
writeFileSync(stamp, inputs);
