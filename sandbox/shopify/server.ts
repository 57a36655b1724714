// A Shopify stand-in for development and tests: the Admin GraphQL endpoint (validated against
// the real Admin schema), token exchange, and a small management API under /standin/.
// Plain node:http; everything is in memory and lost on close().
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { GraphQLError, getOperationAST, parse, validate, type DocumentNode } from "graphql";
import { listen } from "../listen";
import { seededRandom, type Random } from "../seeded-random";
import { queryCost, runOperation } from "./execute";
import { DEFAULT_API_VERSION, hasAdminSchema, loadAdminSchema } from "./schema";
import { readBody, send } from "./http";
import { payoutState } from "./payouts";
import { ShopifyStandinStore, THROTTLE, type OrderRecord, type ShopState } from "./store";
import { tokenEndpoint } from "./token-endpoint";
import { offlineTokenBody, type IssueOptions, type TokenRecord } from "./tokens";

export interface ShopifyStandinOptions {
  port?: number;
  host?: string;
  /** Default API version (the one management reads use); any vendored version is served. */
  apiVersion?: string;
  /** Milliseconds since epoch: token issue and expiry, session-token checks, the throttle
   * bucket's restore and every recorded time. Tests share one clock with the click sandbox. */
  clock?: () => number;
  /** Status for a document that fails validation: 200 with an `errors` array as Shopify answers
   * (the default), or 400 for a caller that wants it to fail louder. */
  invalidQueryStatus?: 200 | 400;
  /** The app's client secret (verifies session tokens and client_secret). */
  appSecret?: string;
  /** The app's client id (API key). */
  apiKey?: string;
  /** The scopes an install grants (the app's shopify.app.toml); read_orders,write_orders by default. */
  scopes?: string;
  /** Every shop's Shop.ianaTimezone and currencyCode (default UTC, USD); store.shop(d) sets one shop's. */
  shopProfile?: { ianaTimezone: string; currencyCode: string };
}

export interface RecordedRequest {
  at: string;
  method: string;
  path: string;
  shop: string | null;
  status: number;
  kind: "graphql" | "token" | "standin" | "other";
  operationName?: string | null;
  query?: string;
  variables?: unknown;
  validationErrors?: string[];
  fault?: "throttle" | "server-error" | "lost-answer";
}

export interface ValidationFailure {
  at: string;
  shop: string | null;
  apiVersion: string;
  query: string;
  errors: string[];
}

export interface FaultPlan {
  /** Answer the next N GraphQL calls with a GraphQL THROTTLED error (HTTP 200). */
  throttle?: number;
  /** Answer the next N GraphQL calls with a 5xx. */
  serverError?: number;
  /** Status for serverError faults (default 500). */
  status?: number;
  /** Apply the next N GraphQL calls, then answer them with a 5xx: the answer lost after Shopify acted. */
  loseAnswer?: number;
  /** Only calls of this operation (by name) meet the throttle, serverError and loseAnswer faults; any call when unset. */
  operation?: string;
  /** Refuse the next N refresh_token grants (400 invalid_grant unless refreshStatus says otherwise). */
  refreshFailures?: number;
  /** Status for refreshFailures: 400 (default, invalid_grant) or a 5xx (the token endpoint failing). */
  refreshStatus?: number;
}

/** Probabilistic faults for chaos runs, drawn from a seeded random source so a run can be replayed. */
export interface StandinChaosPlan {
  seed: number;
  /** Share of GraphQL mutations answered THROTTLED (not applied), from 0 to 1. */
  throttleMutations: number;
  /** Share of the mutations applied whose answer is then lost (a 502 after Shopify acted), from 0 to 1. */
  loseMutationAnswers?: number;
}

