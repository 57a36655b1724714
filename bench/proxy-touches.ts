import { randomBytes } from "node:crypto";
import { Pool } from "undici";
import { signedProxyQuery } from "../sandbox/storefront/app-proxy";
import type { BenchStack } from "./stack";

// The storefront's touches through Shopify's app proxy, as the security review measured them
// (issue 38): signed calls with a new click id each, ten at a time, answered one by one. Two
// runs: from three carts (most are refused by the per-cart cap of new clicks, as a script
// inventing ids would be) and from a new cart each (every touch stored, a lookup queued).

export interface ProxyTouchesOptions {
  touches: number;
  concurrency: number;
}

export const DEFAULT_PROXY_TOUCHES: ProxyTouchesOptions = { touches: 300, concurrency: 10 };

interface Run {
  statuses: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  touchesPerSecond: number;
}

export interface ProxyTouchesResult {
  /** Three carts: the figure, held to p99 <= 250 ms. */
  p99Ms: number;
  threeCarts: Run;
  /** A new cart each: every touch stored. */
  newCarts: Run;
}

export async function benchProxyTouches(
  stack: BenchStack,
  options: ProxyTouchesOptions = DEFAULT_PROXY_TOUCHES,
): Promise<ProxyTouchesResult> {
  const pool = new Pool(stack.appUrl, { connections: options.concurrency, pipelining: 1 });
  try {
    const cart = () => `c1-${randomBytes(12).toString("hex")}`;
    const threeCarts = [cart(), cart(), cart()];
    const warmUp = "bench-touches-warm-up.myshopify.com";
    const shopA = "bench-touches-a.myshopify.com";
    const shopB = "bench-touches-b.myshopify.com";
    for (const shop of [warmUp, shopA, shopB]) await stack.installShop(shop);
    // A running app has compiled its hot paths: the first calls of a new process are not a figure.
    await touches(pool, stack.apiSecret, warmUp, { ...options, touches: 100 }, () => cart());
    const first = await touches(pool, stack.apiSecret, shopA, options, (i) => threeCarts[i % 3]!);
    const second = await touches(pool, stack.apiSecret, shopB, options, () => cart());
    return { p99Ms: first.p99Ms, threeCarts: first, newCarts: second };
  } finally {
    await pool.close();
  }
}

async function touches(
  pool: Pool,
  apiSecret: string,
  shop: string,
  options: ProxyTouchesOptions,
  cartOf: (i: number) => string,
): Promise<Run> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  const startedAt = performance.now();
  const lane = async () => {
    while (next < options.touches) {
      const i = next++;
      const body = JSON.stringify({
        clickId: `clk_${randomBytes(8).toString("hex")}`,
        tag: "bench-20",
        cartToken: cartOf(i),
      });
      const sentAt = performance.now();
      const response = await pool.request({
        method: "POST",
        path: `/proxy/touch?${signedProxyQuery("", { shop, apiSecret }).toString()}`,
        // Shopify's proxy appends the shopper's address; a few shoppers here.
        headers: { "content-type": "application/json", "x-forwarded-for": `192.0.2.${(i % 3) + 10}` },
        body,
      });
      await response.body.dump();
      latencies.push(performance.now() - sentAt);
      statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, lane));
  const seconds = (performance.now() - startedAt) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)]! * 10) / 10;
  return {
    statuses,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: at(1),
    touchesPerSecond: Math.round(options.touches / seconds),
  };
}
