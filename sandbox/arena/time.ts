import { Prisma, type PrismaClient } from "@prisma/client";
import type { DatabaseDialect } from "../../app/platform/database-url";
import type { RunningClickService } from "../click-service/server";
import type { ShopStorefront } from "../storefront/shop";

// Time in the arena. A journey that says "three days later" does not wait three days: every
// record of what happened so far is moved that far into the past instead, as the demo dates a
// click it lets expire. The storefront's visits, the clicks the click service made during the
// journey (or the population run), and everything the app recorded for the shop all age
// together, so each party sees the same past. The app's own clock is never touched: the order
// comes now, and the app reads the records it compares it with as that much older.

export interface JourneyRecords {
  shop: string;
  db: PrismaClient;
  /** How the app's database keeps times: Unix milliseconds (SQLite) or timestamps (PostgreSQL). */
  dialect: DatabaseDialect;
  storefront: ShopStorefront;
  clicks: RunningClickService;
  /** The click service's clicks that existed before the journey began (not the journey's to age). */
  clicksBefore: ReadonlySet<string>;
}

/** How long the app gets to look up the clicks a page reported, as it does within seconds. */
const LOOKUP_WAIT_MS = 30_000;

export async function passTime(records: JourneyRecords, minutes: number): Promise<void> {
  // What the app does within seconds of a landing happens before the time passes.
  await lookupsSettled(records.db, records.shop);
  const ms = Math.round(minutes * 60_000);
  records.storefront.visits.age(ms);
  for (const clickId of records.clicks.state.clicks.keys())
    if (!records.clicksBefore.has(clickId)) records.clicks.ageClick(clickId, minutes);
  await ageAppRecords(records, ms);
}

/**
 * Tables that are the app's machinery rather than the shop's past, never aged: the sessions
 * (their tokens' expiry), the settings, the shop's profile, the memory of lifecycle webhooks,
 * and the reconciliation sweep's place, which it compares with Shopify's order times (the
 * Shopify stand-in's orders are not aged). The queue is aged apart (QUEUED_JOBS).
 */
const MACHINERY = new Set(["Session", "ShopSettings", "ShopProfile", "LifecycleEvent", "ShopReconciliation", "Job"]);

interface AgedTable {
  table: string;
  columns: string[];
  /** The table has the shop column itself (else its parent has: a verification's attempts). */
  ownShop: boolean;
  /** Which rows are the shop's. */
  where: (shop: string) => Prisma.Sql;
}

const quoted = (name: string) => Prisma.raw(`"${name}"`);

/**
 * Every time the app keeps of the shop, read from the schema the client was generated from, so
 * a table added later (a creator's standing, say) ages with the rest without being listed here:
 * each DateTime column of each table with a shop column, or whose parent has one.
 */
function agedTables(): AgedTable[] {
  const models = Prisma.dmmf.datamodel.models;
  const ofShop = new Set(models.filter((m) => m.fields.some((f) => f.name === "shop")).map((m) => m.name));
  const tableOf = (name: string) => models.find((m) => m.name === name)?.dbName ?? name;
  return models.flatMap((model): AgedTable[] => {
    if (MACHINERY.has(model.name)) return [];
    const columns = model.fields.filter((f) => f.kind === "scalar" && f.type === "DateTime").map((f) => f.name);
    if (columns.length === 0) return [];
    const table = model.dbName ?? model.name;
    if (ofShop.has(model.name))
      return [{ table, columns, ownShop: true, where: (shop) => Prisma.sql`${quoted("shop")} = ${shop}` }];
    // The client's own copy of the schema names a relation but not its keys: the schema's
    // convention does (a `verification` relation is held by `verificationId`, the parent's id).
    const parent = model.fields.find(
      (f) => f.kind === "object" && ofShop.has(f.type) && model.fields.some((k) => k.name === `${f.name}Id`),
    );
    if (!parent) return [];
    const from = `${parent.name}Id`;
    const to = "id";
    return [
      {
        table,
        columns,
        ownShop: false,
        where: (shop) =>
          Prisma.sql`${quoted(from)} IN (SELECT ${quoted(to)} FROM ${quoted(tableOf(parent.type))} WHERE ${quoted("shop")} = ${shop})`,
      },
    ];
  });
}

/**
 * The queue's jobs still waiting: one due later (a lookup's next turn, the next reconciliation
 * sweep) falls due as much sooner, as it would have while the time passed. Running jobs keep
 * their leases; finished ones are history nobody reads by time.
 */
const QUEUED_JOBS: AgedTable = {
  table: "Job",
  columns: ["runAt"],
  ownShop: true,
  where: (shop) => Prisma.sql`${quoted("shop")} = ${shop} AND ${quoted("state")} = 'queued'`,
};

/** What each database ages, found once per client: the schema's tables that its migrations made. */
const agedByDatabase = new WeakMap<PrismaClient, Promise<AgedTable[]>>();

/**
 * The aged tables and columns that exist in the database: the generated client may know a
 * table its migrations have not made yet (a change under way), and an UPDATE of it would fail.
 */
async function agedIn(db: PrismaClient, dialect: DatabaseDialect): Promise<AgedTable[]> {
  const rows = await db.$queryRaw<{ t: string; c: string }[]>(
    dialect === "sqlite"
      ? Prisma.sql`SELECT m.name AS t, p.name AS c FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'`
      : Prisma.sql`SELECT table_name::text AS t, column_name::text AS c FROM information_schema.columns WHERE table_schema = current_schema()`,
  );
  const present = new Set(rows.map((row) => `${row.t}.${row.c}`));
  return [...agedTables(), QUEUED_JOBS].flatMap((aged) => {
    const columns = aged.columns.filter((column) => present.has(`${aged.table}.${column}`));
    return columns.length > 0 && present.has(`${aged.table}.shop`) === aged.ownShop ? [{ ...aged, columns }] : [];
  });
}

/** Moves every time the app keeps of the shop `ms` into the past, in one transaction: nobody reads it half moved. */
async function ageAppRecords(records: JourneyRecords, ms: number): Promise<void> {
  const { db } = records;
  if (!agedByDatabase.has(db)) agedByDatabase.set(db, agedIn(db, records.dialect));
  const tables = await agedByDatabase.get(db)!;
  const earlier = (column: Prisma.Sql) =>
    records.dialect === "sqlite"
      ? Prisma.sql`${column} - ${ms}`
      : Prisma.sql`${column} - (${ms}::float8 * INTERVAL '1 millisecond')`;
  await db.$transaction(
    tables.map(({ table, columns, where }) =>
      db.$executeRaw(
        Prisma.sql`UPDATE ${quoted(table)} SET ${Prisma.join(
          columns.map((column) => Prisma.sql`${quoted(column)} = ${earlier(quoted(column))}`),
          ", ",
        )} WHERE ${where(records.shop)}`,
      ),
    ),
  );
}

/**
 * Waits until the app has looked up every click the shop's storefront reported (none of its
 * click records is still pending), for at most LOOKUP_WAIT_MS: a shopper takes at least that
 * long between landing and paying. Resolves either way; says whether they settled.
 */
export async function lookupsSettled(db: PrismaClient, shop: string, timeoutMs = LOOKUP_WAIT_MS): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = await db.clickRecord.count({ where: { shop, state: "pending" } });
    if (pending === 0) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
