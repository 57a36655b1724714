// Sandbox-only management API (not part of the contract, no key needed): it stands in for the
// creator side of the real service, and lets tests look inside and break things on purpose.
import { CLICK_ID_PARAM } from "../../app/attribution/cart-attributes";
import { ChaosFaults, parseChaosPlan } from "./chaos";
import { parseFault } from "./faults";
import { field, readJsonObject, sendError, sendJson } from "./http-io";
import type { RouteContext } from "./router";
import { toClickRecord, type StoredClick } from "./state";

export function createApiKey({ res, state }: RouteContext): void {
  sendJson(res, 201, { apiKey: state.createApiKey() });
}

export function revokeApiKey({ res, state, tail }: RouteContext): void {
  let key: string;
  try {
    key = decodeURIComponent(tail);
  } catch {
    return sendError(res, 404, "API key not found");
  }
  // The message never repeats the key: error bodies end up in logs.
  if (!state.revokeApiKey(key)) return sendError(res, 404, "API key not found");
  sendJson(res, 204, null);
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

export async function createClick(ctx: RouteContext): Promise<void> {
  const { res, state } = ctx;
  const raw = await readJsonObject(ctx.req, res);
  if (!raw) return;
  const body = raw.body;
  const expectedTag = field(body, "expectedTag");
  const creatorId = field(body, "creatorId");
  const clickId = field(body, "clickId");
  const timestamp = field(body, "timestamp");
  const referrer = field(body, "referrer");
  const geo = field(body, "geo");
  if (typeof expectedTag !== "string") return sendError(res, 400, "expectedTag must be a string");
  if (typeof creatorId !== "string" || creatorId === "")
    return sendError(res, 400, "creatorId must be a non-empty string");
  if (clickId !== undefined && (typeof clickId !== "string" || clickId === "")) {
    return sendError(res, 400, "clickId must be a non-empty string");
  }
  if (
    timestamp !== undefined &&
    (typeof timestamp !== "string" || !ISO_8601.test(timestamp) || Number.isNaN(Date.parse(timestamp)))
  ) {
    return sendError(res, 400, "timestamp must be an ISO 8601 date-time with a time zone");
  }
  if (referrer !== undefined && referrer !== null && typeof referrer !== "string") {
    return sendError(res, 400, "referrer must be a string or null");
  }
  const parsedGeo = parseGeo(geo);
  if (parsedGeo === "invalid")
    return sendError(res, 400, "geo must be null or an object of string country, city, region");

  const id = (clickId as string | undefined) ?? state.newClickId();
  if (state.clicks.has(id)) return sendError(res, 409, "clickId already exists");
  const click: StoredClick = {
    clickId: id,
    expectedTag,
    creatorId,
    timestamp: timestamp === undefined ? state.clock().toISOString() : new Date(timestamp as string).toISOString(),
    status: "pending",
    referrer: (referrer as string | null | undefined) ?? null,
    geo: parsedGeo,
  };
  state.clicks.set(id, click);
  sendJson(res, 201, toClickRecord(click));
}

function parseGeo(geo: unknown): StoredClick["geo"] | "invalid" {
  if (geo === undefined || geo === null) return null;
  if (typeof geo !== "object" || Array.isArray(geo)) return "invalid";
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(geo)) {
    if (!["country", "city", "region"].includes(key) || typeof value !== "string") return "invalid";
    out[key] = value;
  }
  return out;
}

export function listVerifications({ res, state, query }: RouteContext): void {
  const clickId = query.get("click_id");
  const verifications =
    clickId === null ? state.verifications : state.verifications.filter((v) => v.clickId === clickId);
  sendJson(res, 200, { verifications });
}

export function listRequests({ res, state, query }: RouteContext): void {
  sendJson(res, 200, { requests: state.requestsFor({ path: query.get("path"), clickId: query.get("click_id") }) });
}

/**
 * GET /sandbox/links/{creatorId}?tag=T&to=URL[&param=P]: a creator's tracked link, as a shopper
 * follows it. Records a click for the creator with T as its expected tag, then sends the browser
 * on to URL with the click id (`lb_click`) and the tag (under P, "tag" by default) added to its
 * query: the redirect every affiliate link makes. Only http(s) destinations are followed.
 */
