// Conformance of client and sandbox to shared/spec/click-verification-service.md, over real
// HTTP. Set CLICK_SERVICE_URL to run it unchanged against a separately started sandbox.
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeClickServicePools, createClickServiceClient, type ClickServiceClient } from "../../app/click-service";
import { LOCAL_SANDBOX, startHarness, minutesAgo, uniqueClickId, type Harness } from "./harness";

const LOOKUP = "/api/v1/merchant/lookup-click";
const VERIFY = "/api/v1/merchant/verify-click";

let h: Harness;
let apiKey: string;
let client: ClickServiceClient;

const INVALID_KEY = {
  kind: "credentials",
  status: 401,
  contractError: "invalidApiKey",
  message: "the service answered HTTP 401: the API key is unknown or revoked",
};
const noWait = { sleep: async () => {}, maxAttempts: 1, destination: LOCAL_SANDBOX };

beforeAll(async () => {
  h = await startHarness();
  apiKey = await h.createApiKey();
  client = createClickServiceClient({ baseUrl: h.url, apiKey, ...noWait });
});

afterAll(async () => {
  await closeClickServicePools();
  await h.close();
});

async function newClick(extra: Record<string, unknown> = {}) {
  return h.createClick({ clickId: uniqueClickId(), expectedTag: "alice-20", creatorId: "creator_alice", ...extra });
}

function authed(extra: Record<string, string> = {}) {
  return { "x-api-key": apiKey, ...extra };
}

const jsonHeaders = () => authed({ "content-type": "application/json" });

describe("lookup-click (4.1)", () => {
  it("returns the full click record with the expected tag of a live click (rule 2)", async () => {
    const created = await newClick({
      referrer: "https://blog.example/post",
      geo: { country: "DE", city: "Berlin", region: "BE" },
    });
    const result = await client.lookupClick(created.clickId);
    expect(result).toEqual({
      ok: true,
      value: {
        clickId: created.clickId,
        expectedTag: "alice-20",
        creatorId: "creator_alice",
        timestamp: created.timestamp,
        status: "pending",
        referrer: "https://blog.example/post",
        geo: { country: "DE", city: "Berlin", region: "BE" },
      },
    });
  });

  it("answers 400 `click_id is required` when click_id is missing or empty (rule 1)", async () => {
    const missing = await h.raw("GET", LOOKUP, { headers: authed() });
    expect(missing.status).toBe(400);
    expect(missing.json).toEqual({ error: "click_id is required" });
    const viaClient = await client.lookupClick("");
    expect(viaClient).toEqual({
      ok: false,
      error: {
        kind: "bad-request",
        status: 400,
        contractError: "clickIdRequired",
        message: "the service answered HTTP 400: the request had no click id",
      },
    });
  });

  it("answers 404 `Click not found or expired` for an unknown click (rule 3)", async () => {
    const result = await client.lookupClick(uniqueClickId("unknown"));
    expect(result).toEqual({
      ok: false,
      error: {
        kind: "expired",
        status: 404,
        contractError: "clickNotFound",
        message: "the service answered HTTP 404: the click is unknown or past its one-hour life",
      },
    });
  });

  it("still finds a click 59 minutes old and no longer one 61 minutes old (section 8)", async () => {
    const young = await newClick({ timestamp: minutesAgo(59) });
    const old = await newClick({ timestamp: minutesAgo(61) });
    expect((await client.lookupClick(young.clickId)).ok).toBe(true);
    const gone = await client.lookupClick(old.clickId);
    expect(gone.ok === false && gone.error.kind).toBe("expired");
    const verifyGone = await client.verifyClick({ clickId: old.clickId, arrivedTag: "alice-20" });
    expect(verifyGone.ok === false && verifyGone.error).toMatchObject({
      kind: "expired",
      contractError: "clickNotFound",
    });
    expect((await client.verifyClick({ clickId: young.clickId, arrivedTag: "alice-20" })).ok).toBe(true);
  });

  it("reports status verified once the click has been verified", async () => {
    const click = await newClick();
    await client.verifyClick({ clickId: click.clickId, arrivedTag: "alice-20" });
    const result = await client.lookupClick(click.clickId);
    expect(result.ok && result.value.status).toBe("verified");
  });

  it("refuses a repeated click_id parameter instead of guessing which one counts", async () => {
    const click = await newClick();
    const response = await h.raw("GET", `${LOOKUP}?click_id=${click.clickId}&click_id=other`, { headers: authed() });
    expect(response.status).toBe(400);
    expect(response.json.error).toMatch(/click_id/);
  });

  it("finds clicks whose ids contain characters that need URL encoding", async () => {
    const odd = await newClick({ clickId: `${uniqueClickId()} &?#=/%+ü🙂` });
    const result = await client.lookupClick(odd.clickId);
    expect(result.ok && result.value.clickId).toBe(odd.clickId);
  });
});

