// The client against a plain HTTP server that answers whatever a test asks: statuses at the
// edges of each class, bodies at the size cap, a body that stops, repeated headers, an abort.
// Asserted are outcomes and exact messages, never durations.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { once } from "node:events";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  closeClickServicePools,
  createClickServiceClient,
  type ClickServiceClientOptions,
} from "../../app/click-service";
import { DestinationRefused } from "../../app/click-service/destination";
import { classifyError, DEFAULT_TIMEOUTS, poolFor } from "../../app/click-service/http";
import { registry } from "../../app/metrics/registry.server";
import { LOCAL_SANDBOX } from "./harness";
import { CLICK } from "../support/click-fixture";

let handle: (req: IncomingMessage, res: ServerResponse) => void;
let requests: Array<{ method?: string; url?: string; headers: IncomingMessage["headers"] }>;
let server: Server;
let baseUrl: string;
let sleeps: number[];
/** Every connection the server accepted, in order. */
const sockets: Socket[] = [];
const apiKey = "sk_test_wire_0123456789";

const click = CLICK;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push({ method: req.method, url: req.url, headers: req.headers });
    req.resume();
    req.on("end", () => handle(req, res));
  });
  server.on("connection", (socket: Socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await closeClickServicePools();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  requests = [];
  sleeps = [];
});

function answer(status: number, body: string, headers: Record<string, string | string[]> = {}) {
  handle = (_req, res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(body);
  };
}

function client(options: Partial<ClickServiceClientOptions> = {}) {
  return createClickServiceClient({
    baseUrl,
    apiKey,
    destination: LOCAL_SANDBOX,
    maxAttempts: 3,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    ...options,
  });
}

describe("statuses at the edges of each class", () => {
  it("reads 299 as a success and 300 as a redirect it does not follow", async () => {
    answer(299, JSON.stringify(click));
    expect(await client().lookupClick("c1")).toEqual({ ok: true, value: click });
    answer(300, JSON.stringify(click));
    expect(await client().lookupClick("c1")).toEqual({
      ok: false,
      error: {
        kind: "unexpected-status",
        status: 300,
        message: "the service answered HTTP 300: a redirect, which the app does not follow",
      },
    });
    expect(requests).toHaveLength(2);
  });

  it("retries 500 as a server error, but not 499", async () => {
    answer(500, "{}");
    expect(await client().lookupClick("c1")).toEqual({
      ok: false,
      error: {
        kind: "retryable",
        reason: "server-error",
        status: 500,
        message: "the service answered HTTP 500: a server error",
        attempts: 3,
        sent: true,
      },
    });
    expect(requests).toHaveLength(3);
    requests = [];
    answer(499, "{}");
    expect(await client().lookupClick("c1")).toEqual({
      ok: false,
      error: {
        kind: "unexpected-status",
        status: 499,
        message: "the service answered HTTP 499: a status the contract does not define",
      },
    });
    expect(requests).toHaveLength(1);
  });

  it("retries 408 as a timeout and 429 as rate limiting, each with its own words", async () => {
    answer(408, "{}");
    expect(await client({ maxAttempts: 2 }).lookupClick("c1")).toEqual({
      ok: false,
      error: {
        kind: "retryable",
        reason: "timeout",
        status: 408,
        message: "the service answered HTTP 408: the request timed out",
        attempts: 2,
        sent: true,
      },
    });
    answer(429, "{}");
    expect(await client({ maxAttempts: 2 }).lookupClick("c1")).toEqual({
      ok: false,
      error: {
        kind: "retryable",
        reason: "rate-limited",
        status: 429,
        message: "the service answered HTTP 429: too many requests",
        attempts: 2,
        sent: true,
      },
    });
  });

  it("recognises a contract error only under its own status", async () => {
    const cases = [
      [400, "Invalid API key", "bad-request", "it refused the request"],
      [401, "Click not found or expired", "credentials", "it refused the API key"],
    ] as const;
    for (const [status, error, kind, words] of cases) {
      answer(status, JSON.stringify({ error }));
      expect(await client().lookupClick("c1"), `${status} ${error}`).toEqual({
        ok: false,
        error: { kind, status, message: `the service answered HTTP ${status}: ${words}` },
      });
    }
    // A 404 in other words says nothing of the click: another server's (a mistyped base path),
    // tried again later by the caller, once here.
    for (const error of ["API key required", "click_id is required", "Not Found"]) {
      answer(404, JSON.stringify({ error }));
      expect(await client().lookupClick("c1"), `404 ${error}`).toEqual({
        ok: false,
        error: {
          kind: "retryable",
          reason: "not-found-off-contract",
          status: 404,
          message: "the service answered HTTP 404: not found, and not in the Click Verification Service's words",
          attempts: 1,
          sent: true,
        },
      });
    }
    answer(404, JSON.stringify({ error: "Click not found or expired" }));
    expect(await client().lookupClick("c1")).toMatchObject({
      ok: false,
      error: { kind: "expired", status: 404, contractError: "clickNotFound" },
    });
  });

  it("takes the first of two Retry-After headers", async () => {
    let calls = 0;
    handle = (_req, res) => {
      calls += 1;
      if (calls > 1) return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(click));
      res.writeHead(503, [
        ["content-type", "application/json"],
        ["retry-after", "3"],
        ["retry-after", "9"],
      ]);
      res.end("{}");
    };
    expect((await client().lookupClick("c1")).ok).toBe(true);
    expect(sleeps).toEqual([3_000]);
  });
});

