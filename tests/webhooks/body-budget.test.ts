import { request as httpRequest, type ClientRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { BODY_DEADLINE_MS, BodyBudget } from "../../app/webhooks/body-budget";
import { newWebhookBodyBudget, replaceWebhookBodyBudget, webhookBodyBudget } from "../../app/webhooks/receive.server";
import { webhookHeaders } from "../../sandbox/shopify";
import { servePublicRoutes } from "../support/app-routes";
import { API_VERSION, deliver, TEST_SECRET } from "../support/deliver";
import { orderPayload } from "../support/fixtures";
import type { RouteServer } from "../support/route-server";

// The body bytes a process holds before their signatures are checked are bounded as a whole,
// and no stranger can take that bound for themselves (decision 027): bytes count as they arrive,
// not as a Content-Length promises them; a body that stops arriving is cut off (408) and its
// bytes released; one address holds at most its share. Signed deliveries keep getting through.

let lanes: RouteServer;

beforeAll(async () => {
  lanes = await servePublicRoutes();
});
afterAll(() => lanes.close());

const PATH = "/webhooks/orders/create";
const REMIX_ROUTE = "/webhooks/app/uninstalled";
const KB = 1024;
const MB = 1024 * KB;
/** Loopback addresses other than the tests' own 127.0.0.1: other sources, as the server counts them. */
const ELSEWHERE = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6"] as const;

interface Answer {
  status: number;
  retryAfter?: string;
  connection?: string;
}

interface SlowDelivery {
  answered: Promise<Answer>;
  /** Whether an answer has come yet. */
  isAnswered(): boolean;
  destroy(): void;
}

/**
 * A delivery with a declared length (or none: chunked) of which `send` bytes are sent, from the
 * local address `from`; then it ends when `end` says so, or waits, open, until destroy().
 */
function slowDelivery(
  baseUrl: string,
  options: { declared: number | null; send: number; end?: boolean; secret?: string; from?: string },
  path: string = PATH,
): SlowDelivery {
  const url = new URL(`${baseUrl}${path}`);
  const topic = path === PATH ? "orders/create" : "app/uninstalled";
  const headers: Record<string, string | number> = webhookHeaders({
    topic,
    shop: "slow.myshopify.com",
    apiVersion: API_VERSION,
    body: "{}",
    secret: options.secret ?? TEST_SECRET,
  });
  if (options.declared !== null) headers["content-length"] = options.declared;
  let request!: ClientRequest;
  let answer: Answer | undefined;
  const answered = new Promise<Answer>((resolve, reject) => {
    request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers,
        ...(options.from && { localAddress: options.from }),
      },
      (res) => {
        res.resume();
        answer = {
          status: res.statusCode ?? 0,
          retryAfter: res.headers["retry-after"],
          connection: res.headers.connection,
        };
        resolve(answer);
      },
    );
    // A refused body ends the connection; what the client was still writing then fails.
    request.on("error", (error) => (request.destroyed ? undefined : reject(error)));
  });
  const chunk = Buffer.alloc(64 * KB, "a");
  let sent = 0;
  const pump = () => {
    while (sent < options.send) {
      const piece = chunk.subarray(0, Math.min(chunk.length, options.send - sent));
      sent += piece.length;
      if (!request.write(piece)) return void request.once("drain", pump);
    }
    if (options.end) request.end();
  };
  if (options.send > 0 || options.end) pump();
  else request.flushHeaders();
  return { answered, isAnswered: () => answer !== undefined, destroy: () => request.destroy() };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Makes `budget` the process's for the rest of this test. */
function useBudget(budget: BodyBudget): BodyBudget {
  const before = replaceWebhookBodyBudget(budget);
  onTestFinished(() => void replaceWebhookBodyBudget(before));
  return budget;
}

function signedOrder(shop: string) {
  return deliver(lanes.url, PATH, { topic: "orders/create", shop, body: orderPayload() });
}

describe("a declared length reserves nothing", () => {
  it("seven sockets declaring 32 MB between them leave a signed orders/create answered 200", async () => {
    // The attack, on the process's own budget: six headers declaring 5 MB and one 2 MB,
    // 32 MB together, the whole budget. Each sends one byte, so the test knows the server is
    // reading every one of them before it delivers the order.
    const budget = webhookBodyBudget();
    const declared = [...Array<number>(6).fill(5 * MB), 2 * MB];
    expect(declared.reduce((sum, each) => sum + each, 0)).toBe(budget.capacity);
    const idle = declared.map((length) => slowDelivery(lanes.url, { declared: length, send: 1 }));
    onTestFinished(() => idle.forEach((each) => each.destroy()));
    await until(() => budget.held >= idle.length);

    expect((await signedOrder("beside-idle.myshopify.com")).status).toBe(200);
    // Not because the idle ones were let go: every one is still being read, holding its byte.
    expect(idle.map((each) => each.isAnswered())).toEqual(declared.map(() => false));
    expect(budget.held).toBe(idle.length);

    for (const each of idle) each.destroy();
    await until(() => budget.held === 0);
  });
});

