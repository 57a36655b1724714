import { env } from "./env.server";
import { redactSecrets } from "./redaction";

// Structured one-line JSON logs. Secrets registered here are replaced before anything is
// written, in every spelling redactSecrets knows, so a key that leaks into an error message
// (or a URL, or a JSON body quoted in one) still never reaches a log line.

const LEVELS = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 } as const;
type Level = Exclude<keyof typeof LEVELS, "silent">;

/**
 * How long a secret stays registered after it was last registered. A key is registered each
 * time it is unsealed or typed in, just before it is used, and no use comes near this (a
 * click-service call with all its retries ends within about a minute and a half), so only the
 * keys of shops active lately are held, not every shop's since the process started.
 */
export const SECRET_RETENTION_MS = 15 * 60_000;

/** Secret -> when it was last registered; oldest first (a re-registered secret moves to the end). */
const secrets = new Map<string, number>();

export function registerSecret(secret: string | undefined | null, now: number = Date.now()): void {
  if (!secret || secret.length < 6) return;
  secrets.delete(secret);
  secrets.set(secret, now);
}

/** The secrets still registered at `now`; forgets the ones past their retention. */
export function registeredSecrets(now: number = Date.now()): string[] {
  for (const [secret, registeredAt] of secrets) {
    if (now - registeredAt < SECRET_RETENTION_MS) break;
    secrets.delete(secret);
  }
  return [...secrets.keys()];
}

export function redact(text: string): string {
  return redactSecrets(text, registeredSecrets());
}

function write(level: Level, message: string, fields?: Record<string, unknown>): void {
  if (LEVELS[level] > LEVELS[env().LOG_LEVEL]) return;
  const known = registeredSecrets();
  // Each string is redacted before the line is serialised: a field that is itself JSON (an
  // error body) would otherwise reach the line escaped twice, a spelling no redactor expects.
  const line = JSON.stringify({ time: new Date().toISOString(), level, message, ...fields }, (_key, value) =>
    value instanceof Error
      ? { name: value.name, message: value.message }
      : typeof value === "bigint"
        ? value.toString()
        : typeof value === "string"
          ? redactSecrets(value, known)
          : value,
  );
  (level === "error" ? process.stderr : process.stdout).write(`${line}\n`);
}

export const logger = {
  error: (message: string, fields?: Record<string, unknown>) => write("error", message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write("warn", message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write("info", message, fields),
  debug: (message: string, fields?: Record<string, unknown>) => write("debug", message, fields),
};