export function followLink(ctx: RouteContext): void {
  const { res, state, query } = ctx;
  let creatorId: string;
  try {
    creatorId = decodeURIComponent(ctx.tail);
  } catch {
    return sendError(res, 404, "creator not found");
  }
  const tag = query.get("tag");
  const param = query.get("param") ?? "tag";
  let to: URL;
  try {
    to = new URL(query.get("to") ?? "");
  } catch {
    return sendError(res, 400, "to must be an absolute URL");
  }
  if (to.protocol !== "http:" && to.protocol !== "https:") return sendError(res, 400, "to must be an http(s) URL");
  if (!tag) return sendError(res, 400, "tag is required");
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(param)) return sendError(res, 400, "param must be a parameter name");
  const click: StoredClick = {
    clickId: state.newClickId(),
    expectedTag: tag,
    creatorId,
    timestamp: state.clock().toISOString(),
    status: "pending",
    referrer: typeof ctx.req.headers.referer === "string" ? ctx.req.headers.referer : null,
    geo: null,
  };
  state.clicks.set(click.clickId, click);
  to.searchParams.append(CLICK_ID_PARAM, click.clickId);
  to.searchParams.append(param, tag);
  res.writeHead(302, { location: to.href, "cache-control": "no-store" });
  res.end();
}

// A year: far past any click's lifetime, and small enough that no date overflows.
const MAX_AGE_MINUTES = 525_600;

/** POST /sandbox/clicks/{clickId}/age {"minutes": N}: the click now looks N minutes older. */
export async function ageClick(ctx: RouteContext): Promise<void> {
  const { res, state } = ctx;
  let clickId: string;
  try {
    clickId = decodeURIComponent(ctx.tail);
  } catch {
    return sendError(res, 404, "click not found");
  }
  const raw = await readJsonObject(ctx.req, res);
  if (!raw) return;
  const minutes = field(raw.body, "minutes");
  if (typeof minutes !== "number" || !Number.isFinite(minutes) || minutes <= 0 || minutes > MAX_AGE_MINUTES) {
    return sendError(res, 400, `minutes must be a number greater than 0 and at most ${MAX_AGE_MINUTES}`);
  }
  const click = state.ageClick(clickId, minutes);
  if (!click) return sendError(res, 404, "click not found");
  sendJson(res, 200, toClickRecord(click));
}

export function clearRequests({ res, state }: RouteContext): void {
  state.requests.length = 0;
  sendJson(res, 204, null);
}

export async function addFault(ctx: RouteContext): Promise<void> {
  const raw = await readJsonObject(ctx.req, ctx.res);
  if (!raw) return;
  const parsed = parseFault(raw.body);
  if (!parsed.ok) return sendError(ctx.res, 400, parsed.message);
  ctx.state.faults.push(parsed.fault);
  sendJson(ctx.res, 201, { fault: parsed.fault });
}

export function clearFaults({ res, state }: RouteContext): void {
  state.faults = [];
  sendJson(res, 204, null);
}

/** POST /sandbox/chaos: from now on a share of merchant calls get a random fault (see chaos.ts). */
export async function startChaos(ctx: RouteContext): Promise<void> {
  const raw = await readJsonObject(ctx.req, ctx.res);
  if (!raw) return;
  const parsed = parseChaosPlan(raw.body);
  if (!parsed.ok) return sendError(ctx.res, 400, parsed.message);
  ctx.state.chaos = new ChaosFaults(parsed.plan);
  sendJson(ctx.res, 201, { plan: parsed.plan });
}

/** GET /sandbox/chaos: the running plan and the faults it injected so far, by kind. */
export function chaosStatus({ res, state }: RouteContext): void {
  sendJson(res, 200, { plan: state.chaos?.plan ?? null, injected: state.chaos?.injected ?? null });
}

/** DELETE /sandbox/chaos: calls go through untouched again. */
export function stopChaos({ res, state }: RouteContext): void {
  state.chaos = null;
  sendJson(res, 204, null);
}

/** GET /sandbox/call-counts?path=P: calls to P per click id, faulted and dropped ones included. */
export function callCounts({ res, state, query }: RouteContext): void {
  const path = query.get("path");
  if (!path) return sendError(res, 400, "path is required");
  sendJson(res, 200, { path, counts: state.callCounts(path) });
}
