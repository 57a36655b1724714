import { env } from "./env.server";
import type { LogEvent } from "./log-events";
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

/**
 * Identical failures within this interval are written once: the first at once, the rest as one
 * line with their count when the interval ends. A database restart of a few seconds made hundreds
 * of identical lines (a 503 per delivery, a failed job per claim) that buried what else happened.
 */
export const FOLD_INTERVAL_MS = 10_000;
/** Distinct failures folded at once; past it a failure is written as it comes. */
const MAX_FOLDS = 1_000;

interface Fold {
  level: Level;
  event: LogEvent;
  message: string;
  /** The fields of the latest line folded into it. */
  fields: Record<string, unknown> | undefined;
  /** Lines folded since it was last written. */
  repeated: number;
}

/** Failures seen in the current interval, by what makes them identical. */
const folds = new Map<string, Fold>();
let foldTimer: NodeJS.Timeout | undefined;
let flushAtExit = false;

/** What makes two failures identical: the level, the event, the message and the error's own message. */
function foldKey(level: Level, event: LogEvent, message: string, fields: Record<string, unknown> | undefined): string {
  const error = fields?.error;
  const cause = error instanceof Error ? error.message : error === undefined ? "" : String(error);
  return `${level}\0${event}\0${message}\0${cause}`;
}

/**
 * Writes the count of each failure folded since the last interval. A failure that came again
 * keeps folding into the next interval (one line per interval while it lasts); one that did not
 * is forgotten, and its next occurrence is written at once.
 */
export function flushFoldedLogs(): void {
  clearTimeout(foldTimer);
  foldTimer = undefined;
  for (const [key, fold] of folds) {
    if (fold.repeated === 0) {
      folds.delete(key);
      continue;
    }
    emit(fold.level, fold.event, fold.message, {
      ...fold.fields,
      repeated: fold.repeated,
      intervalSeconds: FOLD_INTERVAL_MS / 1000,
    });
    fold.repeated = 0;
  }
  if (folds.size > 0) scheduleFlush();
}

function scheduleFlush(): void {
  if (foldTimer) return;
  foldTimer = setTimeout(flushFoldedLogs, FOLD_INTERVAL_MS);
  foldTimer.unref();
  if (!flushAtExit) {
    flushAtExit = true;
    // Writes to a pipe or a file are synchronous at exit: the last interval's counts are not lost.
    process.once("exit", flushFoldedLogs);
  }
}

/** Whether this failure is folded into one seen earlier in the interval (and so not written now). */
function folded(level: Level, event: LogEvent, message: string, fields: Record<string, unknown> | undefined): boolean {
  const key = foldKey(level, event, message, fields);
  const fold = folds.get(key);
  if (fold) {
    fold.repeated += 1;
    fold.fields = fields;
    return true;
  }
  if (folds.size < MAX_FOLDS) {
    folds.set(key, { level, event, message, fields, repeated: 0 });
    scheduleFlush();
  }
  return false;
}

function emit(level: Level, event: LogEvent, message: string, fields?: Record<string, unknown>): void {
  const known = registeredSecrets();
  // The line's own keys come first and cannot be overwritten by a field of the same name.
  const head = { time: new Date().toISOString(), level, event, message };
  // Each string is redacted before the line is serialised: a field that is itself JSON (an
  // error body) would otherwise reach the line escaped twice, a spelling no redactor expects.
  const line = JSON.stringify(Object.assign({ ...head }, fields, head), (_key, value) =>
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

function write(level: Level, event: LogEvent, message: string, fields?: Record<string, unknown>): void {
  if (LEVELS[level] > LEVELS[env().LOG_LEVEL]) return;
  if ((level === "error" || level === "warn") && folded(level, event, message, fields)) return;
  emit(level, event, message, fields);
}

/**
 * One JSON line per event: `time`, `level`, `event` (a stable name from log-events.ts), `message`
 * (for reading), and the event's fields. Repeated identical warnings and errors are folded
 * (FOLD_INTERVAL_MS): a folded line carries `repeated`, how many more came in `intervalSeconds`.
 */
export const logger = {
  error: (event: LogEvent, message: string, fields?: Record<string, unknown>) => write("error", event, message, fields),
  warn: (event: LogEvent, message: string, fields?: Record<string, unknown>) => write("warn", event, message, fields),
  info: (event: LogEvent, message: string, fields?: Record<string, unknown>) => write("info", event, message, fields),
  debug: (event: LogEvent, message: string, fields?: Record<string, unknown>) => write("debug", event, message, fields),
};
