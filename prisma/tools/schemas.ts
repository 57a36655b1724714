import path from "node:path";
import type { DatabaseDialect } from "../../app/platform/database-url";

// Each dialect's schema and its migrations.
const ROOT = path.resolve(import.meta.dirname, "../..");

export const SCHEMAS: Record<DatabaseDialect, string> = {
  sqlite: path.join(ROOT, "prisma/schema.prisma"),
  postgresql: path.join(ROOT, "prisma/postgresql/schema.prisma"),
};

export const MIGRATIONS: Record<DatabaseDialect, string> = {
  sqlite: path.join(ROOT, "prisma/migrations"),
  postgresql: path.join(ROOT, "prisma/postgresql/migrations"),
};
