// Retries and timeouts of the client against the sandbox's fault injection. Counts and kinds
// are asserted, never durations: sleep is injected and records what it was asked to wait.
import { freePort } from "../../sandbox/listen";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  closeClickServicePools,
  createClickServiceClient,
  type ClickServiceClientOptions,
} from "../../app/click-service";
import { LOCAL_SANDBOX, startHarness, uniqueClickId, type Harness } from "./harness";

const LOOKUP = "/api/v1/merchant/lookup-click";
const VERIFY = "/api/v1/merchant/verify-click";

let h: Harness;
let apiKey: string;
let sleeps: number[];

beforeAll(async () => {
  // Faults are global to a sandbox, so this file always gets its own in-process one.
  h = await startHarness({ inProcess: true });
  apiKey = await h.createApiKey();
});

afterAll(async () => {
  await closeClickServicePools();
  await h.close();
});

beforeEach(async () => {
  sleeps = [];
  await h.clearFaults();
});

function makeClient(options: Partial<ClickServiceClientOptions> = {}) {
  return createClickServiceClient({
    baseUrl: h.url,
    apiKey,
    destination: LOCAL_SANDBOX,
    maxAttempts: 3,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    ...options,
  });
}

async function click() {
  return h.createClick({ clickId: uniqueClickId(), expectedTag: "alice-20", creatorId: "creator_alice" });
}

/** Runs `action` and returns how many calls to `path` the sandbox saw meanwhile. */
async function counted<T>(path: string, action: () => Promise<T>): Promise<{ result: T; calls: number }> {
  const before = await h.callCount(path);
  const result = await action();
  return { result, calls: (await h.callCount(path)) - before };
}

describe("a verification report is sent at most once", () => {
  // The service may have recorded a report whose answer never came back: sending it again
  // could count the conversion twice. Only a report that never reached it goes again.
  for (const [what, fault] of [
    ["a 503", { status: 503 }],
    ["a 429", { status: 429, retry_after: "1" }],
    ["a dropped connection", { drop: true }],
    ["an answer lost after the report was recorded", { drop: true, after: true }],
  ] as const) {
    it(`is not sent again after ${what}`, async () => {
      const c = await click();
      await h.addFault({ path: VERIFY, times: 1, ...fault });
      const { result, calls } = await counted(VERIFY, () =>
        makeClient().verifyClick({ clickId: c.clickId, arrivedTag: "x" }),
      );
      expect(calls).toBe(1);
      expect(result.ok === false && result.error).toMatchObject({ kind: "retryable", sent: true, attempts: 1 });
      expect(sleeps).toEqual([]);
    });
  }

  it("is sent again when the connection was refused, since nothing reached the service", async () => {
    const port = await freePort();
    const client = makeClient({ baseUrl: `http://127.0.0.1:${port}` });
    const result = await client.verifyClick({ clickId: "clk_x", arrivedTag: "x" });
    expect(result.ok === false && result.error).toMatchObject({
      kind: "retryable",
      reason: "connection",
      sent: false,
      attempts: 3,
    });
    expect(sleeps).toHaveLength(2);
  });
});