describe("a body that does not arrive promptly", () => {
  it("is answered 408 once its deadline passes, on an intake lane and a Remix route, and its bytes are released", async () => {
    // The deadline is BODY_DEADLINE_MS (5 s) in production; shortened here so the test does not wait on it.
    expect(BODY_DEADLINE_MS).toBe(5_000);
    const budget = useBudget(newWebhookBodyBudget(300));
    const stalled = [
      slowDelivery(lanes.url, { declared: MB, send: 64 * KB }),
      slowDelivery(lanes.url, { declared: MB, send: 0 }),
      slowDelivery(lanes.url, { declared: MB, send: 64 * KB }, REMIX_ROUTE),
      slowDelivery(lanes.url, { declared: MB, send: 0 }, REMIX_ROUTE),
    ];
    onTestFinished(() => stalled.forEach((each) => each.destroy()));
    for (const each of stalled) expect(await each.answered).toMatchObject({ status: 408, connection: "close" });
    await until(() => budget.held === 0);
    // A delivery that arrives at once is untouched by it.
    expect((await signedOrder("prompt.myshopify.com")).status).toBe(200);
  });
});

describe("one source's share", () => {
  it("one address holds at most its share; another's deliveries are read beside it", async () => {
    // The process's own budget: 32 MB, of which an address holds at most a quarter (8 MB).
    const budget = webhookBodyBudget();
    const [attacker] = ELSEWHERE;
    const held = [
      slowDelivery(lanes.url, { declared: 5 * MB, send: 4 * MB, from: attacker }),
      slowDelivery(lanes.url, { declared: 5 * MB, send: 4 * MB, from: attacker }),
    ];
    onTestFinished(() => held.forEach((each) => each.destroy()));
    await until(() => budget.held >= 8 * MB);

    // Its next body, whole and at once, no longer fits its share: refused unread.
    const more = slowDelivery(lanes.url, { declared: MB, send: MB, end: true, from: attacker });
    expect(await more.answered).toMatchObject({ status: 429, retryAfter: "1", connection: "close" });
    expect(budget.heldBy(attacker)).toBe(8 * MB);

    // Another address still has room for a large body and for an order.
    const large = slowDelivery(lanes.url, { declared: 5 * MB, send: 4 * MB });
    onTestFinished(() => large.destroy());
    await until(() => budget.heldBy("127.0.0.1") >= 4 * MB);
    expect((await signedOrder("other-source.myshopify.com")).status).toBe(200);

    for (const each of [...held, large]) each.destroy();
    await until(() => budget.held === 0);
  });
});

describe("one source's share on the webhook routes Remix answers", () => {
  it("is its peer's, as on the lanes: a peer stalling bodies there refuses no other address's delivery", async () => {
    // Issue 47's attack on a Remix route: bodies of 5 MB declared, 4 MB sent, then nothing.
    const budget = webhookBodyBudget();
    const [attacker] = ELSEWHERE;
    const held = [0, 1].map(() =>
      slowDelivery(lanes.url, { declared: 5 * MB, send: 4 * MB, from: attacker }, REMIX_ROUTE),
    );
    onTestFinished(() => held.forEach((each) => each.destroy()));
    await until(() => budget.heldBy(attacker) >= 8 * MB);
    const more = slowDelivery(lanes.url, { declared: MB, send: MB, end: true, from: attacker }, REMIX_ROUTE);
    expect(await more.answered).toMatchObject({ status: 429, retryAfter: "1", connection: "close" });

    // Shopify, from another address, has the whole of its own share on the same route.
    const shop = "beside-remix-staller.myshopify.com";
    const uninstalled = await deliver(lanes.url, REMIX_ROUTE, {
      topic: "app/uninstalled",
      shop,
      body: { id: 1, name: shop, domain: shop, myshopify_domain: shop },
    });
    expect(uninstalled.status).toBe(200);
    expect(held.map((each) => each.isAnswered())).toEqual([false, false]);
    expect(budget.heldBy(attacker)).toBe(8 * MB);

    for (const each of held) each.destroy();
    await until(() => budget.held === 0);
  });
});