describe("bodies", () => {
  // A valid record padded with spaces (still valid JSON) to an exact byte length.
  const padded = (bytes: number) => JSON.stringify(click).padEnd(bytes, " ");

  it("accepts a body of exactly maxResponseBytes and refuses one byte more", async () => {
    const limit = 4_096;
    answer(200, padded(limit));
    expect(await client({ maxResponseBytes: limit }).lookupClick("c1")).toEqual({ ok: true, value: click });
    answer(200, padded(limit + 1));
    expect(await client({ maxResponseBytes: limit }).lookupClick("c1")).toEqual({
      ok: false,
      error: { kind: "invalid-response", status: 200, field: "(body)", message: "(body): response too large" },
    });
  });

  it("counts the bytes of every chunk towards the cap", async () => {
    // Writes larger than one socket read (64 KiB) arrive as several chunks, each under the cap.
    const limit = 100_000;
    handle = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const body = padded(3 * 60_000);
      res.write(body.slice(0, 60_000));
      res.write(body.slice(60_000, 120_000));
      res.end(body.slice(120_000));
    };
    expect(await client({ maxResponseBytes: limit }).lookupClick("c1")).toEqual({
      ok: false,
      error: { kind: "invalid-response", status: 200, field: "(body)", message: "(body): response too large" },
    });
  });

  it("reads an answer over the cap only up to the cap, whatever it says past it", async () => {
    const limit = 100_000;
    const head = '{"error":"Click not found or expired","pad":"';
    // Whole, the contract's clickNotFound; its closing brace is the first byte past the cap.
    const body = `${head}${"x".repeat(limit - head.length - 1)}"}`.padEnd(180_000, " ");
    expect(JSON.parse(body)).toMatchObject({ error: "Click not found or expired" });
    handle = (_req, res) => {
      res.writeHead(404, { "content-type": "application/json" });
      res.write(body.slice(0, 60_000));
      res.write(body.slice(60_000, 120_000));
      res.end(body.slice(120_000));
    };
    // Cut at the cap it is no JSON, so not the contract's word: a 404 off the contract.
    expect(await client({ maxResponseBytes: limit }).lookupClick("c1")).toMatchObject({
      ok: false,
      error: { kind: "retryable", reason: "not-found-off-contract", status: 404 },
    });
  });

  it("says a success that is not JSON is not JSON", async () => {
    answer(200, "<html>welcome</html>");
    expect(await client().lookupClick("c1")).toEqual({
      ok: false,
      error: { kind: "invalid-response", status: 200, field: "(body)", message: "(body): not valid JSON" },
    });
  });

  it("gives up on a body that stops arriving, as a retryable timeout that reached the service", async () => {
    handle = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"clickId":'); // and nothing more until the test's server closes
    };
    expect(await client({ maxAttempts: 1, bodyTimeoutMs: 200 }).lookupClick("c1")).toEqual({
      ok: false,
      error: {
        kind: "retryable",
        reason: "timeout",
        message: "the service stopped sending its answer",
        attempts: 1,
        sent: true,
      },
    });
  });

  it("names the first off-contract field by its path, or the body when the whole is wrong", async () => {
    answer(200, JSON.stringify({ ...click, geo: { country: 7 } }));
    expect(await client().lookupClick("c1")).toMatchObject({
      ok: false,
      error: { kind: "invalid-response", status: 200, field: "geo.country" },
    });
    answer(200, "null");
    expect(await client().lookupClick("c1")).toMatchObject({
      ok: false,
      error: { kind: "invalid-response", status: 200, field: "(body)" },
    });
    answer(200, JSON.stringify({ ...click, timestamp: "not a time" }));
    expect(await client().lookupClick("c1")).toEqual({
      ok: false,
      error: {
        kind: "invalid-response",
        status: 200,
        field: "timestamp",
        message: "timestamp: must be an ISO 8601 timestamp",
      },
    });
  });
});

