// Shopify's tokens at rest: the Session table holds them sealed, and the library's own paths
// (authenticate.admin for the embedded admin, unauthenticated.admin for the worker) still work
// through the app's session storage, against the Shopify stand-in, which checks the token.
import { Session } from "@shopify/shopify-api";
import { PrismaSessionStorage } from "@shopify/shopify-app-session-storage-prisma";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import * as settingsRoute from "../../app/routes/app.settings";
import { isSealed } from "../../app/platform/sealing.server";
import { sessionStorage, unauthenticated } from "../../app/shopify.server";
import { routeShopifyTrafficTo, type StandinRouting } from "../../app/platform/shopify-standin-routing.server";
import { startShopifyStandin, type ShopifyStandin } from "../../sandbox/shopify";
import { adminRequest, call } from "./helpers";

const prisma = databaseClient();

let standin: ShopifyStandin;
let routing: StandinRouting;

beforeAll(async () => {
  standin = await startShopifyStandin();
  routing = routeShopifyTrafficTo(standin.url);
});

afterAll(async () => {
  await routing?.restore();
  await standin?.close();
});

const SCOPE = "read_orders,write_orders";
const REFRESH = "shprt_refresh_token_0123456789";

async function install(shop: string): Promise<string> {
  const { token } = standin.issueToken(shop, { scope: SCOPE.split(",") });
  await sessionStorage.storeSession(
    new Session({
      id: `offline_${shop}`,
      shop,
      state: "",
      isOnline: false,
      scope: SCOPE,
      accessToken: token,
      refreshToken: REFRESH,
    }),
  );
  return token;
}

async function probe(shop: string): Promise<string> {
  const { admin } = await unauthenticated.admin(shop);
  const response = await admin.graphql(`query TagGuardProbe { currentAppInstallation { id } }`);
  const body = (await response.json()) as { data: { currentAppInstallation: { id: string } } };
  return body.data.currentAppInstallation.id;
}

