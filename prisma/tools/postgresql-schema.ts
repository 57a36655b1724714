import { readFileSync } from "node:fs";
import { POSTGRESQL_CLIENT_MODULE } from "../../app/database/connect.server";
import { SCHEMAS } from "./schemas";

// prisma/schema.prisma (SQLite) is the one source of the models. Prisma fixes the provider per
// schema, so PostgreSQL gets a derived copy: the same models, its own provider, and a client
// generated beside the SQLite one. tests/database/postgresql-schema.test.ts fails when the
// committed copy drifts; `npm run migration:postgresql` rewrites it (prisma/tools/new-migration.ts).

const HEADER = `// GENERATED from prisma/schema.prisma: do not edit. After changing that file, run
// \`npm run migration:postgresql -- <migration name>\` (docs/database.md, "Changing the models"), which
// rewrites this file and adds the matching PostgreSQL migration.
`;

function replaceOnce(source: string, pattern: RegExp, replacement: string, what: string): string {
  const found = source.match(new RegExp(pattern.source, "g"))?.length ?? 0;
  if (found !== 1) throw new Error(`prisma/schema.prisma: expected exactly one ${what}, found ${found}`);
  return source.replace(pattern, replacement);
}

export function derivePostgresqlSchema(sqliteSchema: string): string {
  let schema = replaceOnce(
    sqliteSchema,
    /(datasource db \{[^}]*?provider\s*=\s*)"sqlite"/,
    '$1"postgresql"',
    'datasource block with provider = "sqlite"',
  );
  // The path is relative to prisma/postgresql/.
  schema = replaceOnce(
    schema,
    /(generator client \{[^}]*?engineType\s*=\s*"client")/,
    `$1\n  output     = "../../node_modules/${POSTGRESQL_CLIENT_MODULE}"`,
    'generator client block with engineType = "client"',
  );
  return HEADER + schema;
}

/** The PostgreSQL schema as the current prisma/schema.prisma derives it. */
export function readDerivedSchema(): string {
  return derivePostgresqlSchema(readFileSync(SCHEMAS.sqlite, "utf8"));
}
