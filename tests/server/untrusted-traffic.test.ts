import { existsSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type AppProcess } from "../../sandbox/demo/app-process";
import { freePort } from "../../sandbox/listen";
import { parseMetrics, total } from "../../sandbox/prometheus";
import { webhookHeaders } from "../../sandbox/shopify";
import { signedProxyQuery } from "../../sandbox/storefront/app-proxy";
import { API_VERSION, deliver } from "../support/deliver";
import { orderPayload } from "../support/fixtures";

// What an outsider can send the production server (server.mjs and the build) without a secret,
// probed as the attack on the running demo probed it: bodies that never arrive, bodies too
// large, and URLs whose query carries tokens. Each is answered with a status, intake for signed
// deliveries stays open, and no token reaches the log.

const ROOT = path.resolve(import.meta.dirname, "../..");
const SECRET = "untrusted-api-secret";
const KB = 1024;
const MB = 1024 * KB;
const BODY_DEADLINE_MS = 10_000;

let app: AppProcess;
let metricsPort: number;

beforeAll(async () => {
  metricsPort = await freePort();
  if (!existsSync(path.join(ROOT, "build/server/index.js")))
    throw new Error("no app build: run `npx remix vite:build` (global setup does)");
  app = await startApp(
    {
      NODE_ENV: "test",
      DATABASE_URL: process.env.DATABASE_URL!,
      SHOPIFY_API_KEY: "untrusted-api-key",
      SHOPIFY_API_SECRET: SECRET,
      WORKER_ENABLED: "false",
      LOG_LEVEL: "info",
      NODE_OPTIONS: "",
      METRICS_PORT: String(metricsPort),
      // Longer than Shopify's 5 s, so that on a machine busy with other work the signed deliveries
      // beside a stalled body are answered while it is still held, not after its deadline.
      WEBHOOK_BODY_DEADLINE_MS: String(BODY_DEADLINE_MS),
    },
    () => {},
  );
});
afterAll(() => app?.stop());

/** Webhook body bytes the server holds now, unsigned, as its metrics port reports them. */
async function bodyBytesHeld(): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return total(parseMetrics(text), "tagguard_webhook_body_bytes_held");
}

interface Answer {
  status: number;
  connection?: string;
}

/**
 * Raw bytes on a socket of their own, from the local address `from` (another loopback address is
 * another peer to the server): the status line and Connection header of the answer, once it comes.
 */
function rawRequest(head: string, body: string | Buffer = "", from?: string) {
  const { hostname, port } = new URL(app.url);
  let answer: Answer | undefined;
  const socket = connect({ port: Number(port), host: hostname, ...(from && { localAddress: from }) });
  const answered = new Promise<Answer>((resolve, reject) => {
    let text = "";
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end === -1 || answer) return;
      const lines = text.slice(0, end).split("\r\n");
      const connection = lines.find((line) => /^connection:/i.test(line))?.replace(/^connection:\s*/i, "");
      answer = { status: Number(lines[0]!.split(" ")[1]), connection: connection?.toLowerCase() };
      resolve(answer);
    });
    socket.on("error", reject);
    socket.on("close", () => reject(new Error("closed without an answer")));
  });
  // A socket the test gives up on (destroy) rejects an answer no one waits for any more.
  answered.catch(() => {});
  // Once a body is refused, the server ends the connection and what is still being written fails.
  const written = new Promise<void>((resolve) =>
    socket.write(Buffer.concat([Buffer.from(head), Buffer.from(body)]), () => resolve()),
  );
  return { answered, written, isAnswered: () => answer !== undefined, destroy: () => socket.destroy() };
}

/** A POST's head as Shopify sends a webhook, declaring `length` bytes of body. */
function webhookHead(route: string, topic: string, length: number): string {
  const headers = webhookHeaders({
    topic,
    shop: "idle.myshopify.com",
    apiVersion: API_VERSION,
    body: "{}",
    secret: SECRET,
  });
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return [`POST ${route} HTTP/1.1`, "Host: app.test", `Content-Length: ${length}`, ...lines, "", ""].join("\r\n");
}

/**
 * POSTs `size` bytes through Node's client, declared or chunked: the answer's status and Connection
 * header. `pauseMs`: a pause after each 64 KB, for a client sending slowly.
 */
