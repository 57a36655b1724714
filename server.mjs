// The app's server, in production (`npm start`: node server.mjs <server build>) and in
// development (`npm run dev`, through shopify.web.toml: node server.mjs --dev). Both run the
// same arrangement: what remix-serve does (assets, compression, an access log, Remix's request
// handler), webhook intake answered on Node's own request before Remix sees it
// (app/webhooks/node-lane.server.ts, decision 015), and the verification worker on a thread of
// its own (decision 019), which runs this same script, loads the same app and serves nothing.
// Development differs only in where the app comes from: Vite compiles it from app/ on demand
// (and reloads it on change) instead of reading the build.
import fs from "node:fs";
import { createServer, STATUS_CODES } from "node:http";
import path from "node:path";
import url from "node:url";
import { isMainThread, workerData } from "node:worker_threads";
import { createRequestHandler } from "@remix-run/express";
import { installGlobals } from "@remix-run/node";
import compression from "compression";
import express from "express";
import morgan from "morgan";
import sourceMapSupport from "source-map-support";

/**
 * How long a client may take to send a request, set here rather than left at Node's defaults,
 * which let a connection that sends headers and then nothing hold its request open for five
 * minutes (requestTimeout 300 s, checked every 30 s: the 313 s an attack measured).
 * A request cut off by these is answered 408 by Node, and its connection closed.
 * - headersTimeout: every header within 10 s of the request's first byte. Shopify, browsers
 *   and proxies send them at once; a client trickling them (slowloris) holds a socket no longer.
 * - requestTimeout: the whole request within 30 s. Nothing the app takes is larger than a few
 *   kilobytes but a webhook (5 MB at most), and a webhook body has a deadline of its own from its
 *   lane or route (WEBHOOK_BODY_DEADLINE_MS, 5 s by default, at most 25), so this bounds every
 *   other route.
 * - connectionsCheckingInterval: the two above are checked each second, not every 30.
 */
const SERVER_TIMEOUTS = { headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 1_000 };
/**
 * How long an idle connection is kept for the client's next request. Longer than Node's 5 s,
 * and longer than the 60 s a host's load balancer commonly keeps idle connections to the app:
 * a connection the app closed while the balancer reuses it costs a request a 502. An idle
 * connection holds no request and no body budget.
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** The server's arguments: its command line, or on the worker's thread what the main thread was given. */
const args = isMainThread ? process.argv.slice(2) : workerData.serverArgs;
const dev = args.includes("--dev");
process.env.NODE_ENV = process.env.NODE_ENV ?? (dev ? "development" : "production");

const app = dev ? await appFromSource() : await appFromBuild(args[0] ?? "build/server/index.js");
const { entry, future } = await app.build();
installGlobals({ nativeFetch: future.v3_singleFetch });
if (isMainThread) {
  // The instance: its database's migrations checked (it exits when they are behind the build),
  // the database monitored, the metrics endpoint, the worker's thread; then it serves.
  await entry.module.startInstance({ script: new URL(import.meta.url), serverArgs: args });
  await serve(app);
} else {
  // The worker's thread (decision 019): the worker, and nothing served.
  entry.module.startBackgroundWork();
}

/** The production build, read once. */
async function appFromBuild(buildPath) {
  // Stack traces point into the app's sources, as under remix-serve.
  sourceMapSupport.install({
    retrieveSourceMap(source) {
      if (!source.startsWith("file://")) return null;
      const mapPath = `${url.fileURLToPath(source)}.map`;
      return fs.existsSync(mapPath) ? { url: source, map: fs.readFileSync(mapPath, "utf8") } : null;
    },
  });
  const build = await import(url.pathToFileURL(path.resolve(buildPath)).href);
  return {
    build: () => build,
    assets: (express_) => [
      express_.static(build.assetsBuildDirectory, { immutable: true, maxAge: "1y" }),
      build.publicPath,
    ],
  };
}

/** The app compiled by Vite from app/; each request sees the code as it is now. */
async function appFromSource() {
  const vite = await import("vite");
  const server = await vite.createServer({
    // The worker's thread compiles the app too, but serves nothing and reloads nothing.
    server: isMainThread ? { middlewareMode: true } : { middlewareMode: true, hmr: false, watch: null },
    appType: "custom",
  });
  return {
    build: () => server.ssrLoadModule("virtual:remix/server-build"),
    assets: () => [server.middlewares],
  };
}

