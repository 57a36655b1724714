import autocannon from "autocannon";
import { loadTest, type LoadTestResult } from "loadtest";
import { setTimeout } from "node:timers/promises";
import { createClicks, orderDelivery } from "./deliveries";
import type { BenchStack } from "./stack";

// Webhook intake, as production runs it (the worker verifying what arrives), against a
// template-style route in the same build (authenticate.webhook, a log line, 200): throughput at
// a fixed concurrency in alternating rounds, and latency at a fixed arrival rate.

export interface IntakeResult {
  ratio: number;
  p50Ms: number;
  p99Ms: number;
  oursPerSecond: number;
  barePerSecond: number;
}

export interface IntakeOptions {
  connections: number;
  roundSeconds: number;
  rounds: number;
  ratePerSecond: number;
  rateSeconds: number;
}

export const DEFAULT_INTAKE: IntakeOptions = {
  connections: 32,
  roundSeconds: 5,
  rounds: 3,
  ratePerSecond: 300,
  rateSeconds: 10,
};

/** The pause between the throughput rounds and the fixed-rate phase. */
const SETTLE_MS = 1_000;

export async function benchIntake(stack: BenchStack, options: IntakeOptions = DEFAULT_INTAKE): Promise<IntakeResult> {
  const shop = "bench-intake.myshopify.com";
  await stack.installShop(shop);
  // Most orders carry a click the service knows, as a creator-driven shop's do; the worker
  // verifies them while intake runs.
  const clicks = await createClicks(stack.clickServiceUrl, 200);
  let sequence = 0;
  const next = () => {
    sequence += 1;
    const clickId = sequence % 4 === 0 ? null : clicks[sequence % clicks.length]!;
    return orderDelivery({
      shop,
      secret: stack.apiSecret,
      clickId,
      arrivedTag: sequence % 2 ? "alice-20" : "honey-77",
    });
  };
  const fire = (path: string, extra: Partial<autocannon.Options>) =>
    autocannon({
      url: `${stack.appUrl}${path}`,
      connections: options.connections,
      requests: [
        {
          method: "POST",
          setupRequest: (request) => {
            const { body, headers } = next();
            return { ...request, body, headers };
          },
        },
      ],
      ...extra,
    });

  const ours: number[] = [];
  const bare: number[] = [];
  for (let round = 0; round < options.rounds; round += 1) {
    for (const [path, into] of [
      ["/webhooks/orders/create", ours],
      ["/webhooks/baseline", bare],
    ] as const) {
      const result = await fire(path, { duration: options.roundSeconds });
      if (result.non2xx > 0 || result.errors > 0) {
        throw new Error(`${path}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
      }
      into.push(result.requests.average);
    }
  }
  // The last round's connections may still be waiting for answers: let the app finish them, so
  // that the fixed rate meets the app as it runs, not the tail of a flood.
  await setTimeout(SETTLE_MS);
  const steady = await atFixedRate(`${stack.appUrl}/webhooks/orders/create`, next, options);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const oursPerSecond = median(ours);
  const barePerSecond = median(bare);
  return {
    ratio: Number((oursPerSecond / barePerSecond).toFixed(2)),
    p50Ms: steady.p50Ms,
    p99Ms: steady.p99Ms,
    oursPerSecond: Math.round(oursPerSecond),
    barePerSecond: Math.round(barePerSecond),
  };
}

/**
 * Latency at a fixed arrival rate: loadtest sends a request every 1/rate seconds whatever the
 * answers (an open model, as Shopify delivers), on as many connections as that takes.
 * autocannon's own rate sends each connection's share of a second at its start, so its
 * percentiles measured bursts of `rate` requests at once, not a rate.
 */
async function atFixedRate(
  url: string,
  next: () => { body: string; headers: Record<string, string> },
  options: IntakeOptions,
): Promise<{ p50Ms: number; p99Ms: number }> {
  const result = await new Promise<LoadTestResult>((resolve, reject) =>
    loadTest(
      {
        url,
        method: "POST",
        requestsPerSecond: options.ratePerSecond,
        maxSeconds: options.rateSeconds,
        agentKeepAlive: true,
        quiet: true,
        requestGenerator: (_options, params, client, callback) => {
          const { body, headers } = next();
          const request = client(
            { ...params, headers: { ...headers, "content-length": Buffer.byteLength(body) } },
            callback,
          );
          request.end(body);
          return request;
        },
      },
      (error: Error | null, outcome: LoadTestResult) => (error ? reject(error) : resolve(outcome)),
    ),
  );
  if (result.totalErrors > 0) {
    throw new Error(`at a fixed rate: ${result.totalErrors} errors (${JSON.stringify(result.errorCodes)})`);
  }
  return { p50Ms: result.percentiles[50] ?? Number.NaN, p99Ms: result.percentiles[99] ?? Number.NaN };
}
