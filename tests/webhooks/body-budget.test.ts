import { request as httpRequest, type ClientRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env } from "../../app/platform/env.server";
import { BodyBudget } from "../../app/webhooks/body-budget";
import { webhookBodyBudget } from "../../app/webhooks/receive.server";
import { webhookHeaders } from "../../sandbox/shopify";
import { servePublicRoutes } from "../support/app-routes";
import { API_VERSION, deliver, TEST_SECRET } from "../support/deliver";
import { orderPayload } from "../support/fixtures";
import type { RouteServer } from "../support/route-server";

// The body bytes a process holds before their signatures are checked are bounded as a whole,
// not only per body: slow senders of large bodies cannot take the server's memory, and the
// deliveries that fit still get through.

let lanes: RouteServer;

beforeAll(async () => {
  lanes = await servePublicRoutes();
});
afterAll(() => lanes.close());

const PATH = "/webhooks/orders/create";
const MB = 1024 * 1024;

interface Answer {
  status: number;
  retryAfter?: string;
  connection?: string;
}

/**
 * A delivery with a declared length (or none: chunked) of which `send` bytes are sent; then it
 * ends when `end` says so, or waits, open, until destroy().
 */
function slowDelivery(
  baseUrl: string,
  options: { declared: number | null; send: number; end?: boolean; secret?: string },
  path: string = PATH,
) {
  const url = new URL(`${baseUrl}${path}`);
  const headers: Record<string, string | number> = webhookHeaders({
    topic: "orders/create",
    shop: "slow.myshopify.com",
    apiVersion: API_VERSION,
    body: "{}",
    secret: options.secret ?? TEST_SECRET,
  });
  if (options.declared !== null) headers["content-length"] = options.declared;
  let request!: ClientRequest;
  const answered = new Promise<Answer>((resolve, reject) => {
    request = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers },
      (res) => {
        res.resume();
        resolve({
          status: res.statusCode ?? 0,
          retryAfter: res.headers["retry-after"],
          connection: res.headers.connection,
        });
      },
    );
    // A refused body ends the connection; what the client was still writing then fails.
    request.on("error", (error) => (request.destroyed ? undefined : reject(error)));
  });
  const chunk = Buffer.alloc(64 * 1024, "a");
  let sent = 0;
  const pump = () => {
    while (sent < options.send) {
      const piece = chunk.subarray(0, Math.min(chunk.length, options.send - sent));
      sent += piece.length;
      if (!request.write(piece)) return void request.once("drain", pump);
    }
    if (options.end) request.end();
  };
  pump();
  return { answered, destroy: () => request.destroy() };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("the budget of webhook body bytes in flight", () => {
  it("refuses with 429 what does not fit, lets through what does, and frees a body's share when it ends", async () => {
    const budget = webhookBodyBudget();
    const large = env().WEBHOOK_MAX_BODY_BYTES - 1024;
    const room = Math.floor(budget.capacity / large);
    expect(room).toBeGreaterThan(1);

    // Slow senders of large bodies, declared and mostly unsent, fill the budget.
    const slow = Array.from({ length: room }, () => slowDelivery(lanes.url, { declared: large, send: 1024 }));
    await until(() => budget.held === room * large);

    // One more is refused at once, unread, on an intake lane and on a Remix webhook route alike.
    for (const path of [PATH, "/webhooks/app/uninstalled"]) {
      const refused = await slowDelivery(lanes.url, { declared: large, send: 1024 }, path).answered;
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBe("1");
    }
    // A body with no declared length is counted as it arrives, and refused once it no longer fits.
    const chunked = await slowDelivery(lanes.url, { declared: null, send: 4 * MB }).answered;
    expect(chunked).toMatchObject({ status: 429, connection: "close" });

    // An order of ordinary size still fits beside them.
    const order = await deliver(lanes.url, PATH, {
      topic: "orders/create",
      shop: "budget.myshopify.com",
      body: orderPayload(),
    });
    expect(order.status).toBe(200);
    expect(budget.held).toBe(room * large);

    // The slow senders give up: their shares come back, and a large body is read to its check.
    for (const each of slow) each.destroy();
    await until(() => budget.held === 0);
    const forged = slowDelivery(lanes.url, { declared: large, send: large, end: true, secret: "forged" });
    expect((await forged.answered).status).toBe(401);
    expect(budget.held).toBe(0);
  });
});

describe("BodyBudget", () => {
  it("holds what fits, refuses what does not without taking any of it, and releases a hold once", () => {
    const budget = new BodyBudget(100);
    const first = budget.hold();
    const second = budget.hold();
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
});
