// The two outside systems for a benchmark, in a process of their own so that their work shares
// neither the app's event loop nor the load generator's: the sandbox Click Verification Service
// and the Shopify stand-in (Admin API with its leaky bucket, token exchange).
import { startClickService } from "../sandbox/click-service/server";
import { startShopifyStandin } from "../sandbox/shopify";

const clicks = await startClickService();
const shopify = await startShopifyStandin({
  appSecret: process.env.BENCH_APP_SECRET!,
  apiKey: process.env.BENCH_APP_KEY!,
});
process.stdout.write(
  `READY ${JSON.stringify({ clickServiceUrl: clicks.url, clickServiceApiKey: clicks.createApiKey(), shopifyUrl: shopify.url })}\n`,
);
const stop = () => void Promise.all([clicks.close(), shopify.close()]).finally(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
