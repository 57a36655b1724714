// The sandbox Click Verification Service: the contract's two endpoints over plain node:http,
// plus a management API. Started in-process by tests and the demo, or by main.ts.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { LOOKUP_CLICK_PATH, VERIFY_CLICK_PATH } from "../../app/click-service/contract";
import { listen } from "../listen";
import { ChaosFaults, type ChaosFaultKind, type ChaosPlan } from "./chaos";
import { takeFault, type Fault } from "./faults";
import { field, parseJsonObject, readBody, sendError } from "./http-io";
import * as manage from "./management-routes";
import { lookupClick, verifyClick } from "./merchant-routes";
import { matchRoute, splitTarget, type Route } from "./router";
import { SandboxState, type RequestRecord, type StoredClick, type VerificationRecord } from "./state";

export interface ClickServiceOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** What "now" is for click lifetimes and record times; tests move it. */
  clock?: () => Date;
  /** One line per request; off unless given. Lines never contain an API key. */
  log?: (line: string) => void;
}

export interface RunningClickService {
  /** e.g. "http://127.0.0.1:40123", no trailing slash: the client's baseUrl. */
  url: string;
  port: number;
  state: SandboxState;
  createApiKey(): string;
  revokeApiKey(apiKey: string): boolean;
  /** In-process twin of POST /sandbox/clicks, without validation. */
  addClick(click: Partial<StoredClick> & { expectedTag: string; creatorId: string }): StoredClick;
  /** In-process twin of POST /sandbox/clicks/{clickId}/age; undefined for an unknown click. */
  ageClick(clickId: string, minutes: number): StoredClick | undefined;
  verifications(clickId?: string): VerificationRecord[];
  /** Merchant calls received, faulted and dropped ones too, e.g. every verify-click for one click. */
  requests(filter?: { path?: string; clickId?: string }): RequestRecord[];
  /** In-process twin of POST /sandbox/chaos (a plan) and DELETE /sandbox/chaos (null). */
  chaos(plan: ChaosPlan | null): void;
  /** Faults the chaos plan injected so far, by kind (all 0 without one). */
  faultsInjected(): Record<ChaosFaultKind, number>;
  /** Calls to a path per click id, faulted ones included; unlike requests(), never trimmed. */
  callCounts(path: string): Record<string, number>;
  close(): Promise<void>;
}

const ROUTES: readonly Route[] = [
  { path: LOOKUP_CLICK_PATH, methods: { GET: lookupClick } },
  { path: VERIFY_CLICK_PATH, methods: { POST: verifyClick } },
  { path: "/sandbox/api-keys", methods: { POST: manage.createApiKey } },
  { path: "/sandbox/api-keys/", prefix: true, methods: { DELETE: manage.revokeApiKey } },
  { path: "/sandbox/clicks", methods: { POST: manage.createClick } },
  { path: "/sandbox/clicks/", prefix: true, suffix: "/age", methods: { POST: manage.ageClick } },
  { path: "/sandbox/links/", prefix: true, methods: { GET: manage.followLink } },
  { path: "/sandbox/verifications", methods: { GET: manage.listVerifications } },
  { path: "/sandbox/requests", methods: { GET: manage.listRequests, DELETE: manage.clearRequests } },
  { path: "/sandbox/faults", methods: { POST: manage.addFault, DELETE: manage.clearFaults } },
  { path: "/sandbox/chaos", methods: { POST: manage.startChaos, GET: manage.chaosStatus, DELETE: manage.stopChaos } },
  { path: "/sandbox/call-counts", methods: { GET: manage.callCounts } },
];

