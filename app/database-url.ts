import { mkdirSync } from "node:fs";
import path from "node:path";

// One default for every entry point (Prisma CLI, the app, tests, the demo), so a
// newcomer never writes an env file: a SQLite file under ./data.
export const DEFAULT_DATABASE_URL = "file:./data/app.sqlite";

export function databaseUrl(env: Record<string, string | undefined> = process.env): string {
  return env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL;
}

/** The SQLite file's absolute path, its folder created if missing (SQLite will not). */
export function databaseFile(url: string): string {
  const file = path.resolve(url.replace(/^file:/, ""));
  mkdirSync(path.dirname(file), { recursive: true });
  return file;
}
