// The merchant-side client of the Click Verification Service (shared/spec). Every outcome is
// a typed result; nothing it returns or throws while calling can carry the API key.
import { performance } from "node:perf_hooks";
import type { z } from "zod";
import {
  clickRecordSchema,
  LOOKUP_CLICK_PATH,
  verificationResultSchema,
  VERIFY_CLICK_PATH,
  type ClickRecord,
  type VerificationResult,
} from "./contract";
import { defaultDestinationPolicy, destinationProblem, type DestinationPolicy } from "./destination";
import {
  boundedText,
  contractErrorIn,
  describeStatus,
  redactSecrets,
  type ClickServiceError,
  type ClickServiceResult,
  type RetryableReason,
} from "./errors";
import {
  DEFAULT_TIMEOUTS,
  exchange,
  openPool,
  poolFor,
  type TimeoutOptions,
  type WireOutcome,
  type WireRequest,
} from "./http";
import { buildVerifyBody, type VerifyClickInput } from "./request-body";
import { DEFAULT_RETRY, withRetries, type AttemptVerdict, type RetryOptions } from "./retry";
import {
  observeClickServiceRequest,
  type ClickServiceOperation,
  type ClickServiceOutcome,
} from "../metrics/registry.server";
import { refuseInsideTransaction } from "../platform/transaction-scope";

export interface ClickServiceClientOptions extends Partial<TimeoutOptions>, Partial<RetryOptions> {
  /** e.g. "https://clicks.example.com"; a path prefix is kept in front of /api/v1/... */
  baseUrl: string;
  apiKey: string;
  /** Where it may connect; the process default (setDefaultDestinationPolicy) when omitted. */
  destination?: DestinationPolicy;
  /**
   * Open a connection for each call and close it once answered, instead of sharing the origin's
   * keep-alive pool: for a one-off probe such as Test connection, whose URL is not yet trusted.
   */
  singleUse?: boolean;
}

export interface CallOptions {
  /** No retry is started once it would land after this (the click's end of life). */
  deadline?: Date;
  /** Aborts the call and its retries. */
  signal?: AbortSignal;
}

export interface ClickServiceClient {
  lookupClick(clickId: string, options?: CallOptions): Promise<ClickServiceResult<ClickRecord>>;
  verifyClick(input: VerifyClickInput, options?: CallOptions): Promise<ClickServiceResult<VerificationResult>>;
}

