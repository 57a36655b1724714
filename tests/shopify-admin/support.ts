// Test wiring: the stand-in, traffic routing and a REAL admin client from
// @shopify/shopify-app-remix (unauthenticated.admin over an in-memory session storage).
import "@shopify/shopify-app-remix/adapters/node";
import { Session } from "@shopify/shopify-api";
import { AppDistribution, shopifyApp } from "@shopify/shopify-app-remix/server";
import { apiVersion } from "../../app/shopify-admin/api-version";
import { routeShopifyTrafficTo, type StandinRouting } from "../../app/platform/shopify-standin-routing.server";
import { startShopifyStandin, type ShopifyStandin } from "../../sandbox/shopify";

class MemorySessionStorage {
  readonly sessions = new Map<string, Session>();
  async storeSession(session: Session) {
    this.sessions.set(session.id, session);
    return true;
  }
  async loadSession(id: string) {
    return this.sessions.get(id);
  }
  async deleteSession(id: string) {
    return this.sessions.delete(id);
  }
  async deleteSessions(ids: string[]) {
    for (const id of ids) this.sessions.delete(id);
    return true;
  }
  async findSessionsByShop(shop: string) {
    return [...this.sessions.values()].filter((s) => s.shop === shop);
  }
}

export interface Harness {
  standin: ShopifyStandin;
  routing: StandinRouting;
  app: ReturnType<typeof shopifyApp>;
  sessions: MemorySessionStorage;
  /** Issue a stand-in token for the shop and store it as the offline session. */
  installShop(shop: string, scope?: string): Promise<void>;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const standin = await startShopifyStandin({ apiKey: "test-api-key", appSecret: "test-api-secret" });
  const routing = routeShopifyTrafficTo(standin.url);
  const sessions = new MemorySessionStorage();
  const app = shopifyApp({
    apiKey: "test-api-key",
    apiSecretKey: "test-api-secret",
    appUrl: "https://tag-guard.test",
    scopes: ["read_orders", "write_orders"],
    apiVersion,
    distribution: AppDistribution.AppStore,
    sessionStorage: sessions,
    isEmbeddedApp: true,
  });
  return {
    standin,
    routing,
    app,
    sessions,
    async installShop(shop, scope = "read_orders,write_orders") {
      const token = standin.issueToken(shop, { scope });
      await sessions.storeSession(
        new Session({ id: `offline_${shop}`, shop, state: "", isOnline: false, accessToken: token.token, scope }),
      );
    },
    async close() {
      await routing.restore();
      await standin.close();
    },
  };
}