describe("verify-click (4.2)", () => {
  it("says not hijacked when the tags match, with the click's expectedTag and creatorId (rules 1-4)", async () => {
    const click = await newClick();
    const result = await client.verifyClick({ clickId: click.clickId, arrivedTag: "alice-20" });
    expect(result).toEqual({
      ok: true,
      value: {
        clickId: click.clickId,
        expectedTag: "alice-20",
        arrivedTag: "alice-20",
        isHijacked: false,
        verdict: expect.any(String),
        creatorId: "creator_alice",
        recorded: true,
      },
    });
  });

  it("says hijacked when the tags differ and keeps the expected creator (rules 1, 2, 5)", async () => {
    const click = await newClick();
    const result = await client.verifyClick({ clickId: click.clickId, arrivedTag: "mallory-21" });
    expect(result.ok && result.value).toMatchObject({
      expectedTag: "alice-20",
      arrivedTag: "mallory-21",
      isHijacked: true,
      creatorId: "creator_alice",
      recorded: true,
    });
    expect(result.ok && result.value.verdict).toContain("mallory-21");
  });

  it.each([
    ["a different case", "ALICE-20"],
    ["a stripped tag (empty string)", ""],
    ["trailing whitespace", "alice-20 "],
    ["a decomposed Unicode form", "alice-20\u0301"],
  ])("compares exactly: %s is a hijack", async (_label, arrivedTag) => {
    const click = await newClick();
    const result = await client.verifyClick({ clickId: click.clickId, arrivedTag });
    expect(result.ok && result.value).toMatchObject({ isHijacked: true, arrivedTag });
  });

  it("matches Unicode tags exactly as sent, NFC and NFD being different tags", async () => {
    const nfc = "café-🙂-東京";
    const click = await newClick({ expectedTag: nfc });
    const same = await client.verifyClick({ clickId: click.clickId, arrivedTag: nfc });
    expect(same.ok && same.value).toMatchObject({ isHijacked: false, arrivedTag: nfc, expectedTag: nfc });
    const nfd = await client.verifyClick({ clickId: click.clickId, arrivedTag: nfc.normalize("NFD") });
    expect(nfd.ok && nfd.value.isHijacked).toBe(true);
  });

  it("records the order details exactly as sent, the order value with its digits intact (rule 6)", async () => {
    const click = await newClick();
    const result = await client.verifyClick({
      clickId: click.clickId,
      arrivedTag: "alice-20",
      conversion: true,
      orderId: "#1001",
      orderValue: "120.10",
    });
    expect(result.ok && result.value.recorded).toBe(true);
    const [stored] = await h.verifications(click.clickId);
    expect(stored).toMatchObject({
      clickId: click.clickId,
      arrivedTag: "alice-20",
      conversion: true,
      orderId: "#1001",
    });
    expect(stored!.rawBody).toContain('"order_value":120.10');
    expect(stored!.rawBody).not.toContain(apiKey);
  });

  it("answers 404 for an unknown click", async () => {
    const result = await client.verifyClick({ clickId: uniqueClickId("nope"), arrivedTag: "x" });
    expect(result).toEqual({
      ok: false,
      error: {
        kind: "expired",
        status: 404,
        contractError: "clickNotFound",
        message: "the service answered HTTP 404: the click is unknown or past its one-hour life",
      },
    });
  });

  it("answers 400 `click_id is required` when click_id is missing or empty", async () => {
    const viaClient = await client.verifyClick({ clickId: "", arrivedTag: "x" });
    expect(viaClient).toEqual({
      ok: false,
      error: {
        kind: "bad-request",
        status: 400,
        contractError: "clickIdRequired",
        message: "the service answered HTTP 400: the request had no click id",
      },
    });
    const raw = await h.raw("POST", VERIFY, { headers: jsonHeaders(), body: '{"arrived_tag":"x"}' });
    expect([raw.status, raw.json]).toEqual([400, { error: "click_id is required" }]);
  });

  it.each([
    ['{"click_id":"c"}', "arrived_tag is required"],
    ['{"click_id":5,"arrived_tag":"x"}', "click_id must be a string"],
    ['{"click_id":"c","arrived_tag":null}', "arrived_tag must be a string"],
    ['{"click_id":"c","arrived_tag":["x"]}', "arrived_tag must be a string"],
    ['{"click_id":"c","arrived_tag":"x","conversion":"yes"}', "conversion must be a boolean"],
    ['{"click_id":"c","arrived_tag":"x","order_id":1001}', "order_id must be a string"],
    ['{"click_id":"c","arrived_tag":"x","order_value":"120.10"}', "order_value must be a finite number"],
    ['{"click_id":"c","arrived_tag":"x","order_value":1e999}', "order_value must be a finite number"],
  ])("answers 400 naming the field for %s", async (body, message) => {
    const response = await h.raw("POST", VERIFY, { headers: jsonHeaders(), body });
    expect([response.status, response.json]).toEqual([400, { error: message }]);
  });

  it.each([
    ["malformed JSON", "{not json", 400],
    ["an empty body", "", 400],
    ["a JSON array", "[]", 400],
    ["JSON null", "null", 400],
  ])("answers 400 for %s", async (_label, body, status) => {
    const response = await h.raw("POST", VERIFY, { headers: jsonHeaders(), body });
    expect(response.status).toBe(status);
    expect(typeof response.json.error).toBe("string");
  });

  it("answers 415 for a body that is not declared as JSON", async () => {
    for (const type of [undefined, "text/plain", "application/x-www-form-urlencoded"]) {
      const headers = type ? authed({ "content-type": type }) : authed();
      const response = await h.raw("POST", VERIFY, { headers, body: '{"click_id":"c","arrived_tag":"x"}' });
      expect(response.status).toBe(415);
    }
    const withCharset = await h.raw("POST", VERIFY, {
      headers: authed({ "content-type": "Application/JSON; charset=utf-8" }),
      body: `{"click_id":"${uniqueClickId()}","arrived_tag":"x"}`,
    });
    expect(withCharset.status).toBe(404);
  });

  it("refuses a client-side order value that is not a plain decimal string, before sending", async () => {
    for (const orderValue of ["12,50", "1e5", "12.", ".5", " 1", "NaN", 12.5 as unknown as string]) {
      const result = await client.verifyClick({ clickId: "c", arrivedTag: "x", orderValue });
      expect(result.ok === false && result.error).toMatchObject({ kind: "invalid-input", field: "orderValue" });
    }
  });
});

