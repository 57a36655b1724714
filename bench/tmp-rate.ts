import autocannon from "autocannon";
import { orderDelivery } from "./deliveries";
import { startBenchStack } from "./stack";
const stack = await startBenchStack({ database: "sqlite", appEnv: { WORKER_ENABLED: process.env.W ?? "false" } });
const shop = "rate.myshopify.com";
await stack.installShop(shop);
for (const rate of [100, 200, 300, 400]) {
  const r = await autocannon({
    url: `${stack.appUrl}/webhooks/orders/create`, connections: 64, overallRate: rate, duration: 8,
    requests: [{ method: "POST", setupRequest: (req) => { const { body, headers } = orderDelivery({ shop, secret: stack.apiSecret, clickId: null, arrivedTag: null }); return { ...req, body, headers }; } }],
  });
  console.log(rate, "req/s", r.requests.average, "p50", r.latency.p50, "p90", r.latency.p90, "p99", r.latency.p99, "max", r.latency.max, "non2xx", r.non2xx);
}
await stack.stop();
