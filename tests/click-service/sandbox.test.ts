// Sandbox behaviour that needs its insides: the injectable clock at the lifetime boundary, the
// management API's validation, log hygiene, raw-socket abuse, and the standalone process.
import { spawn } from "node:child_process";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeClickServicePools, createClickServiceClient } from "../../app/click-service";
import { startClickService, type RunningClickService } from "../../sandbox/click-service/server";
import { LOCAL_SANDBOX } from "./harness";

let now = new Date("2026-03-01T12:00:00.000Z");
const logs: string[] = [];
let service: RunningClickService;
let apiKey: string;

beforeAll(async () => {
  service = await startClickService({ port: 0, clock: () => now, log: (line) => logs.push(line) });
  apiKey = service.createApiKey();
});

afterAll(async () => {
  await closeClickServicePools();
  await service.close();
});

const client = () =>
  createClickServiceClient({ baseUrl: service.url, apiKey, maxAttempts: 1, destination: LOCAL_SANDBOX });

async function post(path: string, body: unknown) {
  const response = await fetch(service.url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

describe("click lifetime with the injectable clock", () => {
  it("serves a click at 59 and at exactly 60 minutes, and 404s it at 61", async () => {
    const start = now;
    const click = service.addClick({ expectedTag: "alice-20", creatorId: "cr" });
    expect(click.timestamp).toBe(start.toISOString());
    const at = async (minutes: number) => {
      now = new Date(start.getTime() + minutes * 60_000);
      const lookup = await client().lookupClick(click.clickId);
      return lookup.ok ? "alive" : lookup.error.kind;
    };
    expect(await at(59)).toBe("alive");
    expect(await at(60)).toBe("alive");
    expect(await at(61)).toBe("expired");
    const verify = await client().verifyClick({ clickId: click.clickId, arrivedTag: "alice-20" });
    expect(verify.ok === false && verify.error.kind).toBe("expired");
    now = start;
  });

  it("takes its clock for default timestamps and record times", async () => {
    const created = await post("/sandbox/clicks", { expectedTag: "t", creatorId: "cr" });
    expect(created.status).toBe(201);
    expect(created.json.timestamp).toBe(now.toISOString());
    expect(created.json.clickId).toMatch(/^clk_/);
    await client().verifyClick({ clickId: created.json.clickId, arrivedTag: "t" });
    expect(service.verifications(created.json.clickId)[0]!.receivedAt).toBe(now.toISOString());
  });
});

describe("management API", () => {
  it("creates and revokes API keys", async () => {
    const created = await post("/sandbox/api-keys", "");
    expect(created.status).toBe(201);
    expect(created.json.apiKey).toMatch(/^sk_sandbox_/);
    const del = await fetch(`${service.url}/sandbox/api-keys/${created.json.apiKey}`, { method: "DELETE" });
    expect(del.status).toBe(204);
  });

  it("refuses a duplicate click id with 409", async () => {
    expect((await post("/sandbox/clicks", { clickId: "dup", expectedTag: "t", creatorId: "cr" })).status).toBe(201);
    expect(await post("/sandbox/clicks", { clickId: "dup", expectedTag: "t", creatorId: "cr" })).toEqual({
      status: 409,
      json: { error: "clickId already exists" },
    });
  });

  it.each([
    [{ creatorId: "cr" }, "expectedTag"],
    [{ expectedTag: "t" }, "creatorId"],
    [{ expectedTag: "t", creatorId: "cr", clickId: 7 }, "clickId"],
    [{ expectedTag: "t", creatorId: "cr", timestamp: "last tuesday" }, "timestamp"],
    [{ expectedTag: "t", creatorId: "cr", timestamp: "2026-01-01" }, "timestamp"],
    [{ expectedTag: "t", creatorId: "cr", referrer: 1 }, "referrer"],
    [{ expectedTag: "t", creatorId: "cr", geo: { planet: "Mars" } }, "geo"],
    [{ expectedTag: "t", creatorId: "cr", geo: ["DE"] }, "geo"],
  ])("rejects an invalid click (%#) naming the field", async (body, fieldName) => {
    const response = await post("/sandbox/clicks", body);
    expect(response.status).toBe(400);
    expect(response.json.error).toContain(fieldName);
  });

  it.each([
    [{ times: 1, status: 503 }, "path"],
    [{ path: "/x", times: 0, status: 503 }, "times"],
    [{ path: "/x", status: 99 }, "status"],
    [{ path: "/x", delay_ms: -1 }, "delay_ms"],
    [{ path: "/x", drop: "yes" }, "drop"],
    [{ path: "/x" }, "at least one"],
    [{ path: "/x", drop: true, after: "yes" }, "after must be a boolean"],
    [{ path: "/x", status: 503, after: true }, "not with status"],
    [{ path: "/x", after: true }, "at least one"],
  ])("rejects an invalid fault (%#)", async (body, text) => {
    const response = await post("/sandbox/faults", body);
    expect(response.status).toBe(400);
    expect(response.json.error).toContain(text);
  });

  it("lists verifications per click with what was sent", async () => {
    const click = service.addClick({ expectedTag: "a", creatorId: "cr" });
    await client().verifyClick({
      clickId: click.clickId,
      arrivedTag: "b",
      orderId: "o1",
      orderValue: "10.00",
      conversion: true,
    });
    const response = await fetch(`${service.url}/sandbox/verifications?click_id=${click.clickId}`);
    const { verifications } = await response.json();
    expect(verifications).toEqual([
      {
        clickId: click.clickId,
        arrivedTag: "b",
        conversion: true,
        orderId: "o1",
        orderValue: 10,
        rawBody: `{"click_id":"${click.clickId}","arrived_tag":"b","conversion":true,"order_id":"o1","order_value":10.00}`,
        isHijacked: true,
        receivedAt: now.toISOString(),
      },
    ]);
  });
});

const VERIFY = "/api/v1/merchant/verify-click";
const LOOKUP = "/api/v1/merchant/lookup-click";

async function addFault(fault: Record<string, unknown>) {
  expect((await post("/sandbox/faults", fault)).status).toBe(201);
}

async function requestsFor(clickId: string, path = VERIFY) {
  const response = await fetch(
    `${service.url}/sandbox/requests?path=${encodeURIComponent(path)}&click_id=${encodeURIComponent(clickId)}`,
  );
  return (await response.json()).requests as Array<{ clickId: string; status: number; fault: boolean }>;
}

describe("faults after the call was handled: recorded, but the answer was lost", () => {
  it("drop after: the verification is recorded although the client saw the connection reset", async () => {
    const click = service.addClick({ expectedTag: "alice-20", creatorId: "cr" });
    await addFault({ path: VERIFY, drop: true, after: true });
    const result = await client().verifyClick({ clickId: click.clickId, arrivedTag: "honey-77" });
    expect(result).toMatchObject({ ok: false, error: { kind: "retryable", reason: "connection" } });
    expect(service.verifications(click.clickId)).toMatchObject([{ arrivedTag: "honey-77", isHijacked: true }]);
    expect(service.state.clicks.get(click.clickId)!.status).toBe("verified");
    expect(await requestsFor(click.clickId)).toMatchObject([{ clickId: click.clickId, status: 0, fault: true }]);
  });

  it("delay after: the verification is recorded although the client gave up waiting", async () => {
    const click = service.addClick({ expectedTag: "alice-20", creatorId: "cr" });
    await addFault({ path: VERIFY, delay_ms: 60_000, after: true });
    const impatient = createClickServiceClient({
      baseUrl: service.url,
      apiKey,
      destination: LOCAL_SANDBOX,
      maxAttempts: 1,
      headersTimeoutMs: 300,
    });
    const result = await impatient.verifyClick({ clickId: click.clickId, arrivedTag: "alice-20" });
    expect(result).toMatchObject({ ok: false, error: { kind: "retryable", reason: "timeout" } });
    await expect.poll(() => service.verifications(click.clickId).length).toBe(1);
    expect(service.verifications(click.clickId)[0]).toMatchObject({ arrivedTag: "alice-20", isHijacked: false });
  });

  it("a drop before the call (the old behaviour) records nothing, yet still counts for its click", async () => {
    const click = service.addClick({ expectedTag: "alice-20", creatorId: "cr" });
    await addFault({ path: VERIFY, drop: true });
    const result = await client().verifyClick({ clickId: click.clickId, arrivedTag: "alice-20" });
    expect(result).toMatchObject({ ok: false, error: { kind: "retryable", reason: "connection" } });
    expect(service.verifications(click.clickId)).toEqual([]);
    expect(await requestsFor(click.clickId)).toMatchObject([{ clickId: click.clickId, status: 0, fault: true }]);
  });
});

describe("requests per click", () => {
  it("counts exactly the verify-click calls one click received, faulted ones included", async () => {
    const busy = service.addClick({ expectedTag: "alice-20", creatorId: "cr" });
    const quiet = service.addClick({ expectedTag: "bob-10", creatorId: "cr" });
    await addFault({ path: LOOKUP, status: 503, times: 2 });
    const patient = createClickServiceClient({
      baseUrl: service.url,
      apiKey,
      destination: LOCAL_SANDBOX,
      maxAttempts: 3,
      sleep: async () => {},
    });
    expect((await patient.lookupClick(busy.clickId)).ok).toBe(true);
    expect((await client().verifyClick({ clickId: quiet.clickId, arrivedTag: "bob-10" })).ok).toBe(true);
    expect((await client().verifyClick({ clickId: busy.clickId, arrivedTag: "alice-20" })).ok).toBe(true);

    expect((await requestsFor(busy.clickId, LOOKUP)).map((r) => [r.status, r.fault])).toEqual([
      [503, true],
      [503, true],
      [200, false],
    ]);
    expect(await requestsFor(quiet.clickId)).toHaveLength(1);
    expect(await requestsFor(busy.clickId)).toMatchObject([{ clickId: busy.clickId, status: 200 }]);
    expect(service.requests({ path: LOOKUP, clickId: busy.clickId })).toHaveLength(3);
    expect(service.requests({ clickId: busy.clickId })).toHaveLength(4);
  });
});

describe("ageing a click (management API)", () => {
  const age = (clickId: string, body: unknown) => post(`/sandbox/clicks/${encodeURIComponent(clickId)}/age`, body);

  it("moves the click's timestamp into the past, so a click can outlive its hour after landing", async () => {
    const click = service.addClick({ expectedTag: "alice-20", creatorId: "cr" });
    const aged = await age(click.clickId, { minutes: 59 });
    expect(aged).toMatchObject({ status: 200, json: { clickId: click.clickId, expectedTag: "alice-20" } });
    expect(aged.json.timestamp).toBe(new Date(now.getTime() - 59 * 60_000).toISOString());
    expect((await client().lookupClick(click.clickId)).ok).toBe(true);

    expect((await age(click.clickId, { minutes: 1.5 })).status).toBe(200);
    const lookup = await client().lookupClick(click.clickId);
    expect(lookup.ok === false && lookup.error.kind).toBe("expired");
  });

  it.each([
    [{}, 400],
    [{ minutes: "61" }, 400],
    [{ minutes: 0 }, 400],
    [{ minutes: -5 }, 400],
    [{ minutes: 1e9 }, 400],
  ])("refuses %j naming the field", async (body, status) => {
    const click = service.addClick({ expectedTag: "t", creatorId: "cr" });
    const response = await age(click.clickId, body);
    expect(response.status).toBe(status);
    expect(response.json.error).toContain("minutes");
    expect(service.state.clicks.get(click.clickId)!.timestamp).toBe(click.timestamp);
  });

  it("answers 404 for an unknown click and 405 for another method", async () => {
    expect(await age("clk_never_made", { minutes: 5 })).toEqual({ status: 404, json: { error: "click not found" } });
    const get = await fetch(`${service.url}/sandbox/clicks/anything/age`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });
});

describe("a creator's tracked link (management API)", () => {
  const follow = (creatorId: string, query: Record<string, string>) =>
    fetch(`${service.url}/sandbox/links/${encodeURIComponent(creatorId)}?${new URLSearchParams(query)}`, {
      redirect: "manual",
    });

  it("records a click for the creator and redirects to the shop with the click id and the tag added", async () => {
    const response = await follow("cr_alice", { tag: "alice-20", to: "http://127.0.0.1:9/products/x?utm_source=ig" });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe("http://127.0.0.1:9/products/x");
    expect(location.searchParams.get("utm_source")).toBe("ig");
    expect(location.searchParams.get("tag")).toBe("alice-20");
    const clickId = location.searchParams.get("lb_click")!;
    expect(service.state.clicks.get(clickId)).toMatchObject({
      creatorId: "cr_alice",
      expectedTag: "alice-20",
      timestamp: now.toISOString(),
    });
    expect(await client().lookupClick(clickId)).toMatchObject({ ok: true });
  });

  it("names the tag parameter the shop reads when asked", async () => {
    const response = await follow("cr_bob", { tag: "bob-10", to: "http://127.0.0.1:9/", param: "ref" });
    expect(new URL(response.headers.get("location")!).searchParams.get("ref")).toBe("bob-10");
  });

  it.each([
    [{ tag: "t" }, "to must be an absolute URL"],
    [{ tag: "t", to: "javascript:alert(1)" }, "to must be an http(s) URL"],
    [{ to: "http://127.0.0.1:9/" }, "tag is required"],
    [{ tag: "t", to: "http://127.0.0.1:9/", param: "a b" }, "param must be a parameter name"],
  ])("refuses %j, making no click", async (query, error) => {
    const clicks = service.state.clicks.size;
    const response = await follow("cr", query);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error });
    expect(service.state.clicks.size).toBe(clicks);
  });
});

describe("log lines", () => {
  it("never contain an API key, not even one revoked through the URL or sent in a query", async () => {
    const key = service.createApiKey();
    const before = logs.length;
    const statuses = [
      (await fetch(`${service.url}/api/v1/merchant/lookup-click?click_id=${key}`, { headers: { "x-api-key": key } }))
        .status,
      (await fetch(`${service.url}/api/v1/${key}`)).status,
      (await fetch(`${service.url}/sandbox/api-keys/${key}`, { method: "DELETE" })).status,
    ];
    expect(statuses).toEqual([404, 404, 204]);
    // A line is written when its connection's response closes, which can come just after the
    // client has the answer: wait for exactly these three, then read them.
    await expect.poll(() => logs.length - before).toBe(3);
    const lines = logs.slice(before);
    expect(lines.map((line) => line.replace(/ \d+ms$/, "")).sort()).toEqual([
      "DELETE /sandbox/api-keys/[redacted] 204",
      "GET /api/v1/[redacted] 404",
      "GET /api/v1/merchant/lookup-click 404",
    ]);
    for (const line of lines) {
      expect(line).not.toContain(key);
      expect(line).not.toContain(apiKey);
    }
    expect(logs.join("\n")).not.toContain(apiKey);
  });
});

describe("raw socket abuse", () => {
  async function rawExchange(text: string | Buffer, endAfterWrite = true): Promise<string> {
    const url = new URL(service.url);
    return new Promise((resolve) => {
      const socket = connect(Number(url.port), url.hostname);
      let received = "";
      socket.on("data", (chunk) => (received += chunk.toString("latin1")));
      socket.on("close", () => resolve(received));
      socket.on("error", () => resolve(received));
      socket.write(text);
      if (!endAfterWrite) setTimeout(() => socket.end(), 200);
    });
  }

  it("answers a huge declared body with 413 before it arrives", async () => {
    const response = await rawExchange(
      "POST /api/v1/merchant/verify-click HTTP/1.1\r\nHost: x\r\n" +
        `x-api-key: ${apiKey}\r\ncontent-type: application/json\r\ncontent-length: 10000000000\r\n\r\n{"click_id":`,
      false,
    );
    expect(response).toMatch(/^HTTP\/1\.1 413/);
  });

  it("answers a garbage request line with a JSON 400", async () => {
    const response = await rawExchange("\u0001\u0002 NOT HTTP\r\n\r\n");
    expect(response).toMatch(/^HTTP\/1\.1 400/);
    expect(response).toContain('{"error":');
  });

  it("survives invalid bytes in headers", async () => {
    const response = await rawExchange(
      Buffer.concat([
        Buffer.from("GET /api/v1/merchant/lookup-click?click_id=x HTTP/1.1\r\nHost: x\r\nx-api-key: "),
        Buffer.from([0xff, 0xfe, 0x80]),
        Buffer.from("\r\nconnection: close\r\n\r\n"),
      ]),
    );
    expect(response).toMatch(/^HTTP\/1\.1 (400|401)/);
    expect((await client().lookupClick("x")).ok === false).toBe(true);
  });
});

describe("npm run click-service", () => {
  it("prints its URL and a working key, and exits cleanly on SIGTERM", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "sandbox/click-service/main.ts"], {
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    await expect.poll(() => out, { timeout: 20_000, interval: 100 }).toMatch(/API key: \S+/);
    const url = /listening on (\S+)/.exec(out)![1]!;
    const key = /API key: (\S+)/.exec(out)![1]!;
    const ping = await fetch(`${url}/api/v1/merchant/lookup-click?click_id=nope`, { headers: { "x-api-key": key } });
    expect(ping.status).toBe(404);
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(out.split(key).length - 1).toBe(1);
  });
});