export interface ShopifyStandin {
  url: string;
  port: number;
  apiVersion: string;
  apiKey: string;
  appSecret: string;
  store: ShopifyStandinStore;
  close(): Promise<void>;
  /** Create an order from a REST-shaped payload (see order-payload.ts). */
  createOrder(shop: string, payload: Record<string, unknown>): OrderRecord;
  /** Issue an access token without token exchange (for stored sessions in tests);
   * `expiring: true` gives an expiring offline token with its refresh token. */
  issueToken(shop: string, options?: IssueOptions): TokenRecord;
  faults(plan: FaultPlan): void;
  /** Starts (or with null stops) probabilistic faults. */
  chaos(plan: StandinChaosPlan | null): void;
  /** Faults the chaos plan injected so far, by kind. */
  faultsInjected(): { throttle: number; "mutation-answer-lost": number };
  requests(): RecordedRequest[];
  validationFailures(): ValidationFailure[];
  clearRequests(): void;
}

const INVALID_TOKEN = "[API] Invalid API key or access token (unrecognized login or wrong password)";

export async function startShopifyStandin(options: ShopifyStandinOptions = {}): Promise<ShopifyStandin> {
  const clock = options.clock ?? Date.now;
  const apiVersion = options.apiVersion ?? DEFAULT_API_VERSION;
  const appSecret = options.appSecret ?? process.env.SHOPIFY_API_SECRET ?? "standin-secret";
  const apiKey = options.apiKey ?? process.env.SHOPIFY_API_KEY ?? "standin-api-key";
  if (!hasAdminSchema(apiVersion)) throw new Error(`No vendored Admin schema for ${apiVersion}`);
  loadAdminSchema(apiVersion); // fail fast and pay the build cost once, up front
  const store = new ShopifyStandinStore(clock);
  store.grantedScopes = options.scopes;
  if (options.shopProfile) store.shopDefaults = { ...options.shopProfile };
  const log: RecordedRequest[] = [];
  const validationFailures: ValidationFailure[] = [];
  const pending = {
    throttle: 0,
    serverError: 0,
    loseAnswer: 0,
    status: 500,
    operation: null as string | null,
    refreshFailures: 0,
    refreshStatus: 400,
  };
  const invalidQueryStatus = options.invalidQueryStatus ?? 200;
  let chaos: { plan: StandinChaosPlan; random: Random } | null = null;
  const injected = { throttle: 0, "mutation-answer-lost": 0 };
  const tokens = tokenEndpoint({ store, clock, apiKey, appSecret, pending, record });

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        send(res, 500, { errors: `Stand-in failure: ${error instanceof Error ? error.message : String(error)}` });
      else res.end();
    });
  });

  function record(entry: Omit<RecordedRequest, "at">) {
    log.push({ at: new Date(clock()).toISOString(), ...entry });
  }

  function shopOf(req: IncomingMessage, url: URL): string | null {
    const header = req.headers["x-shopify-standin-shop"];
    if (typeof header === "string" && header) return header.toLowerCase();
    const host = (req.headers.host ?? "").split(":")[0]!.toLowerCase();
    if (host.endsWith(".myshopify.com")) return host;
    const param = url.searchParams.get("shop");
    return param ? param.toLowerCase() : null;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://standin.invalid");
    const shop = shopOf(req, url);
    const graphqlMatch = /^\/admin\/api\/([^/]+)\/graphql\.json$/.exec(url.pathname);
    if (graphqlMatch && req.method === "POST") return graphqlEndpoint(req, res, url, shop, graphqlMatch[1]!);
    if (url.pathname === "/admin/oauth/access_token" && req.method === "POST") return tokens(req, res, url, shop);
    if (url.pathname.startsWith("/standin/")) return management(req, res, url, shop);
    record({ method: req.method ?? "GET", path: url.pathname, shop, status: 404, kind: "other" });
    send(res, 404, { errors: "Not Found" });
  }

  async function graphqlEndpoint(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    shopHint: string | null,
    version: string,
  ) {
    const base = { method: "POST", path: url.pathname, shop: shopHint, kind: "graphql" as const };
    const rawBody = await readBody(req);
    if (!hasAdminSchema(version)) {
      record({ ...base, status: 404 });
      return send(res, 404, { errors: "Not Found" });
    }
    const token = store.tokens.valid(String(req.headers["x-shopify-access-token"] ?? ""), shopHint);
    if (!token) {
      record({ ...base, status: 401 });
      return send(res, 401, { errors: INVALID_TOKEN });
    }
    const shop = store.shop(token.shop);
    base.shop = shop.domain;
    let body: { query?: unknown; variables?: unknown; operationName?: unknown };
    try {
      body = JSON.parse(rawBody.toString("utf8") || "{}");
    } catch {
      record({ ...base, status: 400 });
      return send(res, 400, { errors: { query: "Required parameter missing or invalid" } });
    }
    if (typeof body.query !== "string" || !body.query.trim()) {
      record({ ...base, status: 400 });
      return send(res, 400, { errors: { query: "Required parameter missing or invalid" } });
    }
    const query = body.query;
    const variables = (body.variables && typeof body.variables === "object" ? body.variables : undefined) as
      Record<string, unknown> | undefined;
    const schema = loadAdminSchema(version);
    let document: DocumentNode | undefined;
    let errors: readonly GraphQLError[];
    try {
      document = parse(query);
      errors = validate(schema, document);
    } catch (error) {
      errors = [error instanceof GraphQLError ? error : new GraphQLError(String(error))];
    }
    const operation =
      document && errors.length === 0
        ? getOperationAST(document, typeof body.operationName === "string" ? body.operationName : undefined)
        : null;
    if (document && errors.length === 0 && !operation)
      errors = [new GraphQLError("An operation name is required when the document has several operations")];
    if (!document || errors.length > 0 || !operation) {
      const messages = errors.map((e) => e.message);
      validationFailures.push({
        at: new Date(clock()).toISOString(),
        shop: shop.domain,
        apiVersion: version,
        query,
        errors: messages,
      });
      record({ ...base, status: invalidQueryStatus, query, variables, validationErrors: messages });
      return send(res, invalidQueryStatus, {
        errors: errors.map((e) => ({ message: e.message, locations: e.locations, path: e.path })),
      });
    }
    const operationName = operation.name?.value ?? null;
    const requested = queryCost(schema, document, operation, variables);
    const faulted = pending.operation === null || pending.operation === operationName;
    if (pending.serverError > 0 && faulted) {
      pending.serverError -= 1;
      record({ ...base, status: pending.status, operationName, query, variables, fault: "server-error" });
      return send(
        res,
        pending.status,
        {
          errors: `Internal error. Looks like something went wrong on our end.\nRequest ID: ${randomUUID()} (include this in support requests).`,
        },
        { "X-Request-Id": randomUUID() },
      );
    }
    const available = store.bucketNow(shop);
    const chaosThrottle =
      chaos !== null && operation.operation === "mutation" && chaos.random() < chaos.plan.throttleMutations;
    const throttleNow = pending.throttle > 0 && faulted;
    if (throttleNow || chaosThrottle || requested > available) {
      const injectedNow = throttleNow || chaosThrottle;
      if (throttleNow) pending.throttle -= 1;
      if (chaosThrottle) injected.throttle += 1;
      record({ ...base, status: 200, operationName, query, variables, fault: injectedNow ? "throttle" : undefined });
      return send(res, 200, {
        errors: [
          {
            message: "Throttled",
            extensions: { code: "THROTTLED", documentation: "https://shopify.dev/api/usage/rate-limits" },
          },
        ],
        extensions: { cost: costExtension(requested, null, injectedNow ? 0 : available) },
      });
    }
    shop.bucket.available -= requested;
    const result = await runOperation(schema, document, operation, variables, { store, shop, token });
    const payload: Record<string, unknown> = {};
    if (result.errors?.length) {
      payload.errors = result.errors.map((e) => ({
        message: e.message,
        locations: e.locations,
        path: e.path,
        extensions: e.extensions && Object.keys(e.extensions).length ? e.extensions : undefined,
      }));
    }
    payload.data = result.data ?? null;
    payload.extensions = { cost: costExtension(requested, requested, shop.bucket.available) };
    const loseShare = chaos?.plan.loseMutationAnswers ?? 0;
    // Drawn only when the plan asks for it, so a plan without it replays as before.
    const chaosLose = loseShare > 0 && operation.operation === "mutation" && chaos!.random() < loseShare;
    if ((pending.loseAnswer > 0 && faulted) || chaosLose) {
      if (chaosLose) injected["mutation-answer-lost"] += 1;
      else pending.loseAnswer -= 1;
      record({ ...base, status: 502, operationName, query, variables, fault: "lost-answer" });
      return send(res, 502, { errors: "Bad Gateway" });
    }
    record({ ...base, status: 200, operationName, query, variables });
    send(res, 200, payload, { "X-Request-Id": randomUUID() });
  }

  async function management(req: IncomingMessage, res: ServerResponse, url: URL, shop: string | null) {
    const method = req.method ?? "GET";
    const done = (status: number, body: unknown) => {
      record({ method, path: url.pathname, shop, status, kind: "standin" });
      send(res, status, body);
    };
    const json = async () => {
      const raw = (await readBody(req)).toString("utf8");
      return raw ? (JSON.parse(raw) as Record<string, any>) : {};
    };
    if (url.pathname === "/standin/orders" && method === "POST") {
      const body = await json();
      const payload = (body.order ?? body) as Record<string, unknown>;
      const target = (body.shop as string | undefined) ?? shop;
      if (!target) return done(400, { error: "shop required (?shop=, body.shop or X-Shopify-Standin-Shop)" });
      const order = store.createOrder(target, payload);
      return done(201, { order: orderSnapshot(store.shop(target), order) });
    }
    const orderMatch = /^\/standin\/orders\/([^/]+)$/.exec(url.pathname);
    if (orderMatch && method === "GET") {
      const found = store.findOrder(decodeURIComponent(orderMatch[1]!));
      if (!found || (shop && found.shop.domain !== shop)) return done(404, { error: "order not found" });
      return done(200, { order: orderSnapshot(found.shop, found.order) });
    }
    if (url.pathname === "/standin/requests" && method === "GET") {
      return send(res, 200, { requests: log, validationFailures });
    }
    if (url.pathname === "/standin/requests" && method === "DELETE") {
      log.length = 0;
      validationFailures.length = 0;
      return send(res, 204, null);
    }
    if (url.pathname === "/standin/faults" && method === "POST") {
      applyFaults(await json());
      return done(200, { pending: { ...pending } });
    }
    if (url.pathname === "/standin/chaos" && method === "POST") {
      const body = await json();
      if (!Number.isInteger(body.seed) || !(body.throttleMutations >= 0 && body.throttleMutations <= 1))
        return done(400, { error: "seed must be an integer and throttleMutations between 0 and 1" });
      startChaos({ seed: body.seed, throttleMutations: body.throttleMutations });
      return done(201, { plan: chaos?.plan });
    }
    if (url.pathname === "/standin/chaos" && method === "GET") {
      return done(200, { plan: chaos?.plan ?? null, injected });
    }
    if (url.pathname === "/standin/chaos" && method === "DELETE") {
      startChaos(null);
      return done(204, null);
    }
    if (url.pathname === "/standin/tokens" && method === "POST") {
      const body = await json();
      const target = (body.shop as string | undefined) ?? shop;
      if (!target) return done(400, { error: "shop required" });
      const issued = store.issueToken(target, { scope: body.scope, online: body.online, expiring: body.expiring });
      return done(201, { ...offlineTokenBody(issued, clock()), shop: issued.shop });
    }
    if (url.pathname === "/standin/discounts" && method === "POST") {
      const body = await json();
      const target = (body.shop as string | undefined) ?? shop;
      if (!target || typeof body.code !== "string" || !body.code) return done(400, { error: "shop and code required" });
      return done(201, { discount: store.ensureDiscount(target, body.code, body.title) });
    }
    if (url.pathname === "/standin/discounts" && method === "GET") {
      if (!shop) return done(400, { error: "shop required" });
      return done(200, { discounts: [...store.shop(shop).discounts.values()] });
    }
    // What App Bridge's scopes.request does once the merchant accepts: the optional scopes join the grant.
    if (url.pathname === "/standin/scopes" && method === "POST") {
      const body = await json();
      const target = (body.shop as string | undefined) ?? shop;
      if (!target || !Array.isArray(body.scopes) || !body.scopes.every((s: unknown) => typeof s === "string"))
        return done(400, { error: "shop and scopes (a list of handles) required" });
      store.grantScopes(target, body.scopes);
      return done(200, { granted: [...store.shop(target).grantedScopes] });
    }
    // What paying creators left in the shop, gift card codes included: Shopify holds them, and a
    // test reads them to prove they never reached the app's pages, logs or reports.
    if (url.pathname === "/standin/payouts" && method === "GET") {
      if (!shop) return done(400, { error: "shop required" });
      return done(200, payoutState(store.shop(shop)));
    }
    if (url.pathname === "/standin/app-installation" && method === "GET") {
      if (!shop) return done(400, { error: "shop required" });
      const state = store.shop(shop);
      return done(200, {
        id: state.appInstallationGid,
        metafields: store.metafieldsOf(state, state.appInstallationGid),
      });
    }
    if (url.pathname === "/standin/metafield-definitions" && method === "GET") {
      if (!shop) return done(400, { error: "shop required" });
      return done(200, { definitions: store.shop(shop).definitions });
    }
    done(404, { error: "unknown stand-in endpoint" });
  }

  function orderSnapshot(shop: ShopState, order: OrderRecord) {
    return {
      shop: shop.domain,
      id: order.id,
      admin_graphql_api_id: order.gid,
      name: order.name,
      tags: [...order.tags],
      tags_add_applied: order.tagsAddApplied,
      metafields: store
        .metafieldsOf(shop, order.gid)
        .map((m) => ({ namespace: m.namespace, key: m.key, type: m.type, value: m.value, updated_at: m.updatedAt })),
    };
  }

  function startChaos(plan: StandinChaosPlan | null) {
    chaos = plan ? { plan, random: seededRandom(plan.seed) } : null;
  }

  function applyFaults(plan: FaultPlan) {
    if (plan.throttle !== undefined) pending.throttle = Math.max(0, Math.floor(plan.throttle));
    if (plan.serverError !== undefined) pending.serverError = Math.max(0, Math.floor(plan.serverError));
    if (plan.loseAnswer !== undefined) pending.loseAnswer = Math.max(0, Math.floor(plan.loseAnswer));
    if (plan.throttle !== undefined || plan.serverError !== undefined || plan.loseAnswer !== undefined)
      pending.operation = plan.operation ?? null;
    if (plan.status !== undefined) pending.status = plan.status >= 500 && plan.status <= 599 ? plan.status : 500;
    if (plan.refreshFailures !== undefined) pending.refreshFailures = Math.max(0, Math.floor(plan.refreshFailures));
    if (plan.refreshStatus !== undefined)
      pending.refreshStatus = plan.refreshStatus >= 500 && plan.refreshStatus <= 599 ? plan.refreshStatus : 400;
  }

  const { url, port } = await listen(server, options.port, options.host);
  return {
    url,
    port,
    apiVersion,
    apiKey,
    appSecret,
    store,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
    createOrder: (shop, payload) => store.createOrder(shop, payload),
    issueToken: (shop, opts) => store.issueToken(shop, opts),
    faults: applyFaults,
    chaos: startChaos,
    faultsInjected: () => ({ ...injected }),
    requests: () => [...log],
    validationFailures: () => [...validationFailures],
    clearRequests: () => {
      log.length = 0;
      validationFailures.length = 0;
    },
  };

  function costExtension(requested: number, actual: number | null, currentlyAvailable: number) {
    return {
      requestedQueryCost: requested,
      actualQueryCost: actual,
      throttleStatus: {
        maximumAvailable: THROTTLE.maximumAvailable,
        currentlyAvailable: Math.max(0, Math.floor(currentlyAvailable)),
        restoreRate: THROTTLE.restoreRate,
      },
    };
  }
}
