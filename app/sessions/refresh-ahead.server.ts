import type { Session } from "@shopify/shopify-api";
import type { SessionStorage } from "@shopify/shopify-app-session-storage";

// One refresh of a shop's expiring offline token at a time, whoever asks. Shopify keeps one
// expiring token active per shop and revokes the one before at each refresh, so two refreshes
// racing leave one caller with a dead token, and the last to store wins. The library refreshes
// on its own in every path that loads the offline session (webhooks, app proxy, unauthenticated
// admin), each caller for itself, once the token is within five minutes of expiry. Here the
// session storage refreshes first, ahead of that window, once for all concurrent loaders: the
// library is handed a token it has no reason to refresh.

/** How long before expiry the storage refreshes: before the library's own five minutes. */
export const REFRESH_AHEAD_MS = 10 * 60_000;

export type RefreshToken = (shop: string, refreshToken: string) => Promise<Session>;

/** A session storage whose loads refresh an offline token about to expire, once per shop. */
export class RefreshingAheadStorage implements SessionStorage {
  /** By shop and refresh token: a loader holding the old token joins the refresh it started. */
  private readonly inFlight = new Map<string, Promise<Session | undefined>>();

  constructor(
    private readonly storage: SessionStorage & { isReady(): Promise<boolean> },
    private readonly refresh: RefreshToken,
  ) {}

  async loadSession(id: string): Promise<Session | undefined> {
    const session = await this.storage.loadSession(id);
    if (!session || session.isOnline || !session.refreshToken || !session.expires) return session;
    if (!session.isExpired(REFRESH_AHEAD_MS)) return session;
    return (await this.refreshed(session)) ?? session;
  }

  isReady(): Promise<boolean> {
    return this.storage.isReady();
  }

  storeSession(session: Session): Promise<boolean> {
    return this.storage.storeSession(session);
  }

  deleteSession(id: string): Promise<boolean> {
    return this.storage.deleteSession(id);
  }

  deleteSessions(ids: string[]): Promise<boolean> {
    return this.storage.deleteSessions(ids);
  }

  findSessionsByShop(shop: string): Promise<Session[]> {
    return this.storage.findSessionsByShop(shop);
  }

  private refreshed(session: Session): Promise<Session | undefined> {
    const key = `${session.shop} ${session.refreshToken}`;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.refresh(session.shop, session.refreshToken!)
        .then(async (fresh) => ((await this.storage.storeSession(fresh)) ? fresh : undefined))
        // A refresh that fails leaves the stored session as it is: the library's own handling
        // (its refresh, its error) takes over, as without this. Each loader that joined it then
        // refreshes for itself; a refused refresh rotates nothing, so only a fault that clears
        // at that very moment could still race.
        .catch(() => undefined)
        .finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }
}