describe("sealed Shopify sessions", () => {
  it("keeps neither token in the Session table, and the library still authenticates with them", async () => {
    const shop = "sealed-session.myshopify.com";
    const token = await install(shop);

    const row = await prisma.session.findUniqueOrThrow({ where: { id: `offline_${shop}` } });
    expect(
      JSON.stringify(row, (_key, value: unknown) => (typeof value === "bigint" ? String(value) : value)),
    ).not.toMatch(new RegExp(`${token}|${REFRESH}`));
    expect(isSealed(row.accessToken) && isSealed(row.refreshToken ?? "")).toBe(true);

    expect(await sessionStorage.loadSession(`offline_${shop}`)).toMatchObject({
      accessToken: token,
      refreshToken: REFRESH,
    });
    const page = await call(settingsRoute.loader as never, adminRequest("/app/settings", shop));
    expect(page.status).toBe(200);
    expect(await probe(shop)).toMatch(/^gid:\/\/shopify\/AppInstallation\//);
  });

  it("seals a token stored in clear before sealing, the first time it is loaded", async () => {
    const shop = "clear-session.myshopify.com";
    const { token } = standin.issueToken(shop, { scope: SCOPE.split(",") });
    await prisma.session.create({
      data: { id: `offline_${shop}`, shop, state: "", isOnline: false, scope: SCOPE, accessToken: token },
    });

    expect(await probe(shop)).toMatch(/^gid:\/\/shopify\/AppInstallation\//);
    const row = await prisma.session.findUniqueOrThrow({ where: { id: `offline_${shop}` } });
    expect(row.accessToken).not.toContain(token);
    expect(isSealed(row.accessToken)).toBe(true);
    expect((await sessionStorage.loadSession(`offline_${shop}`))?.accessToken).toBe(token);
  });

  it("does not open a sealed token copied onto another shop's session", async () => {
    const victim = "victim-session.myshopify.com";
    const thief = "thief-session.myshopify.com";
    await install(victim);
    await install(thief);
    const stolen = await prisma.session.findUniqueOrThrow({ where: { id: `offline_${victim}` } });
    await prisma.session.update({ where: { id: `offline_${thief}` }, data: { accessToken: stolen.accessToken } });

    expect(await sessionStorage.loadSession(`offline_${thief}`)).toBeUndefined();
    await expect(unauthenticated.admin(thief)).rejects.toThrow();
  });

  /** An online session with everything the library can hold, and an offline one with a refresh token. */
  /** `now`: one clock reading for sessions that are compared with each other. */
  function sessionsOf(shop: string, prefix = "", now = Date.now()) {
    const expires = new Date(now + 86_400_000);
    const online = new Session({
      id: `${prefix}${shop}_4242`,
      shop,
      state: "state-1",
      isOnline: true,
      scope: SCOPE,
      expires,
      accessToken: "shpat_online_token_0001",
      onlineAccessInfo: {
        expires_in: 86_400,
        associated_user_scope: SCOPE,
        associated_user: {
          id: 4242,
          first_name: "Ada",
          last_name: "Lovelace",
          email: "ada@example.com",
          email_verified: true,
          account_owner: false,
          locale: "en",
          collaborator: true,
        },
      },
    });
    const offline = new Session({
      id: `${prefix}offline_${shop}`,
      shop,
      state: "",
      isOnline: false,
      scope: SCOPE,
      expires: new Date(expires.getTime() - 60_000),
      accessToken: "shpat_offline_token_0002",
      refreshToken: REFRESH,
      refreshTokenExpires: new Date(expires.getTime() + 86_400_000),
    });
    // Nothing but what a session must have: no scope, no expiry, no token.
    const bare = new Session({ id: `${prefix}bare_${shop}`, shop, state: "s", isOnline: false });
    return [online, offline, bare];
  }

  it("loads a session as the library's own storage reads it, tokens opened", async () => {
    const library = new PrismaSessionStorage(prisma);
    for (const session of sessionsOf("raw-load.myshopify.com")) {
      await sessionStorage.storeSession(session);
      const ours = await sessionStorage.loadSession(session.id);
      const theirs = await library.loadSession(session.id);
      const withoutTokens = (loaded: Session | undefined) => ({
        ...loaded?.toObject(),
        accessToken: undefined,
        refreshToken: undefined,
      });
      expect(theirs).toBeDefined();
      expect(withoutTokens(ours)).toEqual(withoutTokens(theirs));
      expect(ours?.accessToken).toBe(session.accessToken);
      expect(ours?.refreshToken).toBe(session.refreshToken);
      if (session.accessToken) expect(ours?.isActive(SCOPE)).toBe(true);
    }
    expect(await sessionStorage.loadSession(`offline_nobody.myshopify.com`)).toBeUndefined();
  });

  it("writes a session's row as the library's own storage writes it, tokens aside, and rewrites it in place", async () => {
    const shop = "raw-store.myshopify.com";
    const library = new PrismaSessionStorage(prisma);
    const rowOf = async (id: string) => {
      const { id: _id, accessToken, refreshToken, ...rest } = await prisma.session.findUniqueOrThrow({ where: { id } });
      return { ...rest, accessToken: accessToken !== "", refreshToken: refreshToken !== null };
    };
    // One clock reading for both sets: two readings a millisecond apart gave them different expiries.
    const now = Date.now();
    const theirs = sessionsOf(shop, "library_", now);
    const ours = sessionsOf(shop, "", now);
    for (const [index, session] of ours.entries()) {
      await library.storeSession(theirs[index]!);
      await sessionStorage.storeSession(session);
      expect(await rowOf(session.id)).toEqual(await rowOf(theirs[index]!.id));
    }

    const [online] = ours;
    const changed = new Session({
      ...online!.toObject(),
      scope: "read_orders",
      accessToken: "shpat_online_token_0003",
    });
    await sessionStorage.storeSession(changed);
    expect(await prisma.session.count({ where: { id: online!.id } })).toBe(1);
    expect(await sessionStorage.loadSession(online!.id)).toMatchObject({
      scope: "read_orders",
      accessToken: "shpat_online_token_0003",
    });
  });

  it("finds a shop's sessions as the library does, and deletes them", async () => {
    const shop = "raw-find.myshopify.com";
    const library = new PrismaSessionStorage(prisma);
    const sessions = sessionsOf(shop);
    for (const session of sessions) await sessionStorage.storeSession(session);
    const found = await sessionStorage.findSessionsByShop(shop);
    expect(found.map((session) => session.id)).toEqual(
      (await library.findSessionsByShop(shop)).map((session) => session.id),
    );
    expect(found.map((session) => session.accessToken).sort()).toEqual(
      sessions.map((session) => session.accessToken).sort(),
    );
    expect(await sessionStorage.findSessionsByShop("nobody.myshopify.com")).toEqual([]);

    expect(await sessionStorage.isReady()).toBe(true);
    expect(await sessionStorage.deleteSession(sessions[0]!.id)).toBe(true);
    expect(await sessionStorage.deleteSession(sessions[0]!.id)).toBe(true);
    expect(await sessionStorage.deleteSessions([])).toBe(true);
    expect(await sessionStorage.deleteSessions(sessions.slice(1).map((session) => session.id))).toBe(true);
    expect(await prisma.session.count({ where: { shop } })).toBe(0);
  });
});