function postBody(
  target: string,
  headers: Record<string, string>,
  size: number,
  declared: boolean,
  pauseMs = 0,
): Promise<Answer> {
  const url = new URL(target);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: "POST",
        headers: { ...headers, ...(declared && { "content-length": String(size) }) },
      },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
      },
    );
    // Once answered, what the client still writes may fail as the server closes: only an error
    // before any answer (a dropped connection) is the test's.
    req.on("error", reject);
    const chunk = Buffer.alloc(64 * KB, "a");
    let sent = 0;
    const pump = (): void => {
      while (sent < size) {
        const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once("drain", pump);
        if (pauseMs > 0 && sent < size) return void setTimeout(pump, pauseMs);
      }
      req.end();
    };
    pump();
  });
}

describe("webhook bodies that never arrive", () => {
  it(
    "seven idle sockets declaring 32 MB leave a signed orders/create answered 200, and are answered 408",
    async () => {
      const declared = [...Array<number>(6).fill(5 * MB), 2 * MB];
      const idle = declared.map((length) =>
        rawRequest(webhookHead("/webhooks/orders/create", "orders/create", length)),
      );
      // A compliance topic's Remix route, and a request whose headers never end (slowloris).
      const idleRemix = rawRequest(webhookHead("/webhooks/customers/redact", "customers/redact", MB));
      const endless = rawRequest("POST /proxy/touch HTTP/1.1\r\nHost: app.test\r\nX-Trickle: a");
      const all = [...idle, idleRemix, endless];
      try {
        await Promise.all(all.map((each) => each.written));
        // Let the server take in every head before the order comes.
        await new Promise((resolve) => setTimeout(resolve, 500));

        const order = await deliver(app.url, "/webhooks/orders/create", {
          topic: "orders/create",
          shop: "beside-idle.myshopify.com",
          body: orderPayload(),
          secret: SECRET,
        });
        expect(order.status).toBe(200);
        expect(idle.map((each) => each.isAnswered())).toEqual(declared.map(() => false));

        // The lanes' and routes' deadline (BODY_DEADLINE_MS) cuts the idle bodies; Node's
        // headersTimeout (10 s) the headers that never end.
        for (const each of all) expect(await each.answered).toMatchObject({ status: 408, connection: "close" });
      } finally {
        for (const each of all) each.destroy();
      }
    },
    2 * BODY_DEADLINE_MS,
  );
});

describe("a peer stalling bodies on a Remix webhook route", () => {
  it(
    "holds its own share: Shopify's privacy and lifecycle deliveries from another address are answered 200",
    async () => {
      // The attack: connections from one address to customers/data_request, each declaring 5 MB
      // and sending 4 MB before it stalls, again each time the body deadline cuts them. A
      // peer holds at most 8 MB (a quarter of the 32 MB budget): two stallers hold their 4 MB, and
      // the address's next body is refused at its first byte. Meanwhile Shopify, from another
      // address, delivers the topics Remix answers, each in its own share. (A third staller sent
      // at once with the two is refused in the middle of its 4 MB; the server then closes a
      // connection the client is still writing to, and whether the client reads the 429 before
      // the reset is TCP's race: the refusal is shown by the probe, which has nothing more to send.)
      const attacker = "127.0.0.2";
      const shop = "stalled-beside.myshopify.com";
      for (const round of [1, 2]) {
        const stallers = [0, 1].map(() =>
          rawRequest(
            webhookHead("/webhooks/customers/data_request", "customers/data_request", 5 * MB),
            Buffer.alloc(4 * MB, "a"),
            attacker,
          ),
        );
        try {
          // Once both have sent their 4 MB, the address's share (8 MB) is full. Watched on the
          // metrics port, not by probing from the address: a probe's byte, held while a staller's
          // last chunk arrives, would take that staller's place.
          await expect.poll(bodyBytesHeld, { interval: 20, timeout: 4_000 }).toBe(8 * MB);
          const probe = rawRequest(
            webhookHead("/webhooks/customers/data_request", "customers/data_request", 1),
            "x",
            attacker,
          );
          try {
            expect(await probe.answered).toMatchObject({ status: 429, connection: "close" });
          } finally {
            probe.destroy();
          }
          const signed = (path: string, topic: string, body: unknown) =>
            deliver(app.url, path, { topic, shop, body, secret: SECRET });
          const answers = await Promise.all([
            signed("/webhooks/shop/redact", "shop/redact", { shop_id: 9, shop_domain: shop }),
            signed("/webhooks/app/uninstalled", "app/uninstalled", {
              id: 9,
              name: shop,
              domain: shop,
              myshopify_domain: shop,
            }),
            signed("/webhooks/customers/data_request", "customers/data_request", {
              shop_id: 9,
              shop_domain: shop,
              orders_requested: [],
              customer: { id: 47 },
              data_request: { id: round },
            }),
            signed("/webhooks/customers/redact", "customers/redact", {
              shop_id: 9,
              shop_domain: shop,
              customer: { id: 47 },
              orders_to_redact: [],
            }),
          ]);
          expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
          // Not because the staller was let go: both its bodies are still being read.
          expect(stallers.filter((each) => !each.isAnswered())).toHaveLength(2);
          // Its bodies are cut at the deadline; it comes back for the next round.
          const held = await Promise.all(stallers.map((each) => each.answered.catch(() => null)));
          expect(held.filter((answer) => answer?.status === 408)).toHaveLength(2);
        } finally {
          for (const each of stallers) each.destroy();
        }
      }
    },
    4 * BODY_DEADLINE_MS,
  );
});