export async function startClickService(options: ClickServiceOptions = {}): Promise<RunningClickService> {
  const state = new SandboxState(options.clock ?? (() => new Date()));
  const timers = new Set<NodeJS.Timeout>();
  const log = options.log;

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      // A handler bug must not take the process down; the caller still gets an answer.
      sendError(res, 500, "Internal sandbox error");
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const method = req.method ?? "GET";
    const { path, query } = splitTarget(req.url ?? "/");
    const isMerchantCall = path.startsWith("/api/");
    if (log) res.on("close", () => log(logLine(state, method, path, res, Date.now() - started)));

    const fault = takeFault(state.faults, method, path) ?? (isMerchantCall ? state.chaos?.draw(path) : undefined);
    let record: RequestRecord | undefined;
    if (isMerchantCall) {
      const ids = query.getAll("click_id");
      const entry: RequestRecord = {
        method,
        path,
        clickId: null,
        receivedAt: state.clock().toISOString(),
        status: 0,
        fault: fault !== undefined,
      };
      if (ids.length === 1 && ids[0] !== "") state.noteClick(entry, ids[0]!);
      state.record(state.requests, entry);
      res.on("finish", () => (entry.status = res.statusCode));
      record = entry;
    }
    if (fault?.after) holdAnswer(fault, req, res);
    else if (fault && (await applyFault(fault, req, res, record))) return;

    const match = matchRoute(ROUTES, path);
    if (!match) return sendError(res, 404, "Not found");
    const handler = match.route.methods[method];
    if (!handler) {
      return sendError(res, 405, "Method not allowed", { allow: Object.keys(match.route.methods).join(", ") });
    }
    await handler({ req, res, state, path, query, tail: match.tail, record });
  }

  function wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });
  }

  /**
   * The call is handled in full (and recorded); only its answer is then delayed or lost. The
   * handler's headers are not on the wire until end(), so holding end() holds the whole answer.
   */
  function holdAnswer(fault: Fault, req: IncomingMessage, res: ServerResponse): void {
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.end = ((...args: unknown[]) => {
      void (async () => {
        if (fault.delayMs > 0) await wait(fault.delayMs);
        if (fault.drop) req.socket.destroy();
        else if (!res.destroyed) end(...args);
      })();
      return res;
    }) as ServerResponse["end"];
  }

  /** Returns true when the fault answered (or killed) the request itself. */
  async function applyFault(
    fault: Fault,
    req: IncomingMessage,
    res: ServerResponse,
    record: RequestRecord | undefined,
  ): Promise<boolean> {
    const answersItself = fault.drop || fault.status !== undefined;
    // The handler never reads this body, so read it here, before any delay the client may not
    // sit out: the call still counts for its click.
    if (answersItself && record && record.clickId === null && req.method === "POST") {
      const clickId = await bodyClickId(req);
      if (clickId !== null) state.noteClick(record, clickId);
    }
    if (fault.delayMs > 0) {
      await wait(fault.delayMs);
      if (res.destroyed) return true;
    }
    if (!answersItself) return false;
    if (fault.drop) {
      req.socket.destroy();
      return true;
    }
    if (fault.status !== undefined) {
      req.resume();
      sendError(
        res,
        fault.status,
        fault.error ?? "Injected fault",
        fault.retryAfter ? { "retry-after": fault.retryAfter } : {},
      );
      return true;
    }
    return false;
  }

  // Unparseable requests (bad request line, oversized headers) still get a JSON answer.
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
    const body = JSON.stringify({ error: status === 431 ? "Request headers too large" : "Malformed HTTP request" });
    socket.end(
      `HTTP/1.1 ${status} ${status === 431 ? "Request Header Fields Too Large" : "Bad Request"}\r\n` +
        `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });

  const { url, port } = await listen(server, options.port, options.host);

  return {
    url,
    port,
    state,
    createApiKey: () => state.createApiKey(),
    revokeApiKey: (apiKey) => state.revokeApiKey(apiKey),
    addClick(click) {
      const stored: StoredClick = {
        clickId: click.clickId ?? state.newClickId(),
        timestamp: click.timestamp ?? state.clock().toISOString(),
        status: click.status ?? "pending",
        referrer: click.referrer ?? null,
        geo: click.geo ?? null,
        expectedTag: click.expectedTag,
        creatorId: click.creatorId,
      };
      state.clicks.set(stored.clickId, stored);
      return stored;
    },
    ageClick: (clickId, minutes) => state.ageClick(clickId, minutes),
    requests: (filter) => state.requestsFor(filter),
    chaos: (plan) => (state.chaos = plan ? new ChaosFaults(plan) : null),
    faultsInjected: () => ({ ...(state.chaos?.injected ?? new ChaosFaults({ seed: 0, rate: 0 }).injected) }),
    callCounts: (path) => state.callCounts(path),
    verifications: (clickId) =>
      clickId === undefined ? [...state.verifications] : state.verifications.filter((v) => v.clickId === clickId),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function bodyClickId(req: IncomingMessage): Promise<string | null> {
  const body = await readBody(req);
  if (!body.ok) return null;
  const parsed = parseJsonObject(body.text);
  const clickId = parsed.ok ? field(parsed.value, "click_id") : undefined;
  return typeof clickId === "string" && clickId !== "" ? clickId : null;
}

// Only method, path shape, status and time: never headers or query (where keys could travel).
function logLine(state: SandboxState, method: string, path: string, res: ServerResponse, ms: number): string {
  let safePath = path.startsWith("/sandbox/api-keys/") ? "/sandbox/api-keys/[redacted]" : path;
  for (const key of state.issuedKeys) safePath = safePath.split(key).join("[redacted]");
  const status = res.writableFinished ? String(res.statusCode) : "dropped";
  return `${method} ${safePath.slice(0, 200)} ${status} ${ms}ms`;
}
