// Run the Shopify stand-in on its own: `npx tsx sandbox/shopify/main.ts [port]`.
// Point the app at it by calling routeShopifyTrafficTo(url) at dev start-up
// (app/platform/shopify-standin-routing.server.ts; refuses NODE_ENV=production).
import { startShopifyStandin } from "./server";

const port = Number(process.argv[2] ?? process.env.SHOPIFY_STANDIN_PORT ?? 4799);
const standin = await startShopifyStandin({ port });
console.log(
  `Shopify stand-in listening on ${standin.url} (Admin API ${standin.apiVersion}, client id ${standin.apiKey})`,
);
const stop = () => void standin.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