describe("bodies over their cap", () => {
  const touchUrl = () =>
    `${app.url}/proxy/touch?${signedProxyQuery("", { shop: "untrusted.myshopify.com", apiSecret: SECRET }).toString()}`;

  it("a 100 KB touch is answered 413 with connection: close, declared or chunked", async () => {
    for (const declared of [true, false]) {
      const answer = await postBody(touchUrl(), { "content-type": "application/json" }, 100 * KB, declared);
      expect(answer, declared ? "declared" : "chunked").toEqual({ status: 413, connection: "close" });
    }
  });

  /** An orders/create delivery's headers, signed for a body of "{}". */
  const orderHeaders = (shop: string) =>
    webhookHeaders({ topic: "orders/create", shop, apiVersion: API_VERSION, body: "{}", secret: SECRET });

  it("a 20 MB webhook body, sent as fast as it goes, reads its 413 in 20 of 20 tries, declared or chunked", async () => {
    const head = orderHeaders("big.myshopify.com");
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const answer = await postBody(`${app.url}/webhooks/orders/create`, head, 20 * MB, attempt % 2 === 0);
      statuses.push(answer.status);
    }
    expect(statuses).toEqual(Array(20).fill(413));
  });

  it("a 20 MB body sent slowly reads its 413 while it is still sending", async () => {
    const head = orderHeaders("slow.myshopify.com");
    const answer = await postBody(`${app.url}/webhooks/orders/create`, head, 20 * MB, true, 2);
    expect(answer.status).toBe(413);
  });

  it("a 6 MB body on a Remix webhook route is answered 413 with connection: close", async () => {
    // The head alone: the refusal comes from the declared length, before a byte of the body. A
    // client still pushing megabytes when the server closes may meet a reset before it reads the
    // answer (TCP's race, not the app's), which made a test that sent them flaky.
    const request = rawRequest(webhookHead("/webhooks/customers/redact", "customers/redact", 6 * MB));
    try {
      expect(await request.answered).toEqual({ status: 413, connection: "close" });
    } finally {
      request.destroy();
    }
  });
});

