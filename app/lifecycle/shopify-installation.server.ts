import { fetch } from "undici";
import { logger } from "../platform/logger.server";
import { refuseInsideTransaction } from "../platform/transaction-scope";
import { SealedSessionStorage } from "../sessions/sealed-session-storage.server";
import { apiVersion } from "../shopify-admin/api-version";
import { CURRENT_APP_INSTALLATION } from "../shopify-admin/documents";

// Whether Shopify still honours the offline token the app holds for a shop: asked only when the
// app's own records cannot tell a replayed app/uninstalled from a new one (shop-lifecycle.server.ts).
// Shopify revokes the app's tokens when the app is uninstalled, and a reinstall gives a new one,
// so the stored token's fate is Shopify's own word on the last authorization.
//
// Asked with the stored token as it is, never refreshed: a refresh rotates the shop's tokens (one
// refresh at a time per shop belongs to the worker's client), and a refused refresh cannot be told
// apart from an unreachable token endpoint through the library (offline-admin.server.ts). An
// expired token is no evidence either way, since Shopify answers 401 to expired and revoked alike.
//
// Asked through undici's fetch, imported: the global fetch is Remix's under the production server
// (server.mjs installs its globals), which leaves through Node's http module and so past undici's
// dispatcher, where the library's own calls to Shopify go (and, in development, the stand-in's routing).

export type InstallationAnswer =
  /** Shopify answered with the stored token: the app is installed. */
  | "installed"
  /** Shopify refused a stored token that had not expired: it was revoked, the app uninstalled. */
  | "uninstalled"
  /** No answer now (network, 5xx, throttled, or asked too often): ask again later. */
  | "ask-later"
  /** Nothing to ask with: no stored token, or one that has expired or cannot be opened. */
  | "cannot-tell";

export type InstallationCheck = (shop: string) => Promise<InstallationAnswer>;

/** Shopify's webhook deadline is 5 s: the question must leave time for the answer. */
const ASK_TIMEOUT_MS = 3_000;
/** A token this close to its expiry may expire on the way: no evidence. */
const EXPIRY_MARGIN_MS = 60_000;
/** Asks per shop per minute: a replay sent in a loop must not spend the shop's API budget. */
const ASKS_PER_MINUTE = 5;

let sessions: SealedSessionStorage | undefined;
const recentAsks = new Map<string, number[]>();

function mayAsk(shop: string, now: number): boolean {
  const recent = (recentAsks.get(shop) ?? []).filter((at) => now - at < 60_000);
  if (recent.length >= ASKS_PER_MINUTE) {
    recentAsks.set(shop, recent);
    return false;
  }
  recent.push(now);
  recentAsks.set(shop, recent);
  if (recentAsks.size > 10_000) recentAsks.delete(recentAsks.keys().next().value!);
  return true;
}

async function storedToken(shop: string): Promise<string | null> {
  try {
    sessions ??= new SealedSessionStorage();
    const session = await sessions.loadSession(`offline_${shop}`);
    if (!session?.accessToken || session.isExpired(EXPIRY_MARGIN_MS)) return null;
    return session.accessToken;
  } catch (error) {
    logger.warn("lifecycle.session_unreadable", "could not read the shop's offline session to ask Shopify", {
      shop,
      error,
    });
    return null;
  }
}

type Asked = "answered" | "refused" | "no-answer";

async function ask(shop: string, token: string): Promise<Asked> {
  try {
    const response = await fetch(`https://${shop}/admin/api/${apiVersion}/graphql.json`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-shopify-access-token": token },
      body: JSON.stringify({ query: CURRENT_APP_INSTALLATION }),
      signal: AbortSignal.timeout(ASK_TIMEOUT_MS),
    });
    const body = (await response.json().catch(() => null)) as { data?: { currentAppInstallation?: unknown } } | null;
    if (response.status === 401) return "refused";
    if (response.ok && body?.data?.currentAppInstallation) return "answered";
    return "no-answer";
  } catch {
    return "no-answer";
  }
}

/** Asks Shopify, with the offline token the app holds, whether the app is still installed on `shop`. */
export const askShopify: InstallationCheck = async (shop) => {
  refuseInsideTransaction("Shopify's Admin API");
  const token = await storedToken(shop);
  if (!token) return "cannot-tell";
  if (!mayAsk(shop, Date.now())) return "ask-later";
  const asked = await ask(shop, token);
  if (asked === "answered") return "installed";
  if (asked === "no-answer") return "ask-later";
  // A 401 may also mean another thread or instance has just replaced the token (a refresh, or the
  // merchant opening the app): ask again with the one stored now before believing it.
  const current = await storedToken(shop);
  if (current === null) return "cannot-tell";
  if (current === token) return "uninstalled";
  const again = await ask(shop, current);
  return again === "answered" ? "installed" : again === "refused" ? "uninstalled" : "ask-later";
};