/** Throws only for a misconfiguration found at construction (bad URL, unusable key). */
export function createClickServiceClient(options: ClickServiceClientOptions): ClickServiceClient {
  const { baseUrl, apiKey, destination = defaultDestinationPolicy(), singleUse = false, ...rest } = options;
  if (typeof apiKey !== "string" || apiKey.length === 0 || /[^\x21-\x7e]/.test(apiKey)) {
    // The message must not quote the key: it is a secret even when malformed.
    throw new TypeError("Click service apiKey must be a non-empty string of visible ASCII characters");
  }
  const base = parseBaseUrl(baseUrl);
  const timeouts: TimeoutOptions = { ...DEFAULT_TIMEOUTS, ...pick(rest, DEFAULT_TIMEOUTS) };
  const retry: RetryOptions = { ...DEFAULT_RETRY, ...pick(rest, DEFAULT_RETRY) };
  const secrets = [apiKey];

  /**
   * `resend`: whether a failure after the request reached the service may be retried. Lookups
   * may; a verification report may not, since the service may have recorded it (decision 010).
   */
  async function call<T>(
    operation: ClickServiceOperation,
    request: Omit<WireRequest, "headers" | "signal">,
    schema: z.ZodType<T>,
    callOptions: CallOptions | undefined,
    resend: boolean,
  ): Promise<ClickServiceResult<T>> {
    refuseInsideTransaction("the click service");
    const headers: Record<string, string> = { accept: "application/json", "x-api-key": apiKey };
    if (request.body !== undefined) headers["content-type"] = "application/json";
    const wire: WireRequest = {
      ...request,
      path: base.pathPrefix + request.path,
      headers,
      signal: callOptions?.signal,
    };
    const refused = destinationProblem(base.url, destination);
    if (refused) return failure({ kind: "destination", message: refused });
    const { value, attempts } = await withRetries<ClickServiceResult<T>>(
      async () => {
        const verdict = interpret(await send(operation, wire), schema);
        const sent = verdict.value.ok || verdict.value.error.kind !== "retryable" || verdict.value.error.sent;
        return !verdict.done && sent && !resend ? { done: true, value: verdict.value } : verdict;
      },
      retry,
      callOptions?.deadline,
    );
    if (!value.ok && value.error.kind === "retryable") value.error.attempts = attempts;
    return value;
  }

  /** One exchange on the wire, counted and timed (app/metrics): each retry is a request of its own. */
  async function send(operation: ClickServiceOperation, wire: WireRequest): Promise<WireOutcome> {
    const started = performance.now();
    const outcome = await exchangeOnce(wire);
    observeClickServiceRequest(operation, outcomeOf(outcome), (performance.now() - started) / 1000);
    return outcome;
  }

  async function exchangeOnce(wire: WireRequest): Promise<WireOutcome> {
    if (!singleUse) return exchange(poolFor(base.origin, timeouts.connectTimeoutMs, destination), wire, timeouts);
    const pool = openPool(base.origin, timeouts.connectTimeoutMs, destination);
    try {
      return await exchange(pool, wire, timeouts);
    } finally {
      await pool.destroy();
    }
  }

  function interpret<T>(outcome: WireOutcome, schema: z.ZodType<T>): AttemptVerdict<ClickServiceResult<T>> {
    if (outcome.kind !== "response") {
      const message = boundedText(outcome.detail, secrets);
      if (outcome.kind === "client") return { done: true, value: failure({ kind: "client", message }) };
      if (outcome.kind === "destination") return { done: true, value: failure({ kind: "destination", message }) };
      return { done: false, value: retryable(outcome.kind, message, outcome.sent) };
    }
    const { status, text } = outcome;
    if (
      status < 300 &&
      // Stryker disable next-line ConditionalExpression: undici hands on only a final answer, 200 or more; an informational 1xx never ends a request
      status >= 200
    )
      return { done: true, value: parseSuccess(status, text, outcome.truncated, schema) };
    // Only the contract's own error strings are recognised, and only under their own status.
    const contract = contractErrorIn(text);
    const expected =
      (status === 400 && contract === "clickIdRequired") ||
      (status === 401 && (contract === "apiKeyRequired" || contract === "invalidApiKey")) ||
      (status === 404 && contract === "clickNotFound");
    const contractError = expected ? contract : undefined;
    const message = describeStatus(status, contractError);
    const recognised = contractError ? { contractError } : {};
    if (status === 429 || status === 408 || status >= 500) {
      const reason: RetryableReason = status === 429 ? "rate-limited" : status === 408 ? "timeout" : "server-error";
      return { done: false, value: retryable(reason, message, true, status), retryAfter: outcome.retryAfter };
    }
    if (status === 400) return { done: true, value: failure({ kind: "bad-request", status, message, ...recognised }) };
    if (status === 401) return { done: true, value: failure({ kind: "credentials", status, message, ...recognised }) };
    if (status === 404 && contractError)
      return { done: true, value: failure({ kind: "expired", status, message, contractError }) };
    // Some other server's 404 (a mistyped base path, a proxy, a deploy under way) says nothing of
    // the click: tried again later like a 5xx, never taken as its end. Not at once, though: it is
    // as likely to be the URL, and the caller's retry comes with a backoff.
    if (status === 404) return { done: true, value: retryable("not-found-off-contract", message, true, status) };
    return { done: true, value: failure({ kind: "unexpected-status", status, message }) };
  }

  function parseSuccess<T>(
    status: number,
    text: string,
    truncated: boolean,
    schema: z.ZodType<T>,
  ): ClickServiceResult<T> {
    const offContract = (field: string, why: string) =>
      failure({ kind: "invalid-response", status, field, message: boundedText(`${field}: ${why}`, secrets) });
    if (truncated) return offContract("(body)", "response too large");
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return offContract("(body)", "not valid JSON");
    }
    const parsed = schema.safeParse(json);
    if (parsed.success) return { ok: true, value: parsed.data };
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "(body)";
    // Stryker disable next-line StringLiteral: never read, a failed zod parse always has a first issue
    return offContract(field, issue?.message ?? "does not match the contract");
  }

  return {
    lookupClick(clickId, callOptions) {
      if (typeof clickId !== "string") {
        return Promise.resolve(
          failure({ kind: "invalid-input", field: "clickId", message: "clickId must be a string" }),
        );
      }
      const query = new URLSearchParams({ click_id: clickId }).toString();
      return call(
        "lookup_click",
        { method: "GET", path: `${LOOKUP_CLICK_PATH}?${query}` },
        clickRecordSchema,
        callOptions,
        true,
      );
    },
    verifyClick(input, callOptions) {
      const body = buildVerifyBody(input ?? ({} as VerifyClickInput));
      if (!body.ok) {
        return Promise.resolve(
          failure({ kind: "invalid-input", field: body.field, message: redactSecrets(body.message, secrets) }),
        );
      }
      return call(
        "verify_click",
        { method: "POST", path: VERIFY_CLICK_PATH, body: body.text },
        verificationResultSchema,
        callOptions,
        false,
      );
    },
  };
}

/** What an exchange came to, as the metrics count it: the answer's class, or why none came. */
function outcomeOf(outcome: WireOutcome): ClickServiceOutcome {
  switch (outcome.kind) {
    case "timeout":
      return "timeout";
    case "connection":
      return "connection";
    case "client":
      return "aborted";
    case "destination":
      return "refused";
    case "response": {
      const { status } = outcome;
      if (
        status < 300 &&
        // Stryker disable next-line ConditionalExpression: undici hands on only a final answer, 200 or more; an informational 1xx never ends a request
        status >= 200
      )
        return "ok";
      if (status === 401 || status === 404 || status === 429) return String(status) as "401" | "404" | "429";
      if (status >= 500) return "5xx";
      return status >= 400 ? "4xx" : "other";
    }
  }
}

function failure(error: ClickServiceError): { ok: false; error: ClickServiceError } {
  return { ok: false, error };
}

function retryable(
  reason: RetryableReason,
  message: string,
  sent: boolean,
  status?: number,
): { ok: false; error: ClickServiceError } {
  // attempts is filled in once the retry loop knows how many it made.
  return failure({
    kind: "retryable",
    reason,
    message,
    attempts: 1,
    sent,
    ...(status === undefined ? {} : { status }),
  });
}

function parseBaseUrl(baseUrl: string): { url: URL; origin: string; pathPrefix: string } {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError("Click service baseUrl is not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new TypeError("Click service baseUrl must be http(s)");
  if (url.username || url.password) throw new TypeError("Click service baseUrl must not carry credentials");
  return { url, origin: url.origin, pathPrefix: url.pathname.replace(/\/+$/, "") };
}

// Only the known option names are taken, and undefined never overrides a default.
function pick<T extends object>(source: Record<string, unknown>, defaults: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(defaults)) if (source[key] !== undefined) out[key] = source[key];
  return out as Partial<T>;
}