/** Sends `requestLine` and a Host on a socket of its own and reads the whole answer, until the server closes. */
function rawExchange(requestLine: string): Promise<string> {
  const { hostname, port } = new URL(app.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to ${JSON.stringify(requestLine)}`)));
    socket.write(
      Buffer.from(`${requestLine}\r\nHost: ${new URL(app.url).host}\r\nConnection: close\r\n\r\n`, "latin1"),
    );
  });
}

describe("request targets that are not a path", () => {
  it("are answered 400 with a short reason in plain text, never a 5xx or a stack", async () => {
    const { host } = new URL(app.url);
    const targets = [
      "GET http://evil.example/healthz HTTP/1.1",
      `GET http://${host}/healthz HTTP/1.1`,
      "POST http://evil.example/webhooks/orders/create HTTP/1.1",
      "GET * HTTP/1.1",
      "OPTIONS * HTTP/1.1",
      "GET /a b HTTP/1.1",
      "GET /a\x01b HTTP/1.1",
      "GET /a\x7fb HTTP/1.1",
      "GET /%zz HTTP/1.1",
      "GET /app/%ff HTTP/1.1",
      "GET /webhooks/% HTTP/1.1",
      "GET  HTTP/1.1",
      "GET ?shop=x HTTP/1.1",
    ];
    for (const target of targets) {
      const answer = await rawExchange(target);
      const [head = "", body = ""] = answer.split("\r\n\r\n");
      const shown = `${JSON.stringify(target)} answered ${JSON.stringify(answer.slice(0, 300))}`;
      expect(head.split("\r\n")[0], shown).toBe("HTTP/1.1 400 Bad Request");
      expect(head, shown).toMatch(/^content-type: text\/plain; charset=utf-8$/im);
      expect(body.trim().length, shown).toBeGreaterThan(0);
      expect(body.length, shown).toBeLessThan(200);
      expect(body, shown).not.toMatch(/Error|\bat |<|node_modules|server\.mjs/);
    }
    // The same server still answers a path.
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
  });

  it("names what is wrong: a URL, the asterisk, the encoding, a target the parser cannot read", async () => {
    const bodyOf = async (target: string) => (await rawExchange(target)).split("\r\n\r\n")[1];
    expect(await bodyOf("GET http://evil.example/healthz HTTP/1.1")).toMatch(/only a path is served/);
    expect(await bodyOf("OPTIONS * HTTP/1.1")).toMatch(/asterisk-form/);
    expect(await bodyOf("GET /%zz HTTP/1.1")).toMatch(/percent-encoding/);
    expect(await bodyOf("GET /a\x01b HTTP/1.1")).toBe("malformed request target\n");
    expect(await bodyOf("GET /a b HTTP/1.1")).toBe("malformed request\n");
  });
});

describe("forms from another site", () => {
  it("a cross-origin POST to the app's pages is refused with 403, a same-origin one reaches the route", async () => {
    const post = (path: string, origin: string) =>
      fetch(`${app.url}${path}`, {
        method: "POST",
        headers: { origin, "content-type": "application/x-www-form-urlencoded" },
        body: "a=b",
        redirect: "manual",
      });
    for (const path of ["/app", "/app/settings", "/app.data", "/auth/login", "/"]) {
      const refused = await post(path, "https://evil.example");
      expect(refused.status, path).toBe(403);
      expect(await refused.text()).toMatch(/another site/);
    }
    expect((await post("/app", "not a url")).status).toBe(403);
    // Same origin: Remix's own answer (no action on the layout route).
    expect((await post("/app", app.url)).status).toBe(405);
    // The storefront's touches come through Shopify's proxy from the shop's own domain: untouched.
    const query = signedProxyQuery("", { shop: "forms.myshopify.com", apiSecret: SECRET });
    const touch = await fetch(`${app.url}/proxy/touch?${query.toString()}`, {
      method: "POST",
      headers: { origin: "https://forms.myshopify.com", "content-type": "application/json" },
      body: JSON.stringify({ clickId: "clk_forms", tag: null, cartToken: "cart-forms" }),
    });
    expect(touch.status).toBe(202);
  });
});

describe("the access log", () => {
  it("names each request's method, path, status, length and time, and never its query", async () => {
    const idToken = "eyJhbGciOiJIUzI1NiJ9.eyJkZXN0IjoibG9nLm15c2hvcGlmeS5jb20ifQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg";
    await fetch(`${app.url}/app?embedded=1&shop=log.myshopify.com&host=YWRtaW4&id_token=${idToken}`, {
      redirect: "manual",
    });
    const query = signedProxyQuery("", {
      shop: "log.myshopify.com",
      apiSecret: SECRET,
      loggedInCustomerId: "7345901266",
    });
    const touch = await fetch(`${app.url}/proxy/touch?${query.toString()}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ clickId: "clk_log", tag: null, cartToken: "cart-log" }),
    });
    expect(touch.status).toBe(202);
    await fetch(`${app.url}/auth/login?shop=log.myshopify.com&hmac=3b1f0c9d8e7a&session=sess-9f8e7d&code=code-5a4b`, {
      redirect: "manual",
    });

    // One JSON line per request, its event named, its message as the access log read before.
    const requests = () =>
      app
        .output()
        .split("\n")
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as Record<string, unknown>];
          } catch {
            return []; // not a JSON line, or one still being written
          }
        })
        .filter((line) => line.event === "http.request");
    await expect
      .poll(() => requests().map((line) => line.message))
      .toContainEqual(expect.stringMatching(/^POST \/proxy\/touch 202 \S+ - [\d.]+ ms$/));
    await expect
      .poll(() => requests().map((line) => line.message))
      .toContainEqual(expect.stringMatching(/^GET \/auth\/login \d{3} /));
    expect(requests()).toContainEqual(
      expect.objectContaining({ level: "info", method: "POST", path: "/proxy/touch", status: 202 }),
    );
    const output = app.output();
    expect(output).toMatch(/"message":"GET \/app \d{3} /);
    for (const secret of [
      "id_token",
      "eyJhbGciOiJIUzI1NiJ9",
      "signature",
      query.get("signature")!,
      "logged_in_customer_id",
      "7345901266",
      "hmac",
      "3b1f0c9d8e7a",
      "sess-9f8e7d",
      "code-5a4b",
    ])
      expect(output, secret).not.toContain(secret);
  });
});

/** Writes `head` (request line and headers, without the blank line) on a socket of its own; the answer's status. */
function statusOf(head: string): Promise<number> {
  const { hostname, port } = new URL(app.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    socket.on("data", (chunk) => (text += chunk.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => resolve(Number(text.split(" ")[1])));
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to ${JSON.stringify(head)}`)));
    socket.write(Buffer.from(`${head}\r\nConnection: close\r\n\r\n`, "latin1"));
  });
}

