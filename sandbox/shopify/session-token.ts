// Shopify session tokens (App Bridge id tokens): HS256 JWTs signed with the app's secret.
// Used by the stand-in's token exchange to verify, and by tests/demos to mint one.
import { createHmac, timingSafeEqual } from "node:crypto";

export interface SessionTokenClaims {
  iss: string; // https://{shop}/admin
  dest: string; // https://{shop}
  aud: string; // the app's API key (client id)
  sub: string; // staff user id
  exp: number;
  nbf: number;
  iat: number;
  jti: string;
  sid: string;
  sig?: string;
}

const b64url = (input: Buffer | string) => Buffer.from(input).toString("base64url");

/** Shopify's session tokens live one minute: sign a fresh one per request rather than a longer one. */
export const SESSION_TOKEN_TTL_SECONDS = 60;

export function signSessionToken(options: {
  shop: string;
  apiKey: string;
  secret: string;
  userId?: string | number;
  now?: number;
  ttlSeconds?: number;
}): string {
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  const claims: SessionTokenClaims = {
    iss: `https://${options.shop}/admin`,
    dest: `https://${options.shop}`,
    aud: options.apiKey,
    sub: String(options.userId ?? 42),
    exp: now + (options.ttlSeconds ?? SESSION_TOKEN_TTL_SECONDS),
    nbf: now - 5,
    iat: now,
    jti: `jti-${now}-${Math.random().toString(36).slice(2)}`,
    sid: `sid-${Math.random().toString(36).slice(2)}`,
  };
  const head = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const body = b64url(JSON.stringify(claims));
  const sig = createHmac("sha256", options.secret).update(`${head}.${body}`).digest("base64url");
  return `${head}.${body}.${sig}`;
}

export type VerifyResult = { ok: true; claims: SessionTokenClaims } | { ok: false; reason: string };

export function verifySessionToken(token: string, secret: string, nowMs: number, clockSkewSeconds = 10): VerifyResult {
  const parts = token.split(".");
  if (parts.length !== 3) return { ok: false, reason: "malformed token" };
  const [head, body, sig] = parts as [string, string, string];
  let header: { alg?: string };
  let claims: SessionTokenClaims;
  try {
    header = JSON.parse(Buffer.from(head, "base64url").toString("utf8"));
    claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    return { ok: false, reason: "malformed token" };
  }
  if (header.alg !== "HS256") return { ok: false, reason: `unsupported alg ${header.alg}` };
  const expected = createHmac("sha256", secret).update(`${head}.${body}`).digest();
  const given = Buffer.from(sig, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: "signature verification failed" };
  }
  const now = Math.floor(nowMs / 1000);
  if (typeof claims.exp !== "number" || claims.exp + clockSkewSeconds < now)
    return { ok: false, reason: "token expired" };
  if (typeof claims.nbf === "number" && claims.nbf - clockSkewSeconds > now)
    return { ok: false, reason: "token not yet valid" };
  return { ok: true, claims };
}
