import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { NodeLane } from "../../app/webhooks/node-lane.server";
import { listen } from "../../sandbox/listen";

// Serves Remix route modules over real HTTP, the way Remix's server hands them a Fetch Request,
// without a build: tests exercise the route code, the library's auth and a real socket.

import type { AppLoadContext } from "@remix-run/node";

type Handler = (args: {
  request: Request;
  params: Record<string, string>;
  context: AppLoadContext;
}) => Promise<unknown> | unknown;
export interface RouteModule {
  loader?: Handler;
  action?: Handler;
}

export interface RouteServer {
  url: string;
  close(): Promise<void>;
}

/**
 * With `lanes`, a request to a lane's path goes to the lane on Node's own request, before any
 * route, as the server (server.mjs) routes it.
 */
export async function serveRoutes(
  routes: Record<string, RouteModule>,
  lanes: Record<string, NodeLane> = {},
): Promise<RouteServer> {
  const server = createServer((req, res) => {
    const lane = lanes[new URL(req.url ?? "/", "http://localhost").pathname];
    if (lane) return void lane(req, res);
    handle(routes, req, res).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  const { url } = await listen(server);
  return {
    url,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function handle(routes: Record<string, RouteModule>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
  const route = routes[url.pathname];
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
  }
  const method = req.method ?? "GET";
  // The body streams in as it does under Remix's server, so a route can refuse it before reading it.
  const request = new Request(url, {
    method,
    headers,
    ...(method !== "GET" && method !== "HEAD" && { body: Readable.toWeb(req) as ReadableStream, duplex: "half" }),
  } as RequestInit);
  const handler = method === "GET" ? route?.loader : route?.action;
  if (!handler) {
    req.resume();
    res.statusCode = route ? 405 : 404;
    res.end();
    return;
  }
  let response: unknown;
  try {
    // The load context server.mjs gives every route: the connection's peer.
    response = await handler({ request, params: {}, context: { peerAddress: req.socket.remoteAddress } });
  } catch (thrown) {
    if (!(thrown instanceof Response)) throw thrown;
    response = thrown;
  }
  if (response instanceof Response) {
    res.statusCode = response.status;
    response.headers.forEach((value, name) => res.setHeader(name, value));
    res.end(Buffer.from(await response.arrayBuffer()));
  } else {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(response ?? null));
  }
}
