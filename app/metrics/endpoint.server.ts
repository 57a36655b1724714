import { createServer, type Server } from "node:http";
import { collectDefaultMetrics } from "prom-client";
import { logger } from "../platform/logger.server";
import { registry } from "./registry.server";
import { METRICS_CONTENT_TYPE, processMetrics } from "./threads.server";

// GET /metrics for Prometheus, on a port of its own (METRICS_PORT), never the public one: the
// public port faces Shopify and the internet through the host's load balancer, and what the
// metrics say (how far behind the queue is, how often the service refuses the key) is for the
// operator. Bound to METRICS_HOST, loopback unless the operator opens it to the scraper's network.

export interface MetricsEndpointOptions {
  port: number;
  host: string;
}

/**
 * Starts the endpoint, and the process's own metrics (CPU, memory, event loop lag, garbage
 * collection: prom-client's defaults, under their usual names) on this thread, the main one.
 * Resolves once it listens; it never keeps the process alive on its own.
 */
export function startMetricsEndpoint({ port, host }: MetricsEndpointOptions): Promise<Server> {
  collectDefaultMetrics({ register: registry });
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path !== "/metrics") return void response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    if (request.method !== "GET" && request.method !== "HEAD")
      return void response.writeHead(405, { allow: "GET, HEAD" }).end();
    processMetrics().then(
      (text) => {
        response.writeHead(200, { "content-type": METRICS_CONTENT_TYPE });
        response.end(request.method === "HEAD" ? undefined : text);
      },
      (error: unknown) => {
        logger.error("metrics.scrape_failed", "could not gather the metrics", { error });
        response.writeHead(500, { "content-type": "text/plain" }).end("could not gather the metrics\n");
      },
    );
  });
  // A scrape is a few kilobytes: a client that takes longer than this is not Prometheus.
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      server.unref();
      const shown = host.includes(":") ? `[${host}]` : host;
      logger.info("metrics.listening", `metrics at http://${shown}:${port}/metrics`, { port, host });
      resolve(server);
    });
  });
}
