import { Prisma } from "@prisma/client";
import { Session } from "@shopify/shopify-api";
import type { SessionStorage } from "@shopify/shopify-app-session-storage";
import { rowById, rowsOf, sql, updateWhere, upsertRow, type RowOf, type Sql } from "../database/sql.server";
import { logger } from "../platform/logger.server";
import { isSealed, seal, SealError, unseal } from "../platform/sealing.server";
import { sessionFromRow, type SessionRow } from "./session-row";
import { Session as SessionTable } from "../database/tables";

// Shopify's library keeps the shop's sessions through this storage, and its access and refresh
// tokens open the shop's Admin API. They are sealed with the scheme (and the keys) of the
// click-service API key on the way in and opened on the way out, so every path of the library
// (token exchange, refresh, authenticate.admin, unauthenticated.admin) works unchanged. Each
// token is bound to its session id and field: a sealed token copied to another row does not
// open. A token sealed under SETTINGS_ENCRYPTION_KEY_PREVIOUS, or stored in clear before tokens
// were sealed, is re-sealed under the current key when it is next loaded.
//
// The Session table is the one @shopify/shopify-app-session-storage-prisma (11) wrote, and it is
// written and read here as that storage did (sessionRow below, session-row.ts), in raw
// statements: the worker loads the shop's session for its tag writes, and the ORM's findUnique
// cost about a millisecond of query compiling each, several percent of the worker's thread
// (docs/lab/throughput-notes.md, "A drain that stopped early, and sessions without the ORM").

type TokenField = "accessToken" | "refreshToken";

/** As the library's Prisma storage waited for its table: two tries, five seconds apart. */
const TABLE_TRIES = 2;
const TABLE_RETRY_INTERVAL_MS = 5_000;
/** The most sessions findSessionsByShop returns, the latest to expire first. */
const SESSIONS_PER_SHOP = 25;

export class SealedSessionStorage implements SessionStorage {
  /**
   * Whether the Session table was found readable: looked at on first use (undefined until then),
   * so the storage, made when shopify.server.ts is imported, opens nothing then. Never rejected:
   * a database that cannot be reached must not end the process (an unhandled rejection did, ten
   * seconds in); the admin says it is unavailable meanwhile.
   */
  private ready: Promise<boolean> | undefined;

  constructor(private readonly db: Sql = sql) {}

  async storeSession(session: Session): Promise<boolean> {
    await this.ensureReady();
    const stored = new Session(session.toObject());
    for (const field of TOKEN_FIELDS) {
      const token = session[field];
      if (token) stored[field] = seal(token, binding(session.id, field));
    }
    const row = sessionRow(stored);
    await upsertRow(
      this.db,
      "Session",
      ["id"],
      row,
      (Object.keys(row) as (keyof typeof row)[]).filter((column) => column !== "id"),
    );
    return true;
  }

  async loadSession(id: string): Promise<Session | undefined> {
    const row = await rowById<SessionRow>(this.db, "Session", id);
    return row ? this.open(sessionFromRow(row)) : undefined;
  }

  async findSessionsByShop(shop: string): Promise<Session[]> {
    await this.ensureReady();
    const rows = await rowsOf<SessionRow>(
      this.db,
      "Session",
      Prisma.sql`SELECT * FROM ${SessionTable} WHERE ${SessionTable.shop} = ${shop} ORDER BY ${SessionTable.expires} DESC LIMIT ${SESSIONS_PER_SHOP}`,
    );
    const sessions = await Promise.all(rows.map((row) => this.open(sessionFromRow(row))));
    return sessions.filter((session): session is Session => session !== undefined);
  }

  async deleteSession(id: string): Promise<boolean> {
    await this.ensureReady();
    try {
      await this.db.execute(Prisma.sql`DELETE FROM ${SessionTable} WHERE ${SessionTable.id} = ${id}`);
    } catch {
      // As the library's storage: a session that could not be deleted is reported deleted.
    }
    return true;
  }

  async deleteSessions(ids: string[]): Promise<boolean> {
    await this.ensureReady();
    if (ids.length > 0)
      await this.db.execute(Prisma.sql`DELETE FROM ${SessionTable} WHERE ${SessionTable.id} IN (${Prisma.join(ids)})`);
    return true;
  }

  /** Whether the Session table can be read (looked at again: two tries, TABLE_RETRY_INTERVAL_MS apart). */
  isReady(): Promise<boolean> {
    const looked = this.pollForTable().then(
      () => true,
      () => false,
    );
    this.ready = looked;
    return looked;
  }

  /**
   * The table is looked at on first use, and again while it was not found (the database away,
   * or not migrated), so the app recovers by itself; callers meanwhile share the look in hand.
   */
  private async ensureReady(): Promise<void> {
    const looking = this.ready;
    if ((looking && (await looking)) || (await this.isReady())) return;
    throw new Error(
      "the Session table cannot be read: the database is unreachable, or its migrations have not run (npm run setup)",
    );
  }

  private async pollForTable(): Promise<void> {
    for (let attempt = 0; attempt < TABLE_TRIES; attempt++) {
      try {
        await this.db.rows(Prisma.sql`SELECT 1 FROM ${SessionTable} LIMIT 1`);
        return;
      } catch (error) {
        logger.warn("sessions.table_unreadable", "the Session table could not be read", { error });
      }
      await new Promise((resolve) => setTimeout(resolve, TABLE_RETRY_INTERVAL_MS));
    }
    throw new Error("the Session table does not exist in the database");
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
      logger.warn("sessions.unopenable", "a stored Shopify session could not be opened; it is treated as absent", {
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
    const refreshToken = raw.refreshToken ?? null;
    await updateWhere(
      this.db,
      "Session",
      Prisma.sql`${SessionTable.id} = ${raw.id} AND ${SessionTable.accessToken} = ${raw.accessToken ?? ""} AND ${
        refreshToken === null
          ? Prisma.sql`${SessionTable.refreshToken} IS NULL`
          : Prisma.sql`${SessionTable.refreshToken} = ${refreshToken}`
      }`,
      { accessToken: sealedValue("accessToken") ?? "", refreshToken: sealedValue("refreshToken") },
    );
  }
}

const TOKEN_FIELDS: readonly TokenField[] = ["accessToken", "refreshToken"];

function binding(sessionId: string, field: TokenField): string {
  return `shopify-session\n${sessionId}\n${field}`;
}

function time(at: Date | number | undefined): Date | null {
  return at ? new Date(at) : null;
}

/**
 * The row of a session, as the library's Prisma storage writes it (its sessionToRow): absent
 * values stored as null, but an absent access token as "" and the user's flags as false.
 */
function sessionRow(session: Session): RowOf<"Session"> {
  const params = session.toObject();
  const user = params.onlineAccessInfo?.associated_user;
  return {
    id: session.id,
    shop: session.shop,
    state: session.state,
    isOnline: session.isOnline,
    scope: session.scope || null,
    expires: time(session.expires),
    accessToken: session.accessToken || "",
    userId: user?.id ? BigInt(user.id) : null,
    firstName: user?.first_name || null,
    lastName: user?.last_name || null,
    email: user?.email || null,
    accountOwner: user?.account_owner || false,
    locale: user?.locale || null,
    collaborator: user?.collaborator || false,
    emailVerified: user?.email_verified || false,
    refreshToken: params.refreshToken || null,
    refreshTokenExpires: time(params.refreshTokenExpires),
  };
}