describe("the budget of webhook body bytes in flight", () => {
  it("refuses with 429 what does not fit, lets through what does, and frees a body's share when it ends", async () => {
    // A small budget, filled by four addresses to within 256 KB, each within its 1 MB share.
    const budget = useBudget(new BodyBudget(4 * MB, { sourceShare: MB, deadlineMs: 60_000 }));
    const slow = ELSEWHERE.slice(0, 4).map((from) =>
      slowDelivery(lanes.url, { declared: 2 * MB, send: 960 * KB, from }),
    );
    onTestFinished(() => slow.forEach((each) => each.destroy()));
    await until(() => budget.held === 4 * 960 * KB);

    // One more large body is refused, unread, on an intake lane and on a Remix webhook route alike.
    for (const path of [PATH, REMIX_ROUTE]) {
      const refused = await slowDelivery(lanes.url, { declared: MB, send: 512 * KB, from: ELSEWHERE[4] }, path)
        .answered;
      expect(refused).toMatchObject({ status: 429, retryAfter: "1", connection: "close" });
    }
    // A body with no declared length is counted as it arrives, and refused once it no longer fits.
    const chunked = await slowDelivery(lanes.url, { declared: null, send: MB, from: ELSEWHERE[4] }).answered;
    expect(chunked).toMatchObject({ status: 429, connection: "close" });

    // An order of ordinary size still fits beside them.
    expect((await signedOrder("budget.myshopify.com")).status).toBe(200);
    expect(budget.held).toBe(4 * 960 * KB);

    // The slow senders give up: their shares come back, and a large body is read to its check.
    for (const each of slow) each.destroy();
    await until(() => budget.held === 0);
    const forged = slowDelivery(lanes.url, { declared: 900 * KB, send: 900 * KB, end: true, secret: "forged" });
    expect((await forged.answered).status).toBe(401);
    expect(budget.held).toBe(0);
  });
});

describe("BodyBudget", () => {
  it("holds what fits, refuses what does not without taking any of it, and releases a hold once", () => {
    const budget = new BodyBudget(100);
    const first = budget.hold("a");
    const second = budget.hold("b");
    expect(first.take(60)).toBe(true);
    expect(second.take(50)).toBe(false);
    expect(second.take(40)).toBe(true);
    expect(budget.held).toBe(100);
    first.release();
    first.release();
    expect(budget.held).toBe(40);
    expect(first.take(1)).toBe(false);
    second.release();
    expect(budget.held).toBe(0);
  });

  it("lets a source hold no more than its share, across its holds, and gives it back as they end", () => {
    const budget = new BodyBudget(100, { sourceShare: 30, deadlineMs: 1_234 });
    const one = budget.hold("a");
    const two = budget.hold("a");
    const other = budget.hold("b");
    expect(one.deadlineMs).toBe(1_234);
    expect(one.take(20)).toBe(true);
    expect(two.take(11)).toBe(false);
    expect(two.take(10)).toBe(true);
    expect(budget.heldBy("a")).toBe(30);
    expect(other.take(30)).toBe(true);
    one.release();
    expect(budget.heldBy("a")).toBe(10);
    expect(two.take(20)).toBe(true);
    two.release();
    other.release();
    expect([budget.held, budget.heldBy("a"), budget.heldBy("b")]).toEqual([0, 0, 0]);
  });

  it("forgets a source once its holds end, so peers that come and go leave nothing behind", () => {
    const budget = new BodyBudget(100, { sourceShare: 30 });
    const holds = ["a", "a", "b"].map((source) => budget.hold(source));
    for (const hold of holds) expect(hold.take(10)).toBe(true);
    expect(budget.sources).toBe(2);
    holds[0]!.release();
    expect([budget.sources, budget.heldBy("a")]).toEqual([2, 10]);
    holds[1]!.release();
    holds[2]!.release();
    expect(budget.sources).toBe(0);
    // A hold that took nothing leaves nothing either.
    budget.hold("c").release();
    expect(budget.sources).toBe(0);
  });

  it("gives the process's budget a quarter to a source, or one body at the cap if that is more", () => {
    const budget = newWebhookBodyBudget();
    expect(budget.sourceShare).toBe(Math.max(budget.capacity / 4, 5 * MB));
    expect(budget.deadlineMs).toBe(BODY_DEADLINE_MS);
  });

  it("takes its deadline from WEBHOOK_BODY_DEADLINE_MS when the environment sets one", async () => {
    // The settings are read once a process: a fresh copy of the modules reads them anew.
    vi.resetModules();
    vi.stubEnv("WEBHOOK_BODY_DEADLINE_MS", "12000");
    onTestFinished(() => void vi.unstubAllEnvs());
    const fresh = await import("../../app/webhooks/receive.server");
    expect(fresh.newWebhookBodyBudget().deadlineMs).toBe(12_000);
    expect(fresh.newWebhookBodyBudget(300).deadlineMs).toBe(300);
  });
});
