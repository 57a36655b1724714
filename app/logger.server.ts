import { env } from "./env.server";

// Structured one-line JSON logs. Secrets registered here are replaced before anything is
// written, so a key that leaks into an error message still never reaches a log line.

const LEVELS = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 } as const;
type Level = Exclude<keyof typeof LEVELS, "silent">;

const secrets = new Set<string>();

export function registerSecret(secret: string | undefined | null): void {
  if (secret && secret.length >= 6) secrets.add(secret);
}

export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join("[redacted]");
  return out;
}

function write(level: Level, message: string, fields?: Record<string, unknown>): void {
  if (LEVELS[level] > LEVELS[env().LOG_LEVEL]) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, message, ...fields }, (_key, value) =>
    value instanceof Error
      ? { name: value.name, message: value.message }
      : typeof value === "bigint"
        ? value.toString()
        : value,
  );
  (level === "error" ? process.stderr : process.stdout).write(`${redact(line)}\n`);
}

export const logger = {
  error: (message: string, fields?: Record<string, unknown>) => write("error", message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write("warn", message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write("info", message, fields),
  debug: (message: string, fields?: Record<string, unknown>) => write("debug", message, fields),
};
