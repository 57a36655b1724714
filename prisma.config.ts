import { defineConfig } from "prisma/config";
import { requireDialect } from "./app/database/connect.server";
import { databaseUrl } from "./app/platform/database-url";
import { migrationAdapter } from "./prisma/tools/migration-adapter";
import { MIGRATIONS, SCHEMAS } from "./prisma/tools/schemas";

// Prisma's JavaScript engine with a driver adapter works fully offline; the native engines
// would be downloaded at every command (decision 001). DATABASE_URL picks the schema, its
// migrations and the adapter (decision 007).
const url = databaseUrl();
const dialect = requireDialect(url);
// The schema's datasource url must name the same kind of database, or Prisma looks for a
// native engine; connections themselves always go through the adapter.
process.env.DATABASE_URL = url;

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: SCHEMAS[dialect],
  migrations: { path: MIGRATIONS[dialect] },
  async adapter() {
    return migrationAdapter(url);
  },
});
