import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { matchRoutes } from "@remix-run/react";
import type { AppProcess } from "../../sandbox/demo/app-process";

// Every loader and action under app/routes is called at least once through the production
// server (server.mjs serving the build), and answers as it does when it works. A route's own
// test calls its module under Node's fetch globals, with no Express, no build and no server
// arrangement in front of it; what only the server has (its fetch globals, its middleware, its
// lanes) can then fail every merchant while every test passes, as "Check now" did.
//
// Two halves keep that true:
// - coversRoute, here, makes one call through the running server and fails unless the request
//   reaches the named route's loader or action (by the build's own route table and Remix's
//   matcher) and the answer is the success answer the caller states;
// - tests/structure/route-coverage.test.ts reads app/routes and every test of the "build"
//   project, and fails for each exported loader or action that no coversRoute call names.

export type RouteFunction = "loader" | "action";

export interface RouteCall {
  /** Path and query, as the caller sends them (Remix's `_data` for a data request). */
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | URLSearchParams;
}

export interface RouteAnswer {
  status: number;
  headers: Headers;
  text: string;
  json<T = any>(): T;
}

export interface SuccessAnswer {
  status: number;
  /** Required for a status outside 2xx and 3xx: why that is this route's success answer. */
  because?: string;
  /** What the answer must say beyond its status. */
  check?: (answer: RouteAnswer) => void | Promise<void>;
}

interface ManifestRoute {
  id: string;
  parentId?: string;
  path?: string;
  index?: boolean;
  caseSensitive?: boolean;
  hasLoader: boolean;
  hasAction: boolean;
}

/** Remix's route objects, as its matcher takes them. */
type RouteObject = Parameters<typeof matchRoutes>[0][number];

const ROOT = path.resolve(import.meta.dirname, "../..");
let routeTable: { routes: Record<string, ManifestRoute>; tree: RouteObject[] } | undefined;

/** The routes the build serves, from its manifest, and the tree Remix matches a path against. */
function builtRoutes() {
  if (routeTable) return routeTable;
  const assets = path.join(ROOT, "build/client/assets");
  const manifests = readdirSync(assets).filter((name) => /^manifest-[\w-]+\.js$/.test(name));
  if (manifests.length !== 1) throw new Error(`expected one route manifest in the build, found ${manifests.length}`);
  const text = readFileSync(path.join(assets, manifests[0]!), "utf8");
  const routes = (
    JSON.parse(text.slice(text.indexOf("=") + 1).replace(/;\s*$/, "")) as {
      routes: Record<string, ManifestRoute>;
    }
  ).routes;
  const childrenOf = (parentId: string | undefined): RouteObject[] =>
    Object.values(routes)
      .filter((route) => route.parentId === parentId)
      .map((route) =>
        route.index
          ? { id: route.id, index: true, path: route.path }
          : { id: route.id, path: route.path, caseSensitive: route.caseSensitive, children: childrenOf(route.id) },
      );
  routeTable = { routes, tree: childrenOf(undefined) };
  return routeTable;
}

/**
 * The route whose `fn` a request to `target` runs, as Remix's server picks it: the one `_data`
 * names, else the deepest match (for an action, an index route only with `?index`). A document
 * request runs its parents' loaders as well, but only a data request names which it covers.
 */
export function routeReached(target: URL, method: string): { id: string; route: ManifestRoute } {
  const { routes, tree } = builtRoutes();
  const matches = matchRoutes(tree, target.pathname) ?? [];
  const data = target.searchParams.get("_data");
  let id: string | undefined;
  if (data !== null) id = matches.find((match) => match.route.id === data)?.route.id;
  else {
    let leaf = matches.length - 1;
    if (method !== "GET" && method !== "HEAD" && matches[leaf]?.route.index && !target.searchParams.has("index"))
      leaf -= 1;
    id = matches[leaf]?.route.id;
  }
  if (!id) throw new Error(`no route of the build answers ${method} ${target.pathname}${target.search}`);
  return { id, route: routes[id]! };
}

const read = async (response: Response): Promise<RouteAnswer> => {
  const text = Buffer.from(await response.arrayBuffer()).toString("utf8");
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) };
};

/**
 * Calls `route`'s loader or action through the production server `app` and returns the answer,
 * once it is `success`. Throws when the request would reach another route, when the route has
 * no such function in the build, or when the answer is anything else.
 */
export async function coversRoute(
  app: AppProcess,
  route: `routes/${string}`,
  fn: RouteFunction,
  call: RouteCall,
  success: SuccessAnswer,
): Promise<RouteAnswer> {
  const method = (call.method ?? (fn === "loader" ? "GET" : "POST")).toUpperCase();
  if ((fn === "loader") !== (method === "GET" || method === "HEAD"))
    throw new Error(`a ${fn} is not reached with ${method}`);
  const target = new URL(call.path, app.url);
  if (target.origin !== new URL(app.url).origin) throw new Error(`${call.path} is not a path on the server`);
  const reached = routeReached(target, method);
  if (reached.id !== route) throw new Error(`${method} ${call.path} reaches ${reached.id}, not ${route}`);
  if (!(fn === "loader" ? reached.route.hasLoader : reached.route.hasAction))
    throw new Error(`${route} has no ${fn} in the build`);
  if ((success.status < 200 || success.status >= 400) && !success.because)
    throw new Error(`a ${success.status} is a success answer only with a reason (because)`);

  const answer = await read(
    await fetch(target, { method, headers: call.headers, body: call.body, redirect: "manual" }),
  );
  const shown = `${route} ${fn}: ${method} ${target.pathname} answered ${answer.status}: ${answer.text.slice(0, 500)}`;
  if (answer.status !== success.status) throw new Error(`${shown} (expected ${success.status})`);
  // Remix marks what a loader or action threw (X-Remix-Error): never a success answer.
  if (answer.headers.has("x-remix-error")) throw new Error(`${shown} (an error Remix caught)`);
  await success.check?.(answer);
  return answer;
}
