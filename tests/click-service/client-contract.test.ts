// The client's side of the contract that a conformant sandbox cannot exercise: off-contract
// responses, error bodies of any shape, exact money serialisation, transport plumbing.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { closeClickServicePools, createClickServiceClient, redactSecrets } from "../../app/click-service";
import { poolFor } from "../../app/click-service/http";
import { buildVerifyBody } from "../../app/click-service/request-body";
import { LOCAL_SANDBOX } from "./harness";
import { DEFAULT_RETRY, parseRetryAfter, retryDelay } from "../../app/click-service/retry";
import { CLICK } from "../support/click-fixture";

type Reply = { status: number; body: string; type?: string };
let reply: Reply;
let seen: Array<{ method?: string; url?: string; headers: IncomingMessage["headers"]; body: string }>;
let server: Server;
let baseUrl: string;
const apiKey = "sk_live_0123456789abcdef";

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      res.writeHead(reply.status, { "content-type": reply.type ?? "application/json" });
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await closeClickServicePools();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen = [];
});

const client = () => createClickServiceClient({ baseUrl, apiKey, maxAttempts: 1, destination: LOCAL_SANDBOX });
const click = CLICK;

describe("requests", () => {
  it("sends the key only in X-API-Key and the click id as the click_id query parameter", async () => {
    reply = { status: 200, body: JSON.stringify(click) };
    await client().lookupClick("a b&c");
    const [request] = seen;
    expect(request!.method).toBe("GET");
    expect(request!.url).toBe("/api/v1/merchant/lookup-click?click_id=a+b%26c");
    expect(request!.headers["x-api-key"]).toBe(apiKey);
  });

  it("posts snake_case JSON with the order value as a literal JSON number", async () => {
    reply = { status: 200, body: "{}" };
    await client().verifyClick({
      clickId: "c1",
      arrivedTag: "t",
      conversion: false,
      orderId: "#1",
      orderValue: "120.10",
    });
    const [request] = seen;
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.body).toBe(
      '{"click_id":"c1","arrived_tag":"t","conversion":false,"order_id":"#1","order_value":120.10}',
    );
  });

  it("keeps a path prefix of the base URL", async () => {
    reply = { status: 200, body: JSON.stringify(click) };
    await createClickServiceClient({
      baseUrl: `${baseUrl}/svc/`,
      apiKey,
      maxAttempts: 1,
      destination: LOCAL_SANDBOX,
    }).lookupClick("c1");
    expect(seen[0]!.url).toBe("/svc/api/v1/merchant/lookup-click?click_id=c1");
  });
});

describe("order value serialisation", () => {
  it.each([
    ["120.10", "120.10"],
    ["0.00", "0.00"],
    ["-5.5", "-5.5"],
    ["99999999999999999999.99", "99999999999999999999.99"],
    ["007.50", "7.50"],
    ["-00", "-0"],
  ])("writes %s as the JSON number %s", (input, literal) => {
    const body = buildVerifyBody({ clickId: "c", arrivedTag: "t", orderValue: input });
    expect(body).toEqual({ ok: true, text: `{"click_id":"c","arrived_tag":"t","order_value":${literal}}` });
    expect(() => JSON.parse((body as { text: string }).text)).not.toThrow();
  });

  it("leaves out the optional members that were not given", () => {
    expect(buildVerifyBody({ clickId: "c", arrivedTag: "" })).toEqual({
      ok: true,
      text: '{"click_id":"c","arrived_tag":""}',
    });
  });
});