describe("hosts and path spellings", () => {
  it("30 malformed hosts, targets and path spellings: never a 5xx, and a Host no URL can hold is refused 400", async () => {
    const { host } = new URL(app.url);
    const badHosts = ["a%b", "[::1", "[::1]x", "[zz::1]", `localhost:99999`, "localhost:abc", "", "evil/path"];
    const badForwarded = ["a%b", "localhost:99999", "[::1", "ok.example, a%b"];
    const answers: [string, number][] = [];
    for (const value of badHosts)
      answers.push([`Host: ${value}`, await statusOf(`GET /healthz HTTP/1.1\r\nHost: ${value}`)]);
    for (const value of badForwarded)
      answers.push([
        `X-Forwarded-Host: ${value}`,
        await statusOf(`GET /app HTTP/1.1\r\nHost: ${host}\r\nX-Forwarded-Host: ${value}`),
      ]);
    for (const [what, status] of answers) expect(status, what).toBe(400);
    const spellings = [
      "/APP",
      "/App/Settings",
      "/app%2Fsettings",
      "//app//settings",
      "/%61pp",
      "/webhooks//orders/create",
      "/Webhooks/Orders/Create",
      "/WEBHOOKS/customers/data_request",
      "/webhooks/customers%2Fredact",
      "/healthz/",
      "/HEALTHZ",
      "/proxy//touch",
      "/Proxy/Touch",
      "/app/..%2f..%2fetc",
      "/app/%2e%2e/%2e%2e",
      "/.%2e/",
      "/auth/login",
      "/auth//login",
      "/AUTH/LOGIN",
    ];
    for (const target of spellings)
      for (const method of ["GET", "POST"]) {
        const status = await statusOf(`${method} ${target} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0`);
        answers.push([`${method} ${target}`, status]);
        expect(status, `${method} ${target}`).toBeLessThan(500);
      }
    expect(answers.length).toBeGreaterThanOrEqual(30);
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
  });

  it("refuses every spelling of an admin action posted from another site with 403", async () => {
    for (const target of [
      "/APP/settings",
      "/app%2Fsettings",
      "/app%2fsettings",
      "//app/settings",
      "/App/Settings",
      "/%61pp/settings",
      "/AUTH/login",
    ]) {
      const response = await fetch(`${app.url}${target}`, {
        method: "POST",
        headers: { origin: "https://evil.example", "content-type": "application/x-www-form-urlencoded" },
        body: "a=b",
        redirect: "manual",
      });
      expect(response.status, target).toBe(403);
    }
  });

  it("counts the answer to every spelling of a webhook path by its topic", async () => {
    const counted = async () =>
      total(
        parseMetrics(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()),
        "tagguard_webhook_deliveries_total",
        {
          topic: "customers/data_request",
        },
      );
    const before = await counted();
    for (const target of ["/Webhooks/Customers/Data_Request", "/webhooks//customers/data_request"]) {
      // Unsigned: refused by the route, and counted.
      const status = await statusOf(
        `POST ${target} HTTP/1.1\r\nHost: ${new URL(app.url).host}\r\nContent-Type: application/json\r\nContent-Length: 0`,
      );
      expect(status, target).toBeGreaterThanOrEqual(400);
      expect(status, target).toBeLessThan(500);
    }
    await expect.poll(counted).toBe(before + 2);
  });
});