describe("authentication (5)", () => {
  it("answers 401 `API key required` without the header, on both endpoints", async () => {
    const lookup = await h.raw("GET", `${LOOKUP}?click_id=x`);
    const verify = await h.raw("POST", VERIFY, { headers: { "content-type": "application/json" }, body: "{}" });
    for (const response of [lookup, verify])
      expect([response.status, response.json]).toEqual([401, { error: "API key required" }]);
  });

  it("checks the key before anything else: no key and no click_id is still a 401", async () => {
    const response = await h.raw("GET", LOOKUP);
    expect(response.status).toBe(401);
    const badBody = await h.raw("POST", VERIFY, { headers: { "x-api-key": "nope" }, body: "not json" });
    expect([badBody.status, badBody.json]).toEqual([401, { error: "Invalid API key" }]);
  });

  it("answers 401 `Invalid API key` for an unknown key, as a credentials failure", async () => {
    const stranger = createClickServiceClient({ baseUrl: h.url, apiKey: "sk_unknown_key", ...noWait });
    const click = await newClick();
    for (const result of [
      await stranger.lookupClick(click.clickId),
      await stranger.verifyClick({ clickId: click.clickId, arrivedTag: "alice-20" }),
    ]) {
      expect(result).toEqual({ ok: false, error: INVALID_KEY });
    }
  });

  it("answers 401 `Invalid API key` once a key is revoked", async () => {
    const key = await h.createApiKey();
    const merchant = createClickServiceClient({ baseUrl: h.url, apiKey: key, ...noWait });
    const click = await newClick();
    expect((await merchant.lookupClick(click.clickId)).ok).toBe(true);
    expect(await h.revokeApiKey(key)).toBe(204);
    const after = await merchant.lookupClick(click.clickId);
    expect(after).toEqual({ ok: false, error: INVALID_KEY });
    expect(await h.revokeApiKey(key)).toBe(404);
  });

  it("keeps the key out of results and out of the client object", async () => {
    const click = await newClick();
    const result = await client.lookupClick(click.clickId);
    expect(JSON.stringify(result)).not.toContain(apiKey);
    expect(JSON.stringify(client)).not.toContain(apiKey);
  });
});

