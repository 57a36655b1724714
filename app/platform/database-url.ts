import { mkdirSync } from "node:fs";
import path from "node:path";

// One default for every entry point (Prisma CLI, the app, tests, the demo), so a
// newcomer never writes an env file: a SQLite file under ./data.
export const DEFAULT_DATABASE_URL = "file:./data/app.sqlite";

/** The database the URL names, and so the Prisma schema, client, adapter and migrations in use. */
export type DatabaseDialect = "sqlite" | "postgresql";

export function databaseUrl(env: Record<string, string | undefined> = process.env): string {
  return env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL;
}

/** The dialect a DATABASE_URL selects; null for a URL that names neither. */
export function databaseDialect(url: string): DatabaseDialect | null {
  if (/^file:./.test(url)) return "sqlite";
  if (/^postgres(ql)?:\/\/./.test(url)) return "postgresql";
  return null;
}

/** The SQLite file's absolute path, its folder created if missing (SQLite will not). */
export function databaseFile(url: string): string {
  const file = path.resolve(url.replace(/^file:/, ""));
  mkdirSync(path.dirname(file), { recursive: true });
  return file;
}