/**
 * Why a request target is refused (400), or null for one every later layer reads as a path (the
 * lanes' table, Express, Remix, which builds a URL from Host and the target and throws on any
 * other form, a 500 with Express's error page). Only origin-form is served: "/", a path and a query.
 * - Absolute-form ("GET http://host/path"), even naming this server: RFC 9112 asks an origin
 *   server to accept it, but only proxies are sent it. Shopify, browsers and a host's load
 *   balancer send origin-form, and taking the authority from the target over Host would let the
 *   client name the host the app believes it is. Refused, whatever the host.
 * - Asterisk-form ("OPTIONS *"): a question about the server as a whole, which this app does not answer.
 * - A path that is not valid percent-encoding ("/%zz", "/%ff"): Express cannot decode it, and
 *   answers 400 with its error page and stack. Node's parser has already refused spaces,
 *   control characters and a missing target (answerClientError).
 */
function targetRefusal(target) {
  if (target === "*") return "the asterisk-form request target (*) is not served: ask about a path";
  if (!target.startsWith("/")) return "only a path is served as the request target (origin-form), not a URL";
  try {
    decodeURIComponent(pathOf(target));
  } catch {
    return "the request target's path is not valid percent-encoding";
  }
  return null;
}

/** A host name, an IPv4 address or a bracketed IPv6 address, with an optional port. */
const AUTHORITY = /^(?:[A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** Whether a Host value is an authority Remix can build a URL from (the port within range, an IPv6 address well formed). */
function isAuthority(value) {
  if (!AUTHORITY.test(value)) return false;
  try {
    new URL(`http://${value}/`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why the request's Host or X-Forwarded-Host is refused (400), or null. Remix builds the
 * request's URL from them (the hostname from Host, a port from either) and throws on one that is
 * not an authority ("a%b", "[::1", a port past 65535): a 500 with Express's error page. Node
 * itself refuses an HTTP/1.1 request without Host.
 */
function hostRefusal(headers) {
  if (headers.host !== undefined && !isAuthority(headers.host))
    return "the Host header is not a host name or address with an optional port";
  const forwarded = headers["x-forwarded-host"];
  if (
    forwarded !== undefined &&
    !String(forwarded)
      .split(",")
      .every((value) => isAuthority(value.trim()))
  )
    return "X-Forwarded-Host is not a list of host names or addresses with optional ports";
  return null;
}

/**
 * The path as the router reads it, for the checks that guard its routes: percent-decoding
 * undone, repeated slashes as one, and in lower case, since Remix matches routes without regard
 * to case ("/APP/settings", "/app%2Fsettings" and "//app/settings" reach the same action).
 * Called only on a target whose encoding targetRefusal found valid.
 */
function routedPath(target) {
  return decodeURIComponent(pathOf(target))
    .replace(/\/{2,}/g, "/")
    .toLowerCase();
}

/** A 400 with its reason in words, ending the connection: a client that sends such targets gets no next request. */
function refuseTarget(response, reason) {
  const body = `${reason}\n`;
  response
    .writeHead(400, {
      "content-type": "text/plain; charset=utf-8",
      "content-length": Buffer.byteLength(body),
      connection: "close",
    })
    .end(body);
}

/**
 * A refusal written while its request's body is still arriving (a 413 on a declared or counted
 * length, a 429, a 408) closes the connection. Closed at once, the bytes still coming in make
 * the kernel answer with a reset, which can discard the answer before the client has read it:
 * the client sees a dropped connection, not the refusal. So such a close ends our side only, and
 * what the client still sends is read and dropped until it stops, for at most DRAIN_MS and
 * DRAIN_MAX_BYTES (a client that keeps sending past them is cut off), then the socket closes.
 */
const DRAIN_MS = 10_000;
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

/** Ends our side of `socket` once its answer is out, reads and drops what still comes (bounded), then closes it. */
function drainThenClose(socket) {
  socket.end();
  let bytes = 0;
  const close = () => socket.destroy();
  const timer = setTimeout(close, DRAIN_MS);
  timer.unref();
  socket.on("data", (chunk) => {
    if ((bytes += chunk.length) > DRAIN_MAX_BYTES) close();
  });
  socket.once("end", close);
  socket.once("close", () => clearTimeout(timer));
  socket.resume();
}

/** Node closes a connection after an answer with `connection: close` through destroySoon: drained first when its body is unread. */
function drainBeforeClose(socket, requestOf) {
  const destroySoon = socket.destroySoon;
  socket.destroySoon = function drainThenDestroy() {
    const request = requestOf.get(socket);
    if (!request || request.complete || socket.destroyed) return destroySoon.call(socket);
    request.resume();
    drainThenClose(socket);
  };
}

/** What Node answers, with its status line alone, to what its parser refuses; every other error a bare 400. */
const CLIENT_ERROR_STATUS = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/**
 * What Node's parser refuses before there is a request (a target with spaces or control
 * characters, none at all, a line that is no request line) gets the answer Node gives it, with a
 * 400's reason in words; so do Node's other refusals (a request too slow: 408), unchanged. As
 * Node does, nothing is written once an answer on the socket has begun (`answers`: the socket's
 * answers not yet done), and the connection ends.
 */
function answerClientError(error, socket, answers) {
  const begun = [...(answers.get(socket) ?? [])].some((response) => response.headersSent);
  if (socket.writable && !begun) {
    const status = CLIENT_ERROR_STATUS[error.code] ?? 400;
    const reason =
      status !== 400 ? "" : error.code === "HPE_INVALID_URL" ? "malformed request target\n" : "malformed request\n";
    const length = reason ? `content-type: text/plain; charset=utf-8\r\ncontent-length: ${reason.length}\r\n` : "";
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nconnection: close\r\n${length}\r\n${reason}`);
    // A request too slow may still be sending its body: the 408 is read before the close.
    if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") return drainThenClose(socket);
  }
  socket.destroy(error);
}

/** The app's pages, which take form posts: the embedded admin, login and the OAuth paths. */
const PAGES = /^\/(?:$|app(?:[/.?]|$)|auth(?:[/?]|$))/;

/**
 * A form posted to one of the app's pages from another site is refused with 403. Remix aborts
 * the same request (its CSRF check: the Origin's host against X-Forwarded-Host, else Host), but
 * answers 500, which looks like the app failing. The same rule, as a 4xx with a reason.
 */
function refuseCrossOriginForms(request, response, next) {
  if (!["POST", "PUT", "PATCH", "DELETE"].includes(request.method) || !PAGES.test(routedPath(request.url)))
    return next();
  const origin = request.headers.origin;
  if (!origin || origin === "null") return next();
  let originHost;
  try {
    originHost = new URL(origin).host;
  } catch {
    originHost = null;
  }
  const forwarded = request.headers["x-forwarded-host"]?.split(",")[0]?.trim();
  if (originHost !== null && originHost === (forwarded || request.headers.host)) return next();
  response.status(403).type("text/plain").send("a form from another site cannot be posted to this app");
}

/** Remix and the intake lanes, on PORT. */
async function serve(app) {
  const handler = express();
  handler.disable("x-powered-by");
  handler.use(compression());
  const [assets, at] = app.assets(express);
  if (at) handler.use(at, assets);
  else handler.use(assets);
  handler.use(express.static("public", { maxAge: "1h" }));
  // The access log: one JSON line per request (app/platform/access-log.server.ts) with its method,
  // path, status, length and time, never the query. The query carries what must not be written
  // down: Shopify's session token (id_token) on every embedded page load, the app proxy's
  // signature and logged_in_customer_id, OAuth's hmac and code. Morgan times the answer; the
  // app's logger writes the line (a format that returns nothing writes nothing of its own).
  const { logRequest } = entry.module;
  handler.use(
    morgan((tokens, request, response) => {
      const length = Number(tokens.res(request, response, "content-length"));
      logRequest({
        method: request.method,
        path: pathOf(request.originalUrl ?? request.url),
        status: response.statusCode,
        bytes: Number.isFinite(length) ? length : undefined,
        ms: Number(tokens["response-time"](request, response) ?? 0),
      });
      return null;
    }),
  );
  handler.use(refuseCrossOriginForms);
  // Production reads its build once; development asks Vite for the app as it is now at each
  // request (Remix then derives its routes again).
  const built = dev ? undefined : await app.build();
  // Each request runs in its merchant's language (Shopify admin's `locale`, else the browser's),
  // loaders, actions and the page's render alike (app/i18n/translators.server.ts).
  handler.use((request, response, next) => {
    Promise.resolve(built ?? app.build()).then(
      (build) =>
        build.entry.module.runInRequestLocale(
          request.originalUrl ?? request.url,
          next,
          request.headers["accept-language"],
        ),
      next,
    );
  });
  handler.all(
    "*",
    createRequestHandler({
      build: built ?? app.build,
      mode: process.env.NODE_ENV,
      // The connection's peer, which Remix's Request does not carry: the webhook routes count
      // body bytes against it, as the lanes do (app/platform/network-source.ts, peerSource).
      getLoadContext: (request) => ({ peerAddress: request.socket.remoteAddress }),
    }),
  );

  /**
   * A webhook path's lane (app/verification/intake-lanes.server.ts) answers it, refusing all but
   * POST, and counts its answer; Remix the rest, and the answers of the webhook routes it serves
   * are counted once written (app/webhooks/remix-answers.server.ts).
   */
  const route = (build, request, response) => {
    // Every spelling of a webhook path the router serves takes its lane, and is counted.
    const path = routedPath(request.url);
    const lane = build.entry.module.intakeLanes[path];
    if (lane) return void lane(request, response);
    if (path.startsWith("/webhooks/"))
      response.once("finish", () => build.entry.module.countWebhookAnswer(path, response.statusCode));
    handler(request, response);
  };
  /** Set once a stop signal arrives: every answer from then on closes its connection. */
  let stopping = false;
  /** Each socket's answers not yet done (more than one when requests are pipelined), for answerClientError. */
  const answers = new WeakMap();
  /** Each socket's latest request, whose body a refusal may leave unread (drainBeforeClose). */
  const latestRequest = new WeakMap();
  const server = createServer(SERVER_TIMEOUTS, (request, response) => {
    latestRequest.set(request.socket, request);
    let open = answers.get(request.socket);
    if (!open) answers.set(request.socket, (open = new Set()));
    open.add(response);
    response.once("close", () => open.delete(response));
    // A client (a load balancer) that kept this connection open sends its next request over a
    // new one, which goes to an instance that is not stopping.
    if (stopping) response.setHeader("connection", "close");
    const refusal = targetRefusal(request.url ?? "") ?? hostRefusal(request.headers);
    if (refusal) {
      entry.module.logger.warn("request.refused", refusal, { method: request.method });
      return refuseTarget(response, refusal);
    }
    if (built) return route(built, request, response);
    // A module that does not compile is the developer's to see, not a reason to stop serving.
    app.build().then(
      (build) => route(build, request, response),
      (error) => {
        console.error(error);
        response.writeHead(500, { "content-type": "text/plain" }).end(String(error));
      },
    );
  });

  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.on("clientError", (error, socket) => answerClientError(error, socket, answers));
  server.on("connection", (socket) => drainBeforeClose(socket, latestRequest));

  const port = Number(process.env.PORT ?? 3000);
  // Shopify's CLI sets HOST to the app's public URL in development: an address, not a URL, is one to listen on.
  const host = process.env.HOST && !/^[a-z]+:\/\//i.test(process.env.HOST) ? process.env.HOST : undefined;
  const { logger } = entry.module;
  const onListen = () =>
    logger.info("server.listening", `http://${host ?? "localhost"}:${port}${dev ? " (development)" : ""}`, {
      port,
      host: host ?? null,
    });
  // Without HOST, every interface (IPv4 and IPv6), as remix-serve listens.
  if (host) server.listen(port, host, onListen);
  else server.listen(port, onListen);
  // A stop, in three steps, so that no request another instance could take is refused:
  // 1. at once, /readyz answers 503 and the worker is told to stop (background.server.ts), while
  //    everything is still served, each answer closing its connection;
  // 2. after SHUTDOWN_DELAY_MS (time for a load balancer polling readiness to send the next
  //    requests elsewhere; 0 where the platform stops routing before it signals), the server
  //    stops accepting connections and closes its idle ones;
  // 3. answers in flight get a grace period, then any connection still open is closed, so a
  //    stop never waits out a keep-alive (KEEP_ALIVE_TIMEOUT_MS); once none is left, the
  //    instance closes its database and the process ends.
  const SHUTDOWN_GRACE_MS = 2_000;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const delayMs = entry.module.beginShutdown();
    setTimeout(() => {
      // Once the last connection has gone: the background work stopped, the database closed.
      server.close(() =>
        entry.module
          .endInstance()
          .catch((error) =>
            entry.module.logger.error("instance.stop_failed", "the instance did not stop cleanly", { error }),
          ),
      );
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
    }, delayMs);
  };
  for (const signal of ["SIGTERM", "SIGINT"]) process.once(signal, stop);
}

/** @param {string | undefined} target */
function pathOf(target) {
  const query = target?.indexOf("?") ?? -1;
  return query === -1 ? (target ?? "/") : target.slice(0, query);
}