describe("retryable failures", () => {
  it("retries a 503 and succeeds on the next attempt, after a jittered backoff", async () => {
    const c = await click();
    await h.addFault({ path: LOOKUP, times: 1, status: 503 });
    const { result, calls } = await counted(LOOKUP, () => makeClient().lookupClick(c.clickId));
    expect(result.ok).toBe(true);
    expect(calls).toBe(2);
    expect(sleeps).toEqual([100]); // random 0.5 * base 200 ms for the first retry
  });

  it("grows the backoff exponentially with full jitter and gives up after maxAttempts", async () => {
    const c = await click();
    await h.addFault({ path: LOOKUP, times: 10, status: 503, error: "upstream down" });
    const { result, calls } = await counted(LOOKUP, () => makeClient({ random: () => 0.999 }).lookupClick(c.clickId));
    expect(result).toEqual({
      ok: false,
      error: {
        kind: "retryable",
        reason: "server-error",
        status: 503,
        message: "the service answered HTTP 503: a server error",
        attempts: 3,
        sent: true,
      },
    });
    expect(calls).toBe(3);
    expect(sleeps).toEqual([199, 399]);
  });

  it("honours Retry-After in seconds on a 429", async () => {
    const c = await click();
    await h.addFault({ path: LOOKUP, times: 1, status: 429, retry_after: "2" });
    const { result, calls } = await counted(LOOKUP, () => makeClient().lookupClick(c.clickId));
    expect([result.ok, calls]).toEqual([true, 2]);
    expect(sleeps).toEqual([2000]);
  });

  it("honours Retry-After as an HTTP date", async () => {
    const c = await click();
    const now = Date.parse("2026-01-01T00:00:00Z");
    await h.addFault({ path: LOOKUP, times: 1, status: 503, retry_after: new Date(now + 7000).toUTCString() });
    const result = await makeClient({ now: () => now }).lookupClick(c.clickId);
    expect(result.ok).toBe(true);
    expect(sleeps).toEqual([7000]);
  });

  it("caps a long Retry-After", async () => {
    const c = await click();
    await h.addFault({ path: LOOKUP, times: 1, status: 429, retry_after: "86400" });
    const result = await makeClient({ maxRetryAfterMs: 1500 }).lookupClick(c.clickId);
    expect(result.ok).toBe(true);
    expect(sleeps).toEqual([1500]);
  });

  it("reports rate limiting as retryable once retries are exhausted", async () => {
    const c = await click();
    await h.addFault({ path: LOOKUP, times: 5, status: 429 });
    const { result, calls } = await counted(LOOKUP, () => makeClient({ maxAttempts: 2 }).lookupClick(c.clickId));
    expect(result.ok === false && result.error).toMatchObject({
      kind: "retryable",
      reason: "rate-limited",
      status: 429,
      attempts: 2,
    });
    expect(calls).toBe(2);
  });

  it("retries a dropped connection", async () => {
    const c = await click();
    await h.addFault({ path: LOOKUP, times: 1, drop: true });
    const { result, calls } = await counted(LOOKUP, () => makeClient().lookupClick(c.clickId));
    expect(result.ok).toBe(true);
    expect(calls).toBe(2);
  });

  it("reports dropped connections as a retryable connection failure when they persist", async () => {
    const c = await click();
    await h.addFault({ path: LOOKUP, times: 3, drop: true });
    const result = await makeClient().lookupClick(c.clickId);
    expect(result.ok === false && result.error).toMatchObject({ kind: "retryable", reason: "connection", attempts: 3 });
  });

  it("turns a response slower than the headers timeout into a retryable timeout", async () => {
    const c = await click();
    await h.addFault({ path: LOOKUP, times: 2, delay_ms: 5_000 });
    const { result, calls } = await counted(LOOKUP, () =>
      makeClient({ headersTimeoutMs: 100, maxAttempts: 2 }).lookupClick(c.clickId),
    );
    expect(result.ok === false && result.error).toMatchObject({ kind: "retryable", reason: "timeout", attempts: 2 });
    expect(calls).toBe(2);
  });

  it("recovers when only the first response is slow", async () => {
    const c = await click();
    await h.addFault({ path: LOOKUP, times: 1, delay_ms: 5_000 });
    const result = await makeClient({ headersTimeoutMs: 100 }).lookupClick(c.clickId);
    expect(result.ok).toBe(true);
  });

  it("retries a refused connection and reports it as retryable", async () => {
    const port = await freePort();
    const result = await makeClient({ baseUrl: `http://127.0.0.1:${port}` }).lookupClick("c");
    expect(result.ok === false && result.error).toMatchObject({ kind: "retryable", reason: "connection", attempts: 3 });
    expect(sleeps).toHaveLength(2);
  });
});

