// Access and refresh tokens as Shopify issues them, on the stand-in's clock. Lifetimes and
// rotation follow Shopify's documentation of expiring offline access tokens (Dec 2025, and the
// Aug 2026 change that keeps a used refresh token valid until its replacement is used):
//  - an expiring offline access token lives one hour and comes with a refresh token that lives
//    90 days; every refresh answers a new access token AND a new refresh token;
//  - a used refresh token may be retried (a lost answer) until the app uses its replacement,
//    and at most 30 days after its first use; using the replacement retires it;
//  - only one expiring offline token is active per app and shop: issuing one revokes the
//    shop's earlier ones, and a new grant (token exchange) also revokes earlier refresh tokens.
import { randomBytes } from "node:crypto";

export const TOKEN_LIFETIMES = {
  expiringOfflineSeconds: 3_600,
  refreshSeconds: 90 * 86_400,
  refreshRetrySeconds: 30 * 86_400,
  /** Shopify answers online tokens with expires_in 86399. */
  onlineSeconds: 86_399,
} as const;

export interface TokenRecord {
  token: string;
  shop: string;
  scope: string[];
  online: boolean;
  /** An expiring offline token (it has a refresh token). */
  expiring: boolean;
  issuedAt: number;
  expiresAt: number | null;
  /** The refresh token issued with an expiring offline token. */
  refreshToken: string | null;
  refreshTokenExpiresAt: number | null;
}

interface RefreshTokenRecord {
  token: string;
  shop: string;
  scope: string[];
  expiresAt: number;
  firstUsedAt: number | null;
  /** The refresh token this one replaced; using this one retires that one. */
  replaces: string | null;
  retired: boolean;
}

export interface IssueOptions {
  scope?: string | string[];
  online?: boolean;
  /** An expiring offline token with a refresh token, as token exchange gives with expiring=1. */
  expiring?: boolean;
  /** Only for a token that is neither online nor expiring: a lifetime of its own. */
  ttlSeconds?: number;
}

export type RefreshResult = { ok: true; token: TokenRecord } | { ok: false; description: string };

const DEFAULT_SCOPE = "read_orders,write_orders";

export class TokenStore {
  private readonly access = new Map<string, TokenRecord>();
  private readonly refresh = new Map<string, RefreshTokenRecord>();

  constructor(private readonly clock: () => number) {}

  issue(shop: string, options: IssueOptions = {}): TokenRecord {
    const domain = shop.toLowerCase();
    const scope = Array.isArray(options.scope)
      ? options.scope
      : (options.scope ?? DEFAULT_SCOPE)
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean);
    if (options.expiring && !options.online) {
      // A new grant replaces the whole pair, refresh tokens included.
      for (const record of this.refresh.values()) if (record.shop === domain) record.retired = true;
      return this.issueExpiring(domain, scope, null);
    }
    const now = this.clock();
    const ttl = options.online ? TOKEN_LIFETIMES.onlineSeconds : options.ttlSeconds;
    return this.store({
      token: newToken("shpat_standin_"),
      shop: domain,
      scope,
      online: options.online ?? false,
      expiring: false,
      issuedAt: now,
      expiresAt: ttl ? now + ttl * 1000 : null,
      refreshToken: null,
      refreshTokenExpiresAt: null,
    });
  }

  /**
   * The merchant granted optional scopes (App Bridge's scopes.request): Shopify adds them to the
   * app's grant, so the shop's tokens, and those refreshed from them, carry them from now on.
   */
  grantScopes(shop: string, scopes: string[]): void {
    const domain = shop.toLowerCase();
    const add = (record: { shop: string; scope: string[] }) => {
      if (record.shop !== domain) return;
      for (const scope of scopes) if (!record.scope.includes(scope)) record.scope.push(scope);
    };
    for (const record of this.access.values()) add(record);
    for (const record of this.refresh.values()) add(record);
  }

  /** The token if it was issued, not revoked, unexpired and (when given) for this shop. */
  valid(token: string, shop: string | null): TokenRecord | undefined {
    const record = this.access.get(token);
    if (!record) return undefined;
    if (record.expiresAt !== null && record.expiresAt <= this.clock()) return undefined;
    if (shop && record.shop !== shop) return undefined;
    return record;
  }

  /** The refresh_token grant. Failures carry Shopify's error_description for invalid_grant. */
  refreshGrant(shop: string, refreshToken: string): RefreshResult {
    const now = this.clock();
    const record = this.refresh.get(refreshToken);
    if (!record || record.shop !== shop.toLowerCase() || record.retired) {
      return { ok: false, description: "The refresh token is invalid or has been revoked" };
    }
    if (record.expiresAt <= now) return { ok: false, description: "The refresh token has expired" };
    if (record.firstUsedAt !== null && now - record.firstUsedAt > TOKEN_LIFETIMES.refreshRetrySeconds * 1000) {
      return { ok: false, description: "The refresh token has already been used" };
    }
    record.firstUsedAt ??= now;
    const predecessor = record.replaces ? this.refresh.get(record.replaces) : undefined;
    if (predecessor) predecessor.retired = true;
    return { ok: true, token: this.issueExpiring(record.shop, record.scope, record.token) };
  }

  private issueExpiring(shop: string, scope: string[], replaces: string | null): TokenRecord {
    const now = this.clock();
    for (const record of [...this.access.values()]) {
      if (record.shop === shop && record.expiring) this.access.delete(record.token);
    }
    const refresh: RefreshTokenRecord = {
      token: newToken("shprt_standin_"),
      shop,
      scope,
      expiresAt: now + TOKEN_LIFETIMES.refreshSeconds * 1000,
      firstUsedAt: null,
      replaces,
      retired: false,
    };
    this.refresh.set(refresh.token, refresh);
    return this.store({
      token: newToken("shpat_standin_"),
      shop,
      scope,
      online: false,
      expiring: true,
      issuedAt: now,
      expiresAt: now + TOKEN_LIFETIMES.expiringOfflineSeconds * 1000,
      refreshToken: refresh.token,
      refreshTokenExpiresAt: refresh.expiresAt,
    });
  }

  private store(record: TokenRecord): TokenRecord {
    this.access.set(record.token, record);
    return record;
  }
}

/** Shopify's offline token answer: expires_in and the refresh token only for an expiring token. */
export function offlineTokenBody(token: TokenRecord, now: number) {
  return {
    access_token: token.token,
    scope: token.scope.join(","),
    ...(token.expiring && token.expiresAt !== null && token.refreshTokenExpiresAt !== null
      ? {
          expires_in: Math.round((token.expiresAt - now) / 1000),
          refresh_token: token.refreshToken,
          refresh_token_expires_in: Math.round((token.refreshTokenExpiresAt - now) / 1000),
        }
      : {}),
  };
}

function newToken(prefix: string): string {
  return `${prefix}${randomBytes(16).toString("hex")}`;
}
