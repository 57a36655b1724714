// Every way a call can fail, as plain data: callers branch on `kind`, and a result can be
// logged or serialised without dragging an exception (and its request options) along.
// Messages are the app's own words: they reach the merchant (settings page, order log), so the
// body of an answer never does; the contract's few error strings are recognised, not quoted.
import { redactSecrets } from "../platform/redaction";
import { CONTRACT_ERRORS } from "./contract";

export { redactSecrets };

export type ContractError = keyof typeof CONTRACT_ERRORS;

export type RetryableReason = "rate-limited" | "server-error" | "timeout" | "connection" | "not-found-off-contract";

export type ClickServiceError =
  /** 400: the request was refused as malformed, e.g. no click id. Retrying cannot help. */
  | { kind: "bad-request"; status: 400; message: string; contractError?: ContractError }
  /** 401: the key is missing, unknown or revoked. Not retried: the merchant must fix the key. */
  | { kind: "credentials"; status: 401; message: string; contractError?: ContractError }
  /**
   * 404 in the contract's words ("Click not found or expired"): the click is unknown or past its
   * 1-hour life. Not retried: it will not come back. A 404 in other words is "retryable".
   */
  | { kind: "expired"; status: 404; message: string; contractError?: ContractError }
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
  | { kind: "client"; message: string }
  /** Refused before connecting: plain http where https is required, or a local or private address. Not retried. */
  | { kind: "destination"; message: string };

export type ClickServiceResult<T> = { ok: true; value: T } | { ok: false; error: ClickServiceError };

export const MAX_ERROR_TEXT = 500;

/**
 * Every string the client puts into a result goes through redactSecrets; this also cuts, after
 * redaction, so a cut can never leave half a key behind.
 */
export function boundedText(text: string, secrets: readonly string[], max = MAX_ERROR_TEXT): string {
  const clean = redactSecrets(text, secrets);
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/**
 * Which of the contract's error strings (section 7) an error body carries, if any. Bodies have
 * no specified shape: `error`, then `message`, then the raw text are compared.
 */
export function contractErrorIn(text: string): ContractError | undefined {
  let candidate = text;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object") {
      const record = parsed as Record<string, unknown>;
      if (typeof record.error === "string") candidate = record.error;
      else if (typeof record.message === "string") candidate = record.message;
    }
  } catch {
    // Not JSON: compare the text itself.
  }
  const wanted = candidate.trim().toLowerCase();
  return (Object.keys(CONTRACT_ERRORS) as ContractError[]).find(
    (name) => CONTRACT_ERRORS[name].toLowerCase() === wanted,
  );
}

const CONTRACT_WORDS: Record<ContractError, string> = {
  clickIdRequired: "the request had no click id",
  apiKeyRequired: "the request had no API key",
  invalidApiKey: "the API key is unknown or revoked",
  clickNotFound: "the click is unknown or past its one-hour life",
};

/** The merchant-facing description of an answer that was not a success: status and our words. */
export function describeStatus(status: number, contractError: ContractError | undefined): string {
  const words = contractError ? CONTRACT_WORDS[contractError] : statusWords(status);
  return `the service answered HTTP ${status}: ${words}`;
}

function statusWords(status: number): string {
  if (status === 400) return "it refused the request";
  if (status === 401) return "it refused the API key";
  if (status === 404) return "not found, and not in the Click Verification Service's words";
  if (status === 408) return "the request timed out";
  if (status === 429) return "too many requests";
  if (status >= 500) return "a server error";
  if (status >= 300 && status < 400) return "a redirect, which the app does not follow";
  return "a status the contract does not define";
}