describe("requests", () => {
  it("asks for JSON, and declares a JSON body only when it sends one", async () => {
    answer(200, JSON.stringify(click));
    await client().lookupClick("c1");
    expect(requests[0]).toMatchObject({ method: "GET", url: "/api/v1/merchant/lookup-click?click_id=c1" });
    expect(requests[0]!.headers).toMatchObject({ accept: "application/json", "x-api-key": apiKey });
    expect(requests[0]!.headers).not.toHaveProperty("content-type");
  });

  it("refuses a click id that is not a string without calling", async () => {
    answer(200, JSON.stringify(click));
    expect(await client().lookupClick(7 as unknown as string)).toEqual({
      ok: false,
      error: { kind: "invalid-input", field: "clickId", message: "clickId must be a string" },
    });
    expect(requests).toHaveLength(0);
  });

  it("reports an aborted call as the client's, with the reason, and does not retry it", async () => {
    handle = () => {}; // never answers
    const controller = new AbortController();
    const pending = client().lookupClick("c1", { signal: controller.signal });
    await expect.poll(() => requests.length).toBe(1);
    controller.abort("lease lost");
    expect(await pending).toEqual({ ok: false, error: { kind: "client", message: "aborted: lease lost" } });
    expect(requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("reports a refused connection as unsent, so even a verification report may go again", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await client({ baseUrl: `http://127.0.0.1:${port}`, maxAttempts: 2 }).verifyClick({
      clickId: "c1",
      arrivedTag: "t",
      conversion: true,
      orderId: "#1",
      orderValue: "1.00",
    });
    expect(result).toEqual({
      ok: false,
      error: {
        kind: "retryable",
        reason: "connection",
        message: "the connection was refused",
        attempts: 2,
        sent: false,
      },
    });
    // No answer, so no status member at all (not one holding undefined).
    expect(result.ok === false && Object.keys(result.error)).not.toContain("status");
  });

  it("reports a connection that the server closes unanswered as sent, and does not resend a report", async () => {
    handle = (req) => req.socket.destroy();
    const result = await client().verifyClick({
      clickId: "c1",
      arrivedTag: "t",
      conversion: true,
      orderId: "#1",
      orderValue: "1.00",
    });
    expect(result).toEqual({
      ok: false,
      error: {
        kind: "retryable",
        reason: "connection",
        message: "the connection was closed before the service answered",
        attempts: 1,
        sent: true,
      },
    });
    expect(requests).toHaveLength(1);
  });
});

describe("a destination refused as its name resolves", () => {
  it("is final: not retried, no request made", async () => {
    const port = new URL(baseUrl).port;
    const result = await client({
      baseUrl: `http://clicks.example.com:${port}`,
      destination: {
        requireHttps: false,
        loopbackOrigins: new Set(),
        resolve: (_hostname, callback) => callback(null, [{ address: "127.0.0.1", family: 4 }]),
      },
    }).lookupClick("c1");
    expect(result.ok === false && result.error.kind).toBe("destination");
    expect(sleeps).toEqual([]);
    expect(requests).toEqual([]);
  });
});

describe("construction", () => {
  it("takes an https base URL with a path, without its trailing slashes", async () => {
    expect(() => createClickServiceClient({ baseUrl: "https://clicks.example.com/v/", apiKey })).not.toThrow();
    answer(200, JSON.stringify(click));
    await client({ baseUrl: `${baseUrl}/svc//` }).lookupClick("c1");
    expect(requests[0]!.url).toBe("/svc/api/v1/merchant/lookup-click?click_id=c1");
  });

  it("says exactly what is wrong with the base URL", () => {
    expect(() => createClickServiceClient({ baseUrl: "not a url", apiKey })).toThrow(
      "Click service baseUrl is not a valid URL",
    );
    expect(() => createClickServiceClient({ baseUrl: "ftp://clicks.example.com", apiKey })).toThrow(
      "Click service baseUrl must be http(s)",
    );
    expect(() => createClickServiceClient({ baseUrl: "https://u@clicks.example.com", apiKey })).toThrow(
      "Click service baseUrl must not carry credentials",
    );
    expect(() => createClickServiceClient({ baseUrl: "https://:p@clicks.example.com", apiKey })).toThrow(
      "Click service baseUrl must not carry credentials",
    );
  });

  it("takes an API key of visible ASCII only, from ! to ~", () => {
    const make = (key: string) => () =>
      createClickServiceClient({ baseUrl: "https://clicks.example.com", apiKey: key });
    expect(make("!~")).not.toThrow();
    for (const key of ["", " key", "key\u007f", "kéy", "a b"])
      expect(make(key), JSON.stringify(key)).toThrow(
        "Click service apiKey must be a non-empty string of visible ASCII characters",
      );
    expect(make(7 as unknown as string)).toThrow(TypeError);
  });

  it("keeps one pool per origin, connect timeout and destination policy", async () => {
    const pool = poolFor("http://127.0.0.1:1", 5_000, LOCAL_SANDBOX);
    expect(poolFor("http://127.0.0.1:1", 5_000, LOCAL_SANDBOX)).toBe(pool);
    expect(poolFor("http://127.0.0.1:1", 6_000, LOCAL_SANDBOX)).not.toBe(pool);
    expect(poolFor("http://127.0.0.1:2", 5_000, LOCAL_SANDBOX)).not.toBe(pool);
    await closeClickServicePools();
  });

  it("documents its default timeouts and size cap", () => {
    expect(DEFAULT_TIMEOUTS).toEqual({
      connectTimeoutMs: 5_000,
      headersTimeoutMs: 10_000,
      bodyTimeoutMs: 10_000,
      maxResponseBytes: 1_048_576,
    });
  });
});

describe("failed exchanges, in the app's words", () => {
  // The network errors a test cannot provoke on loopback (DNS, unreachable hosts, TLS) are
  // classified from their codes alone, as undici and the OS report them.
  const failed = (code: unknown) => classifyError(Object.assign(new Error("raw text with 10.0.0.7:443"), { code }));

  it("says whether the request can have reached the service", () => {
    expect(failed("UND_ERR_CONNECT_TIMEOUT")).toEqual({
      kind: "timeout",
      detail: "no connection to the service within the time allowed",
      sent: false,
    });
    expect(failed("UND_ERR_HEADERS_TIMEOUT")).toEqual({
      kind: "timeout",
      detail: "the service did not answer within the time allowed",
      sent: true,
    });
    expect(failed("UND_ERR_BODY_TIMEOUT")).toEqual({
      kind: "timeout",
      detail: "the service stopped sending its answer",
      sent: true,
    });
    const connection = (detail: string, sent: boolean) => ({ kind: "connection", detail, sent });
    expect(failed("ECONNREFUSED")).toEqual(connection("the connection was refused", false));
    for (const code of ["ECONNRESET", "UND_ERR_SOCKET", "EPIPE"])
      expect(failed(code), code).toEqual(connection("the connection was closed before the service answered", true));
    expect(failed("ENOTFOUND")).toEqual(connection("the service's host name does not resolve", false));
    expect(failed("EAI_AGAIN")).toEqual(connection("the service's host name could not be resolved just now", false));
    for (const code of ["EHOSTUNREACH", "ENETUNREACH"])
      expect(failed(code), code).toEqual(connection("the service's host cannot be reached", false));
    expect(failed("EADDRNOTAVAIL")).toEqual(connection("the connection to the service failed", false));
  });

  it("reads a certificate or TLS failure as such, whatever its exact code", () => {
    for (const code of ["DEPTH_ZERO_SELF_SIGNED_CERT", "ERR_TLS_CERT_ALTNAME_INVALID", "ERR_SSL_WRONG_VERSION_NUMBER"])
      expect(failed(code), code).toEqual({
        kind: "connection",
        detail: "the service's TLS certificate was not accepted",
        sent: true,
      });
  });

  it("reads a failure of the client object as the app's, not the network's", () => {
    for (const code of ["UND_ERR_INVALID_ARG", "UND_ERR_DESTROYED", "UND_ERR_CLOSED", "UND_ERR_NOT_SUPPORTED"])
      expect(failed(code), code).toEqual({ kind: "client", detail: "the app could not send the request" });
  });

  it("passes a refused destination's own message on, and reads anything without a code as a failed connection", () => {
    expect(classifyError(new DestinationRefused("the service URL must start with https://"))).toEqual({
      kind: "destination",
      detail: "the service URL must start with https://",
    });
    const unknown = { kind: "connection", detail: "the connection to the service failed", sent: true };
    expect(classifyError(new Error("boom"))).toEqual(unknown);
    expect(classifyError(null)).toEqual(unknown);
    expect(classifyError("ECONNREFUSED")).toEqual(unknown);
    expect(failed(undefined)).toEqual(unknown);
  });
});

describe("connections", () => {
  /** Whether the connection is closed within `ms` (the server keeps idle ones open for 5 s). */
  async function closedWithin(socket: Socket, ms: number): Promise<boolean> {
    if (socket.destroyed) return true;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    const result = await Promise.race([once(socket, "close").then(() => true), expired]);
    clearTimeout(timer);
    return result;
  }

  beforeEach(async () => {
    await closeClickServicePools();
    sockets.length = 0;
    answer(200, JSON.stringify(click));
  });

  it("keeps one connection for a client's calls until the pools are closed; later calls open a fresh one", async () => {
    const shared = client();
    expect(await shared.lookupClick("c1")).toEqual({ ok: true, value: click });
    // Once the first exchange is over, its connection is idle in the pool: the next call takes it.
    const pool = poolFor(baseUrl, DEFAULT_TIMEOUTS.connectTimeoutMs, LOCAL_SANDBOX);
    for (let waited = 0; pool.stats.free < 1 && waited < 2_000; waited += 5)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await client().lookupClick("c2")).toEqual({ ok: true, value: click });
    expect(sockets).toHaveLength(1);
    expect(await closedWithin(sockets[0]!, 50)).toBe(false);
    await closeClickServicePools();
    expect(await closedWithin(sockets[0]!, 2_000)).toBe(true);
    expect(await shared.lookupClick("c3")).toEqual({ ok: true, value: click });
    expect(sockets).toHaveLength(2);
  });

  it("closes a single-use client's connection once answered, and opens one per call", async () => {
    const once = client({ singleUse: true });
    expect(await once.lookupClick("c1")).toEqual({ ok: true, value: click });
    expect(await closedWithin(sockets[0]!, 2_000)).toBe(true);
    expect(await once.lookupClick("c2")).toEqual({ ok: true, value: click });
    expect(sockets).toHaveLength(2);
  });
});

describe("each exchange in the metrics", () => {
  /** The lookup_click requests counted by outcome, and the seconds timed, right now. */
  async function lookupMetrics() {
    const counted = await registry.getSingleMetric("tagguard_click_service_requests_total")!.get();
    const timed = await registry.getSingleMetric("tagguard_click_service_request_duration_seconds")!.get();
    const byOutcome = new Map(
      counted.values
        .filter((v) => v.labels.operation === "lookup_click")
        .map((v) => [String(v.labels.outcome), v.value]),
    );
    const seconds = timed.values.find(
      (v) => (v as { metricName?: string }).metricName?.endsWith("_sum") && v.labels.operation === "lookup_click",
    );
    return { byOutcome, seconds: seconds?.value ?? 0 };
  }
  /** The outcomes one call added to the count, each with how many requests. */
  async function countedBy(call: () => Promise<unknown>): Promise<Record<string, number>> {
    const before = (await lookupMetrics()).byOutcome;
    await call();
    const after = (await lookupMetrics()).byOutcome;
    return Object.fromEntries(
      [...after]
        .filter(([outcome, n]) => n !== (before.get(outcome) ?? 0))
        .map(([outcome, n]) => [outcome, n - (before.get(outcome) ?? 0)]),
    );
  }

  it("counts an answer by its class, naming 401, 404 and 429 on their own", async () => {
    const classes: [number, string][] = [
      [200, "ok"],
      [299, "ok"],
      [300, "other"],
      [399, "other"],
      [400, "4xx"],
      [401, "401"],
      [403, "4xx"],
      [404, "404"],
      [408, "4xx"],
      [429, "429"],
      [499, "4xx"],
      [500, "5xx"],
      [503, "5xx"],
    ];
    for (const [status, outcome] of classes) {
      answer(status, JSON.stringify(click));
      expect({ status, counted: await countedBy(() => client({ maxAttempts: 1 }).lookupClick("c1")) }).toEqual({
        status,
        counted: { [outcome]: 1 },
      });
    }
  });

  it("takes the final answer, never an informational 1xx sent before it", async () => {
    handle = (_req, res) => {
      res.writeEarlyHints({ link: "</style.css>; rel=preload; as=style" });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(click));
    };
    const counted = await countedBy(async () => {
      expect(await client({ maxAttempts: 1 }).lookupClick("c1")).toEqual({ ok: true, value: click });
    });
    expect(counted).toEqual({ ok: 1 });
  });

  it("counts what kept an exchange from an answer: a timeout, a failed connection, an abort, a refused destination", async () => {
    handle = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"clickId":');
    };
    expect(await countedBy(() => client({ maxAttempts: 1, bodyTimeoutMs: 200 }).lookupClick("c1"))).toEqual({
      timeout: 1,
    });
    handle = (req) => req.socket.destroy();
    expect(await countedBy(() => client({ maxAttempts: 1 }).lookupClick("c1"))).toEqual({ connection: 1 });
    handle = () => {}; // never answers
    const controller = new AbortController();
    const sent = requests.length;
    expect(
      await countedBy(async () => {
        const pending = client().lookupClick("c1", { signal: controller.signal });
        await expect.poll(() => requests.length).toBe(sent + 1);
        controller.abort("lease lost");
        await pending;
      }),
    ).toEqual({ aborted: 1 });
    const port = new URL(baseUrl).port;
    const refusing = client({
      baseUrl: `http://clicks.example.com:${port}`,
      destination: {
        requireHttps: false,
        loopbackOrigins: new Set(),
        resolve: (_hostname, callback) => callback(null, [{ address: "127.0.0.1", family: 4 }]),
      },
    });
    expect(await countedBy(() => refusing.lookupClick("c1"))).toEqual({ refused: 1 });
  });

  it("times each exchange in seconds, within the span the caller saw it take", async () => {
    answer(200, JSON.stringify(click));
    const before = await lookupMetrics();
    const started = performance.now();
    await client().lookupClick("c1");
    const took = (performance.now() - started) / 1000;
    const timed = (await lookupMetrics()).seconds - before.seconds;
    // A bound, not a duration: the exchange happened inside the call, so its time cannot exceed the call's.
    expect(timed).toBeGreaterThan(0);
    expect(timed).toBeLessThanOrEqual(took);
  });
});
