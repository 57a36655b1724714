import { startDatabaseProbe, type DatabaseProbeResult } from "./database-probe";
import { createClicks, orderDelivery, percentile, registerOrders } from "./deliveries";
import { cpuTimeMs, deliverAll, sampleRss } from "./load";
import type { BenchStack } from "./stack";

// Orders from delivery to final outcome through the worker, the sandbox click service and the
// Shopify stand-in, spread over many shops as an app's real traffic is.

export interface EndToEndResult {
  orders: number;
  shops: number;
  ordersPerSecond: number;
  p99Ms: number;
  /** The app's CPU time (every thread) from the first delivery to the last outcome, per order; null without /proc. */
  cpuMsPerOrder: number | null;
  peakRssMb: number;
  /** Resident memory at each quarter of the run (MB): flat means no leak. */
  rssByQuarterMb: number[];
  /** With `--probe`: where the run's database time went, per order. */
  probe?: DatabaseProbeResult;
}

export interface EndToEndOptions {
  orders: number;
  shops: number;
  connections: number;
  timeoutSeconds: number;
}

export const DEFAULT_END_TO_END: EndToEndOptions = { orders: 5_000, shops: 50, connections: 32, timeoutSeconds: 600 };

export async function benchEndToEnd(
  stack: BenchStack,
  options: EndToEndOptions = DEFAULT_END_TO_END,
): Promise<EndToEndResult> {
  const shops = Array.from({ length: options.shops }, (_, i) => `bench-e2e-${i}.myshopify.com`);
  for (const shop of shops) await stack.installShop(shop);
  const clicks = await createClicks(stack.clickServiceUrl, Math.min(options.orders, 1_000));
  // 70% matched, 20% hijacked (tagged in Shopify), 10% without a click.
  const deliveries = Array.from({ length: options.orders }, (_, i) =>
    orderDelivery({
      shop: shops[i % shops.length]!,
      secret: stack.apiSecret,
      clickId: i % 10 === 9 ? null : clicks[i % clicks.length]!,
      arrivedTag: i % 10 < 2 ? "honey-77" : "alice-20",
    }),
  );
  await registerOrders(stack.shopifyUrl, deliveries);
  const memory = sampleRss(stack.appPid);
  const probe =
    stack.probe &&
    (await startDatabaseProbe({ ...stack.probe, db: stack.db, postgresql: stack.database === "postgresql" }));
  const cpuBefore = cpuTimeMs(stack.appPid);
  const { deliveredAt, startedAt } = await deliverAll(stack.appUrl, deliveries, options.connections);
  const completed = await waitForAll(stack, shops, options.orders, options.timeoutSeconds);
  const cpuAfter = cpuTimeMs(stack.appPid);
  const probed = probe ? await probe.finish(options.orders) : undefined;
  const samples = memory.stop();

  const latencies: number[] = [];
  let lastDone = 0;
  for (const row of completed) {
    const delivered = deliveredAt.get(row.orderId);
    if (delivered === undefined || !row.completedAt) continue;
    latencies.push(Math.max(0, row.completedAt.getTime() - delivered));
    lastDone = Math.max(lastDone, row.completedAt.getTime());
  }
  latencies.sort((a, b) => a - b);
  const quarter = (q: number) => samples[Math.min(samples.length - 1, Math.floor((q * samples.length) / 4))] ?? 0;
  return {
    orders: options.orders,
    shops: options.shops,
    ordersPerSecond: Math.round(options.orders / ((lastDone - startedAt) / 1000)),
    p99Ms: percentile(latencies, 99),
    cpuMsPerOrder:
      cpuBefore === null || cpuAfter === null
        ? null
        : Math.round(((cpuAfter - cpuBefore) / options.orders) * 100) / 100,
    peakRssMb: Math.max(0, ...samples),
    rssByQuarterMb: [quarter(1), quarter(2), quarter(3), quarter(4)],
    ...(probed && { probe: probed }),
  };
}

async function waitForAll(stack: BenchStack, shops: string[], orders: number, timeoutSeconds: number) {
  const deadline = Date.now() + timeoutSeconds * 1000;
  for (;;) {
    const done = await stack.db.verification.count({ where: { shop: { in: shops }, outcome: { not: null } } });
    if (done >= orders) break;
    if (Date.now() > deadline)
      throw new Error(`${orders - done} of ${orders} orders had no outcome after ${timeoutSeconds} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return stack.db.verification.findMany({
    where: { shop: { in: shops } },
    select: { orderId: true, completedAt: true },
  });
}
