// The app's production server (`npm start`): what remix-serve does (the built assets with long
// caching, compression, an access log, Remix's request handler), plus one thing it cannot: the
// webhook intake routes are answered on Node's own request before Remix sees them
// (app/webhooks/node-lane.server.ts, docs/throughput.md). Usage: node server.mjs <server build>.
// The verification worker runs on a thread of its own (WORKER_THREAD, decision 019): this same
// script on that thread loads the build, whose entry starts the worker, and serves nothing.
import fs from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import url from "node:url";
import { isMainThread, workerData } from "node:worker_threads";
import { createRequestHandler } from "@remix-run/express";
import { installGlobals } from "@remix-run/node";
import compression from "compression";
import express from "express";
import morgan from "morgan";
import sourceMapSupport from "source-map-support";

process.env.NODE_ENV = process.env.NODE_ENV ?? "production";
process.env.WORKER_THREAD = process.env.WORKER_THREAD ?? "true";

// Stack traces point into the app's sources, as under remix-serve.
sourceMapSupport.install({
  retrieveSourceMap(source) {
    if (!source.startsWith("file://")) return null;
    const mapPath = `${url.fileURLToPath(source)}.map`;
    return fs.existsSync(mapPath) ? { url: source, map: fs.readFileSync(mapPath, "utf8") } : null;
  },
});

const buildPath = path.resolve((isMainThread ? process.argv[2] : workerData.serverBuild) ?? "build/server/index.js");
const build = await import(url.pathToFileURL(buildPath).href);
installGlobals({ nativeFetch: build.future.v3_singleFetch });
if (isMainThread) {
  build.entry.module.startWorkerThread(new URL(import.meta.url), buildPath);
  serve(build);
}

/** Remix and the intake lanes, on PORT. */
function serve(build) {
  /** Webhook path to its lane (app/verification/intake-lanes.server.ts). */
  const lanes = build.entry.module.intakeLanes ?? {};

  const app = express();
  app.disable("x-powered-by");
  app.use(compression());
  app.use(build.publicPath, express.static(build.assetsBuildDirectory, { immutable: true, maxAge: "1y" }));
  app.use(express.static("public", { maxAge: "1h" }));
  app.use(morgan("tiny"));
  app.all("*", createRequestHandler({ build, mode: process.env.NODE_ENV }));

  const server = createServer((request, response) => {
    const lane = request.method === "POST" ? lanes[pathOf(request.url)] : undefined;
    if (lane) void lane(request, response);
    else app(request, response);
  });

  const port = Number(process.env.PORT ?? 3000);
  const onListen = () => console.log(`[server] http://${process.env.HOST ?? "localhost"}:${port}`);
  // Without HOST, every interface (IPv4 and IPv6), as remix-serve listens.
  if (process.env.HOST) server.listen(port, process.env.HOST, onListen);
  else server.listen(port, onListen);
  for (const signal of ["SIGTERM", "SIGINT"]) process.once(signal, () => server.close());
}

/** @param {string | undefined} target */
function pathOf(target) {
  const query = target?.indexOf("?") ?? -1;
  return query === -1 ? (target ?? "/") : target.slice(0, query);
}
