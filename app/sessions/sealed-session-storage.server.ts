import type { PrismaClient } from "@prisma/client";
import { Session } from "@shopify/shopify-api";
import { PrismaSessionStorage, type PrismaSessionStorageInterface } from "@shopify/shopify-app-session-storage-prisma";
import { logger } from "../platform/logger.server";
import { isSealed, seal, SealError, unseal } from "../platform/sealing.server";
import { asSql, rowById, type Sql } from "../database/sql.server";
import { sessionFromRow, type SessionRow } from "./session-row";

// Shopify's access and refresh tokens open the shop's Admin API, and the library's Prisma
// storage keeps them in clear. This wrapper seals them with the scheme (and the keys) of the
// click-service API key on the way in and opens them on the way out, so every path of the
// library (token exchange, refresh, authenticate.admin, unauthenticated.admin) works unchanged.
// Each token is bound to its session id and field: a sealed token copied to another row does
// not open. A token sealed under SETTINGS_ENCRYPTION_KEY_PREVIOUS, or stored in clear before
// this wrapper, is re-sealed under the current key when it is next loaded.
//
// A session is read with one raw statement and turned into a Session as the library's storage
// reads its rows (session-row.ts): the worker loads the shop's session for its tag writes, and the ORM's findUnique
// cost about a millisecond of query compiling each, several percent of the worker's thread
// (docs/lab/throughput-notes.md, "A drain that stopped early, and sessions without the ORM").

type TokenField = "accessToken" | "refreshToken";

export class SealedSessionStorage implements PrismaSessionStorageInterface {
  private readonly inner: PrismaSessionStorage<PrismaClient>;

  /** `reads` is the same database's raw path (the app passes its driver's, sql.server.ts). */
  constructor(
    private readonly prisma: PrismaClient,
    private readonly reads: Sql = asSql(prisma),
  ) {
    this.inner = new PrismaSessionStorage(prisma);
  }

  async storeSession(session: Session): Promise<boolean> {
    const stored = new Session(session.toObject());
    for (const field of TOKEN_FIELDS) {
      const token = session[field];
      if (token) stored[field] = seal(token, binding(session.id, field));
    }
    return this.inner.storeSession(stored);
  }

  async loadSession(id: string): Promise<Session | undefined> {
    const row = await rowById<SessionRow>(this.reads, "Session", id);
    return row ? this.open(sessionFromRow(row)) : undefined;
  }

  async findSessionsByShop(shop: string): Promise<Session[]> {
    const sessions = await Promise.all((await this.inner.findSessionsByShop(shop)).map((raw) => this.open(raw)));
    return sessions.filter((session): session is Session => session !== undefined);
  }

  deleteSession(id: string): Promise<boolean> {
    return this.inner.deleteSession(id);
  }

  deleteSessions(ids: string[]): Promise<boolean> {
    return this.inner.deleteSessions(ids);
  }

  isReady(): Promise<boolean> {
    return this.inner.isReady();
  }

  /**
   * The session with its tokens opened, or undefined when a token no longer opens (sealed under
   * a key that is not configured, or tampered with): the library then treats the shop as not
   * authorised and, for the embedded admin, exchanges a new token, stored sealed afresh.
   */
  private async open(raw: Session): Promise<Session | undefined> {
    const opened = new Session(raw.toObject());
    let reseal = false;
    try {
      for (const field of TOKEN_FIELDS) {
        const value = raw[field];
        if (!value) continue;
        if (!isSealed(value)) {
          reseal = true; // stored in clear before tokens were sealed
          continue;
        }
        const { plaintext, stale } = unseal(value, binding(raw.id, field));
        opened[field] = plaintext;
        reseal ||= stale;
      }
    } catch (error) {
      if (!(error instanceof SealError)) throw error;
      logger.warn("a stored Shopify session could not be opened; it is treated as absent", {
        shop: raw.shop,
        sessionId: raw.id,
        reason: error.message,
      });
      return undefined;
    }
    if (reseal) await this.resealUnlessReplaced(raw, opened);
    return opened;
  }

  // Conditional on the row still holding what was read: a session the library stored meanwhile
  // (a refreshed token, say) must not be overwritten with the older one.
  private async resealUnlessReplaced(raw: Session, opened: Session): Promise<void> {
    const sealedValue = (field: TokenField) => {
      const token = opened[field];
      return token ? seal(token, binding(opened.id, field)) : null;
    };
    await this.prisma.session.updateMany({
      where: { id: raw.id, accessToken: raw.accessToken ?? "", refreshToken: raw.refreshToken ?? null },
      data: { accessToken: sealedValue("accessToken") ?? "", refreshToken: sealedValue("refreshToken") },
    });
  }
}

const TOKEN_FIELDS: readonly TokenField[] = ["accessToken", "refreshToken"];

function binding(sessionId: string, field: TokenField): string {
  return `shopify-session\n${sessionId}\n${field}`;
}
