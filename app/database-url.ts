// One default for every entry point (Prisma CLI, the app, tests, the demo), so a
// newcomer never writes an env file: a SQLite file under ./data.
export const DEFAULT_DATABASE_URL = "file:./data/app.sqlite";

export function databaseUrl(env: Record<string, string | undefined> = process.env): string {
  return env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL;
}
