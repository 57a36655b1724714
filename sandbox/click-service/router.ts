// A table of exact paths (plus one prefix) to per-method handlers: small enough to read in
// one glance, and it gives 404 vs 405-with-Allow for free.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestRecord, SandboxState } from "./state";

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  state: SandboxState;
  path: string;
  query: URLSearchParams;
  /** The rest of the path after a prefix route (before its suffix), still percent-encoded. */
  tail: string;
  /** The request log entry of a merchant call, so a handler can say which click it was about. */
  record?: RequestRecord;
}

export type Handler = (ctx: RouteContext) => void | Promise<void>;

export interface Route {
  path: string;
  /** When true, `path` is a prefix and the remainder (non-empty, no "/") lands in ctx.tail. */
  prefix?: boolean;
  /** With `prefix`: the path must end with this, and ctx.tail is what lies between the two. */
  suffix?: string;
  methods: Partial<Record<string, Handler>>;
}

export type Match = { route: Route; tail: string } | undefined;

export function matchRoute(routes: readonly Route[], path: string): Match {
  for (const route of routes) {
    if (!route.prefix && route.path === path) return { route, tail: "" };
    if (route.prefix && path.startsWith(route.path)) {
      const rest = path.slice(route.path.length);
      const suffix = route.suffix ?? "";
      if (!rest.endsWith(suffix)) continue;
      const tail = rest.slice(0, rest.length - suffix.length);
      if (tail !== "" && !tail.includes("/")) return { route, tail };
    }
  }
  return undefined;
}

/** Splits a request target without URL(), which would resolve "//host" or "/../" surprisingly. */
export function splitTarget(target: string): { path: string; query: URLSearchParams } {
  const q = target.indexOf("?");
  return {
    path: q < 0 ? target : target.slice(0, q),
    query: new URLSearchParams(q < 0 ? "" : target.slice(q + 1)),
  };
}
