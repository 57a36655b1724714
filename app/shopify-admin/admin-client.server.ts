// One call to the Admin GraphQL API through `admin.graphql` from @shopify/shopify-app-remix,
// with the library's failure modes turned into a typed result and throttling retried here.
//
// What admin.graphql (shopify-app-remix 4.2.1 over @shopify/shopify-api 13.1.0) does:
//  - 200 with data and no `errors`: resolves a Response whose JSON is {data, extensions, headers}.
//  - 200 with top-level `errors` (THROTTLED, ACCESS_DENIED, field errors...): THROWS
//    GraphqlQueryError; `error.body.errors.graphQLErrors` holds the errors and
//    `error.body.extensions.cost` the throttle status. The library never retries these, so
//    GraphQL-level THROTTLED is retried by this module.
//  - 429: throws HttpThrottlingError (retryAfter from Retry-After); 5xx: HttpInternalError (both
//    HttpRetriableError < HttpResponseError); other 4xx: HttpResponseError with response.code.
//    With `tries` > 1 the client itself retries 429 and 503 (only) after Retry-After or 1 s,
//    and when the last try still fails throws HttpMaxRetriesError instead.
//  - fetch failure (DNS, refused, reset): throws HttpRequestError ("no response available").
//  - Contexts built with a handleClientError (authenticate.admin / authenticate.webhook) turn
//    every HttpResponseError into a thrown `Response` carrying the status and body instead.
// This module never passes `tries`: it owns the retry policy.
import type { AdminOperations } from "@shopify/admin-api-client";
import { GraphqlQueryError, HttpMaxRetriesError, HttpRequestError, HttpResponseError } from "@shopify/shopify-api";
import { countShopifyThrottle } from "../metrics/registry.server";
import { refuseInsideTransaction } from "../platform/transaction-scope";

/** Structural type of `admin.graphql`, so the real client and test doubles both fit. */
export type AdminGraphql = (
  query: string,
  options?: { variables?: Record<string, unknown>; tries?: number },
) => Promise<Response>;

// app/types/admin.generated.d.ts (npm run graphql-codegen) adds each document of documents.ts,
// keyed by its exact text, to the library's AdminOperations. The library's own entry (any
// string, any types) is left out here, so a document edited without regenerating the types,
// or never generated, does not type-check.
type GeneratedOperations = {
  [K in keyof AdminOperations as K extends string ? (string extends K ? never : K) : never]: AdminOperations[K];
};
/** The text of a document the codegen knows. */
export type AdminDocument = keyof GeneratedOperations;
export type AdminVariables<D extends AdminDocument> = GeneratedOperations[D]["variables"];
export type AdminData<D extends AdminDocument> = GeneratedOperations[D]["return"];

/**
 * A failed call. `throttledForMs` is set when the shop's API bucket was empty: how long until it
 * holds enough points again, so the caller can come back then instead of waiting.
 */
export type AdminFailure = { ok: false; retryable: boolean; message: string; throttledForMs?: number };
export type AdminResult = { ok: true; cost?: QueryCost } | AdminFailure;
export type AdminCallResult<T> = { ok: true; data: T; cost?: QueryCost } | AdminFailure;

export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}
export interface QueryCost {
  requestedQueryCost: number;
  actualQueryCost?: number | null;
  throttleStatus: ThrottleStatus;
}

export interface RetryOptions {
  /** Total attempts including the first; default 4. */
  maxAttempts?: number;
  /** Longest single wait; default 10 000 ms. */
  maxWaitMs?: number;
  /** Injectable for tests. */
  sleep?: (ms: number) => Promise<void>;
}

interface GraphqlErrorLike {
  message?: string;
  extensions?: { code?: string; [key: string]: unknown };
}

type Attempt<T> =
  | { kind: "ok"; data: T; cost?: QueryCost }
  | { kind: "throttled"; cost?: QueryCost; retryAfterMs?: number; message: string }
  | { kind: "fail"; retryable: boolean; message: string };

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Seconds to wait for enough points: (requested - available) / restoreRate, capped. */
export function throttleWaitMs(cost: QueryCost | undefined, maxWaitMs: number): number {
  const status = cost?.throttleStatus;
  if (!cost || !status || !(status.restoreRate > 0)) return Math.min(1000, maxWaitMs);
  const missing = Math.max(0, cost.requestedQueryCost - status.currentlyAvailable);
  const ms = Math.ceil((missing / status.restoreRate) * 1000);
  return Math.min(Math.max(ms, 100), maxWaitMs);
}

/** Sends one of the app's documents, with the variables and result types generated from it. */
export function requestAdmin<D extends AdminDocument>(
  graphql: AdminGraphql,
  document: D,
  variables: AdminVariables<D>,
  options?: RetryOptions,
): Promise<AdminCallResult<AdminData<D>>> {
  return callAdmin(graphql, document, variables, options) as Promise<AdminCallResult<AdminData<D>>>;
}