describe("routing and hostile input", () => {
  it("answers unknown paths with a JSON 404 and wrong methods with a JSON 405 naming the allowed one", async () => {
    const unknown = await h.raw("GET", "/api/v2/merchant/lookup-click", { headers: authed() });
    expect([unknown.status, typeof unknown.json.error]).toEqual([404, "string"]);
    const wrong = await h.raw("DELETE", VERIFY, { headers: authed() });
    expect([wrong.status, wrong.headers.allow]).toEqual([405, "POST"]);
    const wrongLookup = await h.raw("POST", LOOKUP, { headers: jsonHeaders(), body: "{}" });
    expect([wrongLookup.status, wrongLookup.headers.allow]).toEqual([405, "GET"]);
  });

  it("answers 413 for a body over 64 KiB, declared or streamed", async () => {
    const huge = JSON.stringify({ click_id: "c", arrived_tag: "x".repeat(200_000) });
    const declared = await h.raw("POST", VERIFY, { headers: jsonHeaders(), body: huge });
    expect(declared.status).toBe(413);
    const chunked = await h.raw("POST", VERIFY, {
      headers: jsonHeaders(),
      // A stream has no Content-Length: the limit must hold while reading, not just up front.
      body: Readable.from(Array.from({ length: 20 }, () => Buffer.from(huge.slice(0, 10_000)))),
    });
    expect(chunked.status).toBe(413);
    // And the service is still there afterwards.
    const click = await newClick();
    expect((await client.lookupClick(click.clickId)).ok).toBe(true);
  });

  it("answers 400 for a body that is not valid UTF-8", async () => {
    const click = await newClick();
    const body = Buffer.concat([
      Buffer.from(`{"click_id":"${click.clickId}","arrived_tag":"`),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('"}'),
    ]);
    const response = await h.raw("POST", VERIFY, { headers: jsonHeaders(), body });
    expect([response.status, response.json]).toEqual([400, { error: "request body must be valid UTF-8" }]);
  });

  it("ignores a __proto__ member rather than letting it supply fields", async () => {
    const response = await h.raw("POST", VERIFY, {
      headers: jsonHeaders(),
      body: '{"__proto__":{"click_id":"c","arrived_tag":"x"}}',
    });
    expect([response.status, response.json]).toEqual([400, { error: "click_id is required" }]);
  });

  it("never answers 5xx to odd input", async () => {
    const targets = [
      `${LOOKUP}?click_id=%00%ff%fe`,
      `${LOOKUP}?click_id=%E0%A4%A`,
      `${LOOKUP}?click_id[]=a&click_id[]=b`,
      `${LOOKUP}?click_id=${"x".repeat(4000)}`,
      `${LOOKUP}?click_id=${encodeURIComponent("\u202e\ufeff\u0000🙂")}`,
      `/api/v1/merchant/../merchant/lookup-click?click_id=a`,
      `/sandbox/api-keys/%E0%A4%A`,
    ];
    for (const target of targets) {
      const response = await h.raw(target.startsWith("/sandbox") ? "DELETE" : "GET", target, { headers: authed() });
      expect(response.status, target).toBeLessThan(500);
      expect(typeof response.json?.error, target).toBe("string");
    }
    const bodies = [
      '{"click_id":{},"arrived_tag":{}}',
      "\u0000",
      '"just a string"',
      "9".repeat(10_000),
      `{"click_id":"${"\\ud800"}","arrived_tag":"x"}`,
    ];
    for (const body of bodies) {
      const response = await h.raw("POST", VERIFY, { headers: jsonHeaders(), body });
      expect(response.status, body.slice(0, 40)).toBeLessThan(500);
    }
  });
});
