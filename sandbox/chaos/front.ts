import { createServer } from "node:http";
import { listen } from "../listen";
import { readBody } from "../shopify/http";

// The run's load balancer: one address in front of the instances, as production has, for what
// reaches the app from outside under a URL it was given once (PayPal's webhooks). Each request
// goes to a live instance; one that cannot be reached, or dies before it answers (killed,
// restarting), is sent to another for a few seconds, as the load balancer's health checks and
// PayPal's own re-sending of an unanswered webhook would. Whatever an instance answers is the
// answer.

export interface Front {
  url: string;
  close(): Promise<void>;
}

/** How long a request may wait for a live instance before the front answers 502. */
const REACH_FOR_MS = 10_000;

export async function startFront(pickInstance: () => string | null): Promise<Front> {
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const headers = Object.fromEntries(
        Object.entries(req.headers).flatMap(([name, value]) =>
          typeof value === "string" && !["host", "connection", "content-length"].includes(name) ? [[name, value]] : [],
        ),
      );
      const deadline = Date.now() + REACH_FOR_MS;
      for (;;) {
        const instance = pickInstance();
        try {
          if (!instance) throw new Error("no instance is up");
          const answer = await fetch(`${instance}${req.url ?? "/"}`, {
            method: req.method,
            headers,
            body: req.method === "GET" || req.method === "HEAD" ? undefined : new Uint8Array(body),
          });
          const text = Buffer.from(await answer.arrayBuffer());
          res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/plain" });
          return void res.end(text);
        } catch {
          if (Date.now() > deadline) {
            res.writeHead(502, { "content-type": "text/plain" });
            return void res.end("no instance answered");
          }
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    })().catch(() => res.destroy());
  });
  const { url } = await listen(server, 0, "127.0.0.1");
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
