// The app's server, in production (`npm start`: node server.mjs <server build>) and in
// development (`npm run dev`, through shopify.web.toml: node server.mjs --dev). Both run the
// same arrangement: what remix-serve does (assets, compression, an access log, Remix's request
// handler), webhook intake answered on Node's own request before Remix sees it
// (app/webhooks/node-lane.server.ts, decision 015), and the verification worker on a thread of
// its own (decision 019), which runs this same script, loads the same app and serves nothing.
// Development differs only in where the app comes from: Vite compiles it from app/ on demand
// (and reloads it on change) instead of reading the build.
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

/** The server's arguments: its command line, or on the worker's thread what the main thread was given. */
const args = isMainThread ? process.argv.slice(2) : workerData.serverArgs;
const dev = args.includes("--dev");
process.env.NODE_ENV = process.env.NODE_ENV ?? (dev ? "development" : "production");

const app = dev ? await appFromSource() : await appFromBuild(args[0] ?? "build/server/index.js");
installGlobals({ nativeFetch: (await app.build()).future.v3_singleFetch });
if (isMainThread) {
  (await app.build()).entry.module.startWorkerThread(new URL(import.meta.url), args);
  await serve(app);
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

/** Remix and the intake lanes, on PORT. */
async function serve(app) {
  const handler = express();
  handler.disable("x-powered-by");
  handler.use(compression());
  const [assets, at] = app.assets(express);
  if (at) handler.use(at, assets);
  else handler.use(assets);
  handler.use(express.static("public", { maxAge: "1h" }));
  handler.use(morgan("tiny"));
  // Production reads its build once; development asks Vite for the app as it is now at each
  // request (Remix then derives its routes again).
  const built = dev ? undefined : await app.build();
  handler.all("*", createRequestHandler({ build: built ?? app.build, mode: process.env.NODE_ENV }));

  /** A webhook path's lane (app/verification/intake-lanes.server.ts) answers it, refusing all but POST; Remix the rest. */
  const route = (build, request, response) => {
    const lane = build.entry.module.intakeLanes[pathOf(request.url)];
    if (lane) void lane(request, response);
    else handler(request, response);
  };
  const server = createServer((request, response) => {
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

  const port = Number(process.env.PORT ?? 3000);
  // Shopify's CLI sets HOST to the app's public URL in development: an address, not a URL, is one to listen on.
  const host = process.env.HOST && !/^[a-z]+:\/\//i.test(process.env.HOST) ? process.env.HOST : undefined;
  const onListen = () => console.log(`[server] http://${host ?? "localhost"}:${port}${dev ? " (development)" : ""}`);
  // Without HOST, every interface (IPv4 and IPv6), as remix-serve listens.
  if (host) server.listen(port, host, onListen);
  else server.listen(port, onListen);
  for (const signal of ["SIGTERM", "SIGINT"]) process.once(signal, () => server.close());
}

/** @param {string | undefined} target */
function pathOf(target) {
  const query = target?.indexOf("?") ?? -1;
  return query === -1 ? (target ?? "/") : target.slice(0, query);
}
