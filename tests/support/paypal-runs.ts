import { createServer } from "node:http";
import { listen } from "../../sandbox/listen";
import type { ShopifyAdmin } from "../../app/payouts/shopify-run-job.server";
import type { PaypalStandin } from "../../sandbox/paypal/server";

// What the payout-run suites share: records written straight into the database, a creator with
// an email, and a PayPal webhook endpoint serving the app's own handler (the route is one line
// around it) for the stand-in to deliver to.

// Imported when first used: the suite sets PAYPAL_API_ORIGIN before the app reads its environment.
const prisma = async () => (await import("../../app/database/db.server")).databaseClient();
let orders = 0;

/** An approved (unless said) commission record of `amountMinor` for the creator. */
export async function record(
  shop: string,
  creatorId: string,
  currency: string,
  amountMinor: bigint,
  status = "approved",
) {
  const orderId = `pp-${++orders}`;
  const verification = await (
    await prisma()
  ).verification.create({
    data: {
      shop,
      orderId,
      orderGid: `gid://shopify/Order/${orders}`,
      orderCreatedAt: new Date("2026-11-01T10:00:00Z"),
      outcome: "matched",
      clickId: `clk-${orderId}`,
      currency,
      orderFacts: "{}",
    },
  });
  const digits = currency === "JPY" ? 0 : 2;
  return (await prisma()).commission.create({
    data: {
      shop,
      verificationId: verification.id,
      orderId,
      creatorId,
      expectedTag: `${creatorId}-tag`,
      arrivedTag: `${creatorId}-tag`,
      orderValue: "100.00",
      currency,
      rate: "10",
      amount: (Number(amountMinor) / 10 ** digits).toFixed(digits),
      amountMinor,
      status,
    },
  });
}

export async function creator(shop: string, creatorId: string, email: string) {
  await (await prisma()).creatorProfile.create({ data: { shop, creatorId, email, name: creatorId } });
}

/** Serves the app's PayPal webhook handler at /webhooks/paypal/{shop}. */
export async function webhookEndpoint(
  handle: (shop: string, request: Request) => Promise<{ status: number; body: unknown }>,
) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const shop = decodeURIComponent((req.url ?? "").split("/").pop() ?? "");
      const headers = new Headers(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const request = new Request(`http://app.test${req.url}`, {
        method: "POST",
        headers,
        body: Buffer.concat(chunks),
      });
      handle(shop, request).then(
        ({ status, body }) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body)),
        (error: unknown) => res.writeHead(500).end(String(error)),
      );
    });
  });
  const { url } = await listen(server, 0, "127.0.0.1");
  return { url: (shop: string) => `${url}/webhooks/paypal/${shop}`, close: () => new Promise((r) => server.close(r)) };
}

/** The stand-in's batches for a sender_batch_id: exactly one when the app sent a run once. */
export function batchesFor(standin: PaypalStandin, senderBatchId: string) {
  return [...standin.ledger.batches.values()].filter((b) => b.senderBatchId === senderBatchId);
}

/**
 * The worker's queue with only the payout jobs (runs and schedules; Shopify's Admin API as `deps`
 * hand it in), on a clock the test moves on: `work()` runs
 * what is due, then what is due a day later (deferred looks, retries' backoff).
 */
export async function payoutRunner(deps: { shopifyAdmin?: ShopifyAdmin } = {}) {
  // The worker's own payout handlers: each job in the language its shop's admin was last opened in.
  const { payoutJobHandlers } = await import("../../app/worker/worker.server");
  const { startJobRunner } = await import("../../app/queue/runner.server");
  const idle = { run: async () => null, giveUp: async () => {} };
  let offset = 0;
  const runner = startJobRunner({
    handlers: {
      "verify-order": idle,
      "lookup-click": idle,
      "reconcile-shop": idle,
      ...payoutJobHandlers(deps),
    },
    concurrency: 2,
    pollIntervalMs: 3_600_000,
    takeTurns: false,
    // The suites look between steps (a run's intent before anything is sent): nothing may run
    // the queue but work() and runOnce().
    byHand: true,
    now: () => new Date(Date.now() + offset),
  });
  const later = (ms: number) => {
    offset += ms;
  };
  return {
    runOnce: () => runner.runOnce(),
    later,
    work: async () => {
      await runner.runOnce();
      later(86_400_000);
      await runner.runOnce();
    },
    stop: () => runner.stop(),
  };
}