/** Sends any document; the data comes back unchecked. The transport under requestAdmin. */
export async function callAdmin(
  graphql: AdminGraphql,
  query: string,
  variables: Record<string, unknown> | undefined,
  options: RetryOptions = {},
): Promise<AdminCallResult<unknown>> {
  refuseInsideTransaction("Shopify's Admin API");
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  const maxWaitMs = options.maxWaitMs ?? 10_000;
  const sleep = options.sleep ?? defaultSleep;
  let last: Attempt<unknown> | undefined;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    last = await attemptOnce<unknown>(graphql, query, variables);
    if (last.kind === "throttled") countShopifyThrottle();
    if (last.kind === "ok") return { ok: true, data: last.data, ...(last.cost && { cost: last.cost }) };
    if (last.kind === "fail") return { ok: false, retryable: last.retryable, message: last.message };
    if (attempt < maxAttempts) {
      await sleep(
        last.retryAfterMs !== undefined ? Math.min(last.retryAfterMs, maxWaitMs) : throttleWaitMs(last.cost, maxWaitMs),
      );
    }
  }
  const throttled = last?.kind === "throttled" ? last : undefined;
  return {
    ok: false,
    retryable: true,
    message: `throttled: still throttled after ${maxAttempts} attempts (${throttled?.message ?? ""})`,
    throttledForMs: throttled?.retryAfterMs ?? throttleWaitMs(throttled?.cost, Number.MAX_SAFE_INTEGER),
  };
}

async function attemptOnce<T>(
  graphql: AdminGraphql,
  query: string,
  variables: Record<string, unknown> | undefined,
): Promise<Attempt<T>> {
  let response: Response;
  try {
    response = await graphql(query, variables ? { variables } : undefined);
  } catch (error) {
    return classifyThrown<T>(error);
  }
  return classifyResponse<T>(response);
}

async function classifyResponse<T>(response: Response): Promise<Attempt<T>> {
  let body: { data?: T | null; errors?: unknown; extensions?: { cost?: QueryCost } } | undefined;
  try {
    body = (await response.json()) as typeof body;
  } catch {
    body = undefined;
  }
  if (!response.ok) return classifyStatus(response.status, body, retryAfter(response.headers.get("retry-after")));
  if (!body) return { kind: "fail", retryable: true, message: "network: unreadable response body" };
  if (Array.isArray(body.errors) && body.errors.length > 0) {
    return classifyGraphqlErrors(body.errors as GraphqlErrorLike[], body.extensions?.cost);
  }
  if (body.data == null) return { kind: "fail", retryable: true, message: "network: response carried no data" };
  return { kind: "ok", data: body.data, cost: body.extensions?.cost };
}

function classifyThrown<T>(error: unknown): Attempt<T> {
  if (error instanceof Response) {
    // handleClientError's re-throw: status and (already serialised) body only.
    return classifyStatus(error.status, undefined, retryAfter(error.headers.get("retry-after")));
  }
  if (error instanceof GraphqlQueryError) {
    const body = error.body as
      { errors?: { graphQLErrors?: GraphqlErrorLike[] }; extensions?: { cost?: QueryCost } } | undefined;
    const errors = body?.errors?.graphQLErrors ?? [{ message: error.message }];
    return classifyGraphqlErrors(errors, body?.extensions?.cost);
  }
  if (error instanceof HttpResponseError) {
    const retry = (error.response as { retryAfter?: number }).retryAfter;
    return classifyStatus(error.response.code, error.response.body, retry !== undefined ? retry * 1000 : undefined);
  }
  if (error instanceof HttpMaxRetriesError) {
    return { kind: "fail", retryable: true, message: `server: ${error.message}` };
  }
  if (error instanceof HttpRequestError) {
    return { kind: "fail", retryable: true, message: `network: ${error.message}` };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: "fail", retryable: true, message: `network: ${message}` };
}

function classifyGraphqlErrors<T>(errors: GraphqlErrorLike[], cost: QueryCost | undefined): Attempt<T> {
  const codes = errors.map((e) => e.extensions?.code).filter((c): c is string => !!c);
  const text = errors.map((e) => e.message ?? "unknown error").join("; ");
  if (codes.includes("THROTTLED")) return { kind: "throttled", cost, message: text };
  if (codes.includes("ACCESS_DENIED")) return { kind: "fail", retryable: false, message: `access denied: ${text}` };
  if (codes.includes("INTERNAL_SERVER_ERROR")) return { kind: "fail", retryable: true, message: `server: ${text}` };
  return { kind: "fail", retryable: false, message: `graphql errors: ${text}` };
}

function classifyStatus<T>(status: number, body: unknown, retryAfterMs: number | undefined): Attempt<T> {
  const detail = describeBody(body);
  if (status === 429) return { kind: "throttled", retryAfterMs, message: `HTTP 429${detail}` };
  if (status >= 500) return { kind: "fail", retryable: true, message: `server: HTTP ${status}${detail}` };
  // With expiring offline tokens a 401 is most often a token another refresh or exchange (the
  // other thread, another instance) has just replaced: a later attempt loads the stored one again.
  if (status === 401)
    return {
      kind: "fail",
      retryable: true,
      message: `access denied: HTTP 401 (invalid or revoked access token)${detail}`,
    };
  if (status === 403)
    return {
      kind: "fail",
      retryable: false,
      message: `access denied: HTTP 403 (missing scope or shop unavailable)${detail}`,
    };
  if (status === 404)
    return {
      kind: "fail",
      retryable: false,
      message: `not found: HTTP 404 (shop or API version unavailable)${detail}`,
    };
  if (status === 402 || status === 423)
    return { kind: "fail", retryable: false, message: `shop unavailable: HTTP ${status}${detail}` };
  return { kind: "fail", retryable: false, message: `rejected: HTTP ${status}${detail}` };
}

function describeBody(body: unknown): string {
  if (body == null || body === "") return "";
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return `: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`;
}

function retryAfter(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number.parseFloat(header);
  return Number.isFinite(seconds) ? seconds * 1000 : undefined;
}
