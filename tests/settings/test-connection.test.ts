// Test connection on its own, over real sockets: it must leave nothing behind (the URL is not
// trusted yet), and in production it reaches neither plain http nor this machine.
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { listen } from "../../sandbox/listen";

const original = { ...process.env };
const apiKey = "sk_probe_key_1234";
let server: Server;
let url: string;
let seen: IncomingHttpHeaders[];
let sockets: Socket[];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "Click not found or expired" }));
  });
  // No idle timeout on this side: whichever end closes the connection, it is the app's.
  server.keepAliveTimeout = 0;
  server.on("connection", (socket: Socket) => sockets.push(socket));
  ({ url } = await listen(server));
});

afterEach(() => {
  process.env = { ...original };
  vi.resetModules();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function loadWith(env: Record<string, string | undefined>) {
  seen = [];
  sockets = [];
  Object.assign(process.env, env);
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete process.env[name];
  vi.resetModules();
  return {
    ...(await import("../../app/settings/test-connection.server")),
    ...(await import("../../app/settings/shop-settings.server")),
  };
}

async function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  if (socket.destroyed) return true;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const closed = once(socket, "close").then(() => true);
  const result = await Promise.race([closed, expired]);
  clearTimeout(timer);
  return result;
}

describe("test connection", () => {
  it("closes its connection once answered instead of keeping it in a pool", async () => {
    const { testConnection } = await loadWith({});
    expect(await testConnection("probe.myshopify.com", { clickServiceUrl: url, apiKey })).toEqual({
      status: "connected",
    });
    expect(seen).toHaveLength(1);
    expect(sockets).toHaveLength(1);
    // A pooled connection would idle here for 30 s; the app's own close arrives at once.
    expect(await closedWithin(sockets[0]!, 5_000)).toBe(true);
  });
});

describe("in production", () => {
  const production = { NODE_ENV: "production", CLICK_SERVICE_ALLOW_ORIGINS: undefined };

  it("reaches neither plain http nor a loopback address, for Test or for Save", async () => {
    const { testConnection, saveSettings } = await loadWith(production);
    const shop = "production.myshopify.com";
    for (const [clickServiceUrl, refusal] of [
      [url, /must start with https/],
      [url.replace("http:", "https:"), /local or private network address/],
      ["https://localhost", /local or private network address/],
    ] as const) {
      expect(await testConnection(shop, { clickServiceUrl, apiKey }), clickServiceUrl).toEqual({
        status: "unreachable",
        message: expect.stringMatching(refusal),
      });
      const saved = await saveSettings(shop, { clickServiceUrl, apiKey });
      expect(saved, clickServiceUrl).toMatchObject({
        ok: false,
        errors: { clickServiceUrl: expect.stringMatching(refusal) },
      });
    }
    expect(seen).toEqual([]);
  });
});
