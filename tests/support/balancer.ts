import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from "node:http";
import { listen } from "../../sandbox/listen";

// A load balancer as the hosts in docs/operations.md run one in front of the web instances: it
// routes each request, round robin, to a backend whose GET /readyz last answered 200 (asked
// every `pollMs`), over keep-alive connections. It never tries a request again elsewhere (the
// strictest balancer: some retry a refused connection, none may retry a POST that was sent), so
// a backend that stops accepting before the balancer has seen it unready costs a 502, as a
// connection cut mid-answer does. A delivery answered 502 or 503 is one Shopify counts as refused.

export interface Balancer {
  url: string;
  setBackends(urls: string[]): void;
  /** The backends that were ready at the last poll. */
  ready(): string[];
  close(): Promise<void>;
}

/** Hop-by-hop headers belong to one connection: a proxy never passes them on (RFC 9110, 7.6.1). */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "upgrade",
  "proxy-connection",
  "content-length",
]);

function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())));
}

export async function startBalancer(pollMs = 1_000): Promise<Balancer> {
  let backends: string[] = [];
  let ready = new Set<string>();
  let next = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });

  const poll = async () => {
    const answers = await Promise.all(
      backends.map(async (url) => {
        try {
          const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(pollMs * 4) });
          await response.arrayBuffer();
          return response.status === 200 ? url : null;
        } catch {
          return null;
        }
      }),
    );
    ready = new Set(answers.filter((url): url is string => url !== null));
  };
  let polling = true;
  const loop = (async () => {
    while (polling) {
      await poll();
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  })();

  const forward = (backend: string, incoming: IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: OutgoingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const target = new URL(incoming.url ?? "/", backend);
      const outgoing = httpRequest(
        target,
        { method: incoming.method, headers: { ...endToEnd(incoming.headers), host: target.host }, agent },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on("data", (chunk: Buffer) => chunks.push(chunk));
          answer.on("end", () =>
            resolve({
              status: answer.statusCode ?? 502,
              headers: endToEnd(answer.headers),
              body: Buffer.concat(chunks),
            }),
          );
          answer.on("error", reject);
        },
      );
      outgoing.on("error", reject);
      outgoing.end(body);
    });

  const handle = async (incoming: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const candidates = [...ready];
    if (candidates.length > 0) {
      const backend = candidates[next++ % candidates.length]!;
      try {
        const answer = await forward(backend, incoming, body);
        return void response.writeHead(answer.status, answer.headers).end(answer.body);
      } catch {
        // Refused, reset or cut: answered 502 below.
      }
    }
    response.writeHead(502, { "content-type": "text/plain" }).end("no backend answered\n");
  };

  const server = createServer((incoming, response) => void handle(incoming, response));
  const { url } = await listen(server);
  return {
    url,
    setBackends(urls) {
      backends = urls;
    },
    ready: () => [...ready],
    async close() {
      polling = false;
      await loop;
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
