import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { databaseFile, databaseUrl } from "./app/database-url";

// Prisma's JavaScript engine with the better-sqlite3 adapter works fully offline;
// the native engines would be downloaded at every command (decision 001).
process.env.DATABASE_URL = databaseUrl();

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join("prisma", "schema.prisma"),
  async adapter() {
    return new PrismaBetterSQLite3({ url: `file:${databaseFile(databaseUrl())}` }, { timestampFormat: "unixepoch-ms" });
  },
});