describe("responses", () => {
  it("accepts a record with optional members absent or null and geo partially filled", async () => {
    reply = { status: 200, body: JSON.stringify({ ...click, referrer: null, geo: { country: "DE" }, extra: 1 }) };
    const result = await client().lookupClick("c1");
    expect(result).toEqual({ ok: true, value: { ...click, referrer: null, geo: { country: "DE" } } });
  });

  it.each([
    [{ ...click, expectedTag: undefined }, "expectedTag"],
    [{ ...click, status: "done" }, "status"],
    [{ ...click, timestamp: "yesterday" }, "timestamp"],
    [{ ...click, geo: { country: 49 } }, "geo.country"],
    [{ ...click, referrer: 5 }, "referrer"],
    [[click], "(body)"],
  ])("names the off-contract field of a lookup response (%#)", async (body, field) => {
    reply = { status: 200, body: JSON.stringify(body) };
    const result = await client().lookupClick("c1");
    expect(result.ok === false && result.error).toMatchObject({ kind: "invalid-response", status: 200, field });
  });

  it("names the off-contract field of a verification response", async () => {
    const ok = {
      clickId: "c",
      expectedTag: "a",
      arrivedTag: "b",
      isHijacked: "yes",
      verdict: "",
      creatorId: "x",
      recorded: true,
    };
    reply = { status: 200, body: JSON.stringify(ok) };
    const result = await client().verifyClick({ clickId: "c", arrivedTag: "b" });
    expect(result.ok === false && result.error).toMatchObject({ kind: "invalid-response", field: "isHijacked" });
  });

  it("reports a success that is not JSON as off-contract", async () => {
    reply = { status: 200, body: "<html>hi</html>", type: "text/html" };
    const result = await client().lookupClick("c1");
    expect(result.ok === false && result.error).toMatchObject({ kind: "invalid-response", field: "(body)" });
  });

  it.each([
    [400, '{"error":"click_id is required"}', "bad-request", "clickIdRequired", "the request had no click id"],
    [401, '{"message":"API key required"}', "credentials", "apiKeyRequired", "the request had no API key"],
    [401, "Invalid API key", "credentials", "invalidApiKey", "the API key is unknown or revoked"],
    [
      404,
      '{"error":"click not found or expired"}',
      "expired",
      "clickNotFound",
      "the click is unknown or past its one-hour life",
    ],
  ] as const)(
    "recognises the contract's %i answer %s and describes it in the app's words",
    async (status, body, kind, contractError, words) => {
      reply = { status, body };
      const result = await client().lookupClick("c1");
      expect(result).toEqual({
        ok: false,
        error: { kind, status, contractError, message: `the service answered HTTP ${status}: ${words}` },
      });
    },
  );

  // Whatever answers at the URL the merchant typed, its words never reach the settings page or
  // the order log: they could be an internal page, a stack trace, or a port scanner's signal.
  it.each([
    [400, '{"error":"<b>internal</b> at /srv/app.js:12"}', "it refused the request"],
    [401, '{"error":"click_id is required"}', "it refused the API key"],
    [403, '{"message":"internal admin console"}', "a status the contract does not define"],
    [404, "<html>internal wiki</html>", "not found, and not in the Click Verification Service's words"],
    [302, "internal redirect", "a redirect, which the app does not follow"],
    [500, "Traceback: internal password=hunter2", "a server error"],
  ])("shows only the status of an unexpected %i answer and the app's own words", async (status, body, words) => {
    reply = { status, body, type: "text/plain" };
    const result = await client().lookupClick("c1");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toBe(`the service answered HTTP ${status}: ${words}`);
    expect(JSON.stringify(result)).not.toMatch(/internal/);
    expect(result.error).not.toHaveProperty("contractError");
  });

  it("keeps a long error body, and the key echoed in it, out of the result", async () => {
    reply = { status: 401, body: `${"x".repeat(490)}${apiKey}${"y".repeat(5000)}`, type: "text/plain" };
    const result = await client().lookupClick("c1");
    expect(JSON.stringify(result)).not.toMatch(/xxx|yyy/);
    expect(JSON.stringify(result)).not.toContain(apiKey.slice(0, 12));
  });
});

describe("plumbing", () => {
  it("shares one pool per origin across clients and replaces it after closing", async () => {
    const a = poolFor("http://127.0.0.1:1", 5000, LOCAL_SANDBOX);
    expect(poolFor("http://127.0.0.1:1", 5000, LOCAL_SANDBOX)).toBe(a);
    expect(poolFor("http://127.0.0.1:1", 5000, { ...LOCAL_SANDBOX })).not.toBe(a);
    await closeClickServicePools();
    expect(poolFor("http://127.0.0.1:1", 5000, LOCAL_SANDBOX)).not.toBe(a);
    await closeClickServicePools();
  });

  it("still works after the pools were closed", async () => {
    reply = { status: 200, body: JSON.stringify(click) };
    const c = client();
    await closeClickServicePools();
    expect((await c.lookupClick("c1")).ok).toBe(true);
  });

  it("rejects an unusable base URL at construction", () => {
    expect(() => createClickServiceClient({ baseUrl: "not a url", apiKey })).toThrow(TypeError);
    expect(() => createClickServiceClient({ baseUrl: "ftp://x", apiKey })).toThrow(TypeError);
    expect(() => createClickServiceClient({ baseUrl: "http://u:p@x", apiKey })).toThrow(TypeError);
  });

  it("redacts raw, JSON-escaped and URL-encoded spellings of a secret", () => {
    const secret = 'k"ey/+ü';
    const text = `${secret} ${JSON.stringify(secret)} ${encodeURIComponent(secret)}`;
    const out = redactSecrets(text, [secret]);
    expect(out).not.toContain(secret);
    expect(out).not.toContain(encodeURIComponent(secret));
    expect(out).not.toContain('k\\"ey');
  });

  it("parses Retry-After as seconds or HTTP date and ignores junk", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:05 GMT", now)).toBe(5000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 00:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-1", now)).toBeUndefined();
  });

  it("keeps the jittered delay within [0, min(maxDelay, base * 2^(n-1)))", () => {
    const options = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
    for (const random of [0, 0.5, 0.999999]) {
      for (let n = 1; n <= 8; n++) {
        const delay = retryDelay(n, undefined, { ...options, random: () => random });
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThan(Math.min(1000, 100 * 2 ** (n - 1)));
      }
    }
  });
});
