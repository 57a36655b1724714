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

describe("log lines", () => {
  it("never contain an API key, not even one revoked through the URL or sent in a query", async () => {
    const key = service.createApiKey();
    await fetch(`${service.url}/api/v1/merchant/lookup-click?click_id=${key}`, { headers: { "x-api-key": key } });
    await fetch(`${service.url}/api/v1/${key}`);
    await fetch(`${service.url}/sandbox/api-keys/${key}`, { method: "DELETE" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.join("\n")).not.toContain(key);
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
