// Every way a call can fail, as plain data: callers branch on `kind`, and a result can be
// logged or serialised without dragging an exception (and its request options) along.

export type RetryableReason = "rate-limited" | "server-error" | "timeout" | "connection";

export type ClickServiceError =
  /** 400: the request was refused as malformed, e.g. no click id. Retrying cannot help. */
  | { kind: "bad-request"; status: 400; message: string }
  /** 401: the key is missing, unknown or revoked. Not retried: the merchant must fix the key. */
  | { kind: "credentials"; status: 401; message: string }
  /** 404: the click is unknown or past its 1-hour life. Not retried: it will not come back. */
  | { kind: "expired"; status: 404; message: string }
  /**
   * 429, 5xx, timeouts, refused or reset connections, after the client's own retries ran out.
   * `sent` is false only when the request never reached the service (no connection was made):
   * sending it again cannot make the service count it twice.
   */
  | { kind: "retryable"; reason: RetryableReason; status?: number; message: string; attempts: number; sent: boolean }
  /** A status the contract does not give meaning to (403, 405, 413, 3xx...). */
  | { kind: "unexpected-status"; status: number; message: string }
  /** A 2xx whose body is not what the contract promises; `field` names the first offender. */
  | { kind: "invalid-response"; status: number; field: string; message: string }
  /** Refused before sending: an argument that cannot be put on the wire as the contract wants. */
  | { kind: "invalid-input"; field: string; message: string }
  /** The client itself cannot send (e.g. closed pool). Not retried. */
  | { kind: "client"; message: string };

export type ClickServiceResult<T> = { ok: true; value: T } | { ok: false; error: ClickServiceError };

export const MAX_ERROR_TEXT = 500;
const REDACTED = "[redacted]";

/**
 * Removes every spelling of the secrets a server or library could echo back: raw, JSON-escaped
 * and percent-encoded. Every string the client puts into a result goes through here.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret) continue;
    const spellings = new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]);
    for (const spelling of spellings) out = out.split(spelling).join(REDACTED);
  }
  return out;
}

/** Cuts after redaction, so a cut can never leave half a key behind. */
export function boundedText(text: string, secrets: readonly string[], max = MAX_ERROR_TEXT): string {
  const clean = redactSecrets(text, secrets);
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/** Error bodies have no specified shape: prefer `error`, then `message`, then the raw text. */
export function errorMessageFromBody(text: string, secrets: readonly string[]): string {
  let message = text;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object") {
      const record = parsed as Record<string, unknown>;
      if (typeof record.error === "string") message = record.error;
      else if (typeof record.message === "string") message = record.message;
    }
  } catch {
    // Not JSON: the text itself is the best description we have.
  }
  return boundedText(message.trim(), secrets);
}
