// The OAuth token endpoint (POST /admin/oauth/access_token): token exchange and the
// refresh_token grant, with Shopify's error shape {"error", "error_description"}.
import type { IncomingMessage, ServerResponse } from "node:http";
import { readBody, send } from "./http";
import type { RecordedRequest } from "./server";
import { verifySessionToken } from "./session-token";
import type { ShopifyStandinStore } from "./store";
import { offlineTokenBody, TOKEN_LIFETIMES } from "./tokens";

const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
const REFRESH_GRANT = "refresh_token";

export interface TokenEndpointContext {
  store: ShopifyStandinStore;
  clock: () => number;
  apiKey: string;
  appSecret: string;
  /** Armed refresh refusals; the endpoint counts them down. */
  pending: { refreshFailures: number; refreshStatus: number };
  record(entry: Omit<RecordedRequest, "at">): void;
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL, shop: string | null) => Promise<void>;

export function tokenEndpoint({ store, clock, apiKey, appSecret, pending, record }: TokenEndpointContext): Handler {
  return async function tokenEndpoint(req: IncomingMessage, res: ServerResponse, url: URL, shop: string | null) {
    const raw = (await readBody(req)).toString("utf8");
    const type = String(req.headers["content-type"] ?? "");
    let params: Record<string, unknown> = {};
    try {
      params = type.includes("application/json")
        ? (JSON.parse(raw || "{}") as Record<string, unknown>)
        : Object.fromEntries(new URLSearchParams(raw));
    } catch {
      params = {};
    }
    const fail = (status: number, error: string, description: string) => {
      record({ method: "POST", path: url.pathname, shop, status, kind: "token" });
      send(res, status, { error, error_description: description });
    };
    const grant = params.grant_type;
    if (!shop) return fail(400, "invalid_request", "Unknown shop");
    if (grant !== TOKEN_EXCHANGE_GRANT && grant !== REFRESH_GRANT)
      return fail(400, "unsupported_grant_type", "Only token exchange and refresh_token are supported by the stand-in");
    if (params.client_id !== apiKey || params.client_secret !== appSecret)
      return fail(401, "invalid_client", "Client authentication failed");
    if (grant === REFRESH_GRANT) return refreshGrant(res, url, shop, params, fail);
    if (params.subject_token_type !== "urn:ietf:params:oauth:token-type:id_token")
      return fail(400, "invalid_request", "subject_token_type must be urn:ietf:params:oauth:token-type:id_token");
    const verified = verifySessionToken(String(params.subject_token ?? ""), appSecret, clock());
    if (!verified.ok) return fail(400, "invalid_subject_token", `Session token is invalid: ${verified.reason}`);
    if (verified.claims.aud !== apiKey)
      return fail(400, "invalid_subject_token", "Session token audience does not match client_id");
    if (new URL(verified.claims.dest).hostname.toLowerCase() !== shop)
      return fail(400, "invalid_subject_token", "Session token destination does not match shop");
    const online = params.requested_token_type === "urn:shopify:params:oauth:token-type:online-access-token";
    if (!online && params.requested_token_type !== "urn:shopify:params:oauth:token-type:offline-access-token") {
      return fail(400, "invalid_request", "requested_token_type must be an online or offline access token type");
    }
    const issued = store.issueToken(shop, { online, expiring: !online && String(params.expiring) === "1" });
    record({ method: "POST", path: url.pathname, shop, status: 200, kind: "token" });
    if (online) {
      const scope = issued.scope.join(",");
      return send(res, 200, {
        access_token: issued.token,
        scope,
        expires_in: TOKEN_LIFETIMES.onlineSeconds,
        associated_user_scope: scope,
        session: verified.claims.sid,
        associated_user: {
          id: Number(verified.claims.sub) || 42,
          first_name: "Stand",
          last_name: "In",
          email: "staff@example.com",
          account_owner: true,
          locale: "en",
          collaborator: false,
          email_verified: true,
        },
      });
    }
    send(res, 200, offlineTokenBody(issued, clock()));
  };

  function refreshGrant(
    res: ServerResponse,
    url: URL,
    shop: string,
    params: Record<string, unknown>,
    fail: (status: number, error: string, description: string) => void,
  ) {
    if (typeof params.refresh_token !== "string" || params.refresh_token === "")
      return fail(400, "invalid_request", "refresh_token is required");
    if (pending.refreshFailures > 0) {
      pending.refreshFailures -= 1;
      return pending.refreshStatus >= 500
        ? fail(pending.refreshStatus, "server_error", "The token endpoint failed (stand-in fault)")
        : fail(400, "invalid_grant", "The refresh token was refused (stand-in fault)");
    }
    const refreshed = store.tokens.refreshGrant(shop, params.refresh_token);
    if (!refreshed.ok) return fail(400, "invalid_grant", refreshed.description);
    record({ method: "POST", path: url.pathname, shop, status: 200, kind: "token" });
    send(res, 200, offlineTokenBody(refreshed.token, clock()));
  }
}