describe("deadline", () => {
  it("starts no retry that would land after the deadline", async () => {
    const c = await click();
    await h.addFault({ path: LOOKUP, times: 5, status: 503 });
    const now = Date.now();
    const { result, calls } = await counted(LOOKUP, () =>
      makeClient({ now: () => now, random: () => 0.99, baseDelayMs: 1000 }).lookupClick(c.clickId, {
        deadline: new Date(now + 500),
      }),
    );
    expect(result.ok === false && result.error).toMatchObject({ kind: "retryable", attempts: 1 });
    expect(calls).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it("still makes the first attempt when the deadline has passed, but no retry", async () => {
    const c = await click();
    await h.addFault({ path: LOOKUP, times: 5, status: 503 });
    const { calls } = await counted(LOOKUP, () =>
      makeClient().lookupClick(c.clickId, { deadline: new Date(Date.now() - 1) }),
    );
    expect(calls).toBe(1);
  });

  it("retries as usual while the deadline is far away", async () => {
    const c = await click();
    await h.addFault({ path: LOOKUP, times: 2, status: 503 });
    const { result, calls } = await counted(LOOKUP, () =>
      makeClient().lookupClick(c.clickId, { deadline: new Date(Date.now() + 3_600_000) }),
    );
    expect([result.ok, calls]).toEqual([true, 3]);
  });
});

describe("failures that are never retried", () => {
  it.each([
    ["an unknown key", "credentials", () => ({ apiKey: "sk_wrong" }), (id: string) => id],
    ["an unknown click", "expired", () => ({}), () => uniqueClickId("missing")],
    ["a missing click id", "bad-request", () => ({}), () => ""],
  ])("makes exactly one call for %s", async (_label, kind, options, clickIdFor) => {
    const c = await click();
    const client = makeClient(options());
    const lookup = await counted(LOOKUP, () => client.lookupClick(clickIdFor(c.clickId)));
    const verify = await counted(VERIFY, () => client.verifyClick({ clickId: clickIdFor(c.clickId), arrivedTag: "x" }));
    for (const { result, calls } of [lookup, verify]) {
      expect(result.ok === false && result.error.kind).toBe(kind);
      expect(calls).toBe(1);
    }
    expect(sleeps).toEqual([]);
  });

  it("treats other statuses as unexpected and does not retry them", async () => {
    const c = await click();
    await h.addFault({ path: LOOKUP, times: 1, status: 403, error: "Forbidden" });
    const { result, calls } = await counted(LOOKUP, () => makeClient().lookupClick(c.clickId));
    expect(result).toEqual({
      ok: false,
      error: {
        kind: "unexpected-status",
        status: 403,
        message: "the service answered HTTP 403: a status the contract does not define",
      },
    });
    expect(calls).toBe(1);
  });
});

describe("the API key never leaks", () => {
  it.each([401, 404, 400, 503, 418])("nor anything else of a %i error body that echoes it", async (status) => {
    const c = await click();
    const echoes = [apiKey, JSON.stringify(apiKey).slice(1, -1), encodeURIComponent(apiKey)];
    await h.addFault({ path: LOOKUP, times: 3, status, error: `bad key ${echoes.join(" / ")} (${apiKey})` });
    const result = await makeClient().lookupClick(c.clickId);
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toContain(apiKey);
    expect(JSON.stringify(result)).not.toContain("bad key");
    expect(result.ok === false && result.error.message).toMatch(new RegExp(`^the service answered HTTP ${status}: `));
  });

  it("is not quoted by the constructor when it is unusable", () => {
    const bad = "sk_with\nnewline";
    expect(() => createClickServiceClient({ baseUrl: h.url, apiKey: bad })).toThrow(TypeError);
    try {
      createClickServiceClient({ baseUrl: h.url, apiKey: bad });
    } catch (error) {
      expect(String(error)).not.toContain("sk_with");
    }
  });
});
