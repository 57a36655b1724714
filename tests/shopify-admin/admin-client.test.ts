// Classification of each way admin.graphql can fail, with hand-made failures shaped exactly
// as @shopify/shopify-api 13 / shopify-app-remix 4 produce them (see admin-client.server.ts).
import {
  GraphqlQueryError,
  HttpInternalError,
  HttpMaxRetriesError,
  HttpRequestError,
  HttpResponseError,
  HttpThrottlingError,
} from "@shopify/shopify-api";
import { describe, expect, it } from "vitest";
import { callAdmin, throttleWaitMs, type AdminGraphql } from "../../app/shopify-admin/admin-client.server";

const sleeps: number[] = [];
const opts = { sleep: async (ms: number) => void sleeps.push(ms) };
const failing =
  (error: unknown): AdminGraphql =>
  async () => {
    throw error;
  };
const cost = (requested: number, available: number) => ({
  requestedQueryCost: requested,
  actualQueryCost: null,
  throttleStatus: { maximumAvailable: 2000, currentlyAvailable: available, restoreRate: 100 },
});
const throttledError = (requested: number, available: number) =>
  new GraphqlQueryError({
    message: "Throttled",
    response: {} as never,
    body: {
      errors: { graphQLErrors: [{ message: "Throttled", extensions: { code: "THROTTLED" } }] },
      extensions: { cost: cost(requested, available) },
    } as never,
  });

describe("callAdmin", () => {
  it("waits (requested - available) / restoreRate, capped, and bounds attempts", async () => {
    sleeps.length = 0;
    expect(
      await callAdmin(failing(throttledError(500, 100)), "query Q { shop { id } }", undefined, {
        ...opts,
        maxAttempts: 3,
      }),
    ).toMatchObject({ ok: false, retryable: true, message: expect.stringMatching(/^throttled/) });
    expect(sleeps).toEqual([4000, 4000]);
    expect(throttleWaitMs(cost(100_000, 0), 10_000)).toBe(10_000);
    expect(throttleWaitMs(undefined, 10_000)).toBe(1000);
  });

  it("retries a throttled call and returns the data once accepted", async () => {
    let calls = 0;
    const graphql: AdminGraphql = async () => {
      calls += 1;
      if (calls === 1) throw throttledError(10, 5);
      return new Response(
        JSON.stringify({ data: { shop: { id: "gid://shopify/Shop/1" } }, extensions: { cost: cost(1, 1999) } }),
      );
    };
    expect(await callAdmin(graphql, "query Q { shop { id } }", undefined, opts)).toMatchObject({
      ok: true,
      data: { shop: { id: "gid://shopify/Shop/1" } },
    });
  });

  it.each([
    [
      "ACCESS_DENIED GraphQL error",
      new GraphqlQueryError({
        message: "Access denied",
        response: {} as never,
        body: {
          errors: {
            graphQLErrors: [{ message: "Access denied for tagsAdd field.", extensions: { code: "ACCESS_DENIED" } }],
          },
        } as never,
      }),
      false,
      /^access denied/,
    ],
    [
      "other GraphQL error",
      new GraphqlQueryError({
        message: "x",
        response: {} as never,
        body: { errors: { graphQLErrors: [{ message: "Invalid id" }] } } as never,
      }),
      false,
      /^graphql errors: Invalid id/,
    ],
    [
      "HTTP 429 (HttpThrottlingError) after bounded retries",
      new HttpThrottlingError({
        message: "t",
        code: 429,
        statusText: "Too Many Requests",
        body: {},
        headers: {},
        retryAfter: 2,
      }),
      true,
      /^throttled/,
    ],
    [
      "HTTP 5xx (HttpInternalError)",
      new HttpInternalError({ message: "e", code: 500, statusText: "Internal Server Error", body: {}, headers: {} }),
      true,
      /^server: HTTP 500/,
    ],
    [
      "HttpMaxRetriesError (tries exhausted in the library)",
      new HttpMaxRetriesError("Attempted the maximum number of retries for HTTP request."),
      true,
      /^server:/,
    ],
    [
      "HTTP 401 (HttpResponseError)",
      new HttpResponseError({
        message: "u",
        code: 401,
        statusText: "Unauthorized",
        body: { errors: "[API] Invalid API key" },
        headers: {},
      }),
      true,
      /^access denied: HTTP 401/,
    ],
    [
      "HTTP 403",
      new HttpResponseError({ message: "f", code: 403, statusText: "Forbidden", body: {}, headers: {} }),
      false,
      /^access denied: HTTP 403/,
    ],
    [
      "HTTP 404 (shop gone)",
      new HttpResponseError({ message: "n", code: 404, statusText: "Not Found", body: {}, headers: {} }),
      false,
      /^not found/,
    ],
    [
      "network failure (HttpRequestError)",
      new HttpRequestError("Http request error, no response available: fetch failed"),
      true,
      /^network:/,
    ],
    ["Response thrown by handleClientError, 503", new Response("{}", { status: 503 }), true, /^server: HTTP 503/],
    [
      "Response thrown by handleClientError, 401",
      new Response("{}", { status: 401 }),
      true,
      /^access denied: HTTP 401/,
    ],
    ["plain TypeError", new TypeError("fetch failed"), true, /^network: fetch failed/],
  ])("%s", async (_label, error, retryable, message) => {
    sleeps.length = 0;
    const result = await callAdmin(failing(error), "query Q { shop { id } }", undefined, { ...opts, maxAttempts: 2 });
    expect(result).toMatchObject({ ok: false, retryable });
    if (!result.ok) expect(result.message).toMatch(message);
  });

  it("honours Retry-After on HTTP 429", async () => {
    sleeps.length = 0;
    await callAdmin(
      failing(
        new HttpThrottlingError({ message: "t", code: 429, statusText: "", body: {}, headers: {}, retryAfter: 2 }),
      ),
      "query Q { shop { id } }",
      undefined,
      { ...opts, maxAttempts: 2 },
    );
    expect(sleeps).toEqual([2000]);
  });
});
