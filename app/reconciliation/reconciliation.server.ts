import { Prisma, type ShopReconciliation } from "@prisma/client";
import { readDate, rowsOf, sql, type Sql, upsertRow } from "../database/sql.server";
import { dueNow } from "../queue/queue.server";
import { wakeWorker } from "../queue/wake.server";
import { Job, ShopReconciliation as ShopReconciliationTable } from "../database/tables";

// A shop's place in its reconciliation: where it starts (the install), how far the sweep has
// recorded, what it has found, and when it last ran. The sweep itself is sweep.server.ts; this is
// what the rest of the app asks of it: begin at an install, run now, say how it stands.

export const RECONCILE_JOB = "reconcile-shop" as const;

/** The shop's standing sweep job (its subject is the shop). */
const jobOf = (shop: string, now: Date) => ({ shop, kind: RECONCILE_JOB, subject: shop, runAt: now });

/**
 * The app was authorized for the shop (afterAuth: an install, a reinstall, a new token). A shop
 * seen for the first time starts at `now`: nothing placed before it is imported. An uninstall
 * deletes the row (shop-lifecycle.server.ts), so a reinstall starts afresh too. Either way the
 * sweep runs soon.
 */
export async function beginReconciliation(shop: string, now: Date = new Date()): Promise<void> {
  // Shopify keeps an order's times to the second: an order placed in the second of the install counts.
  const since = new Date(Math.floor(now.getTime() / 1000) * 1000);
  await sql.transaction(async (tx) => {
    await upsertRow(
      tx,
      "ShopReconciliation",
      ["shop"],
      { shop, since, watermark: since, createdAt: now, updatedAt: now },
      ["updatedAt"],
    );
    await dueNow(tx, [jobOf(shop, now)], now);
  });
  wakeWorker();
}

/** "Check now" from the admin, and every instance as it starts: the sweep runs now. */
export async function reconcileNow(shops: "all" | string, now: Date = new Date()): Promise<void> {
  await sql.transaction(async (tx) => {
    const rows =
      shops === "all"
        ? await tx.rows<{ shop: string }>(
            Prisma.sql`SELECT ${ShopReconciliationTable.shop} FROM ${ShopReconciliationTable}`,
          )
        : [{ shop: shops }];
    await dueNow(
      tx,
      rows.map((row) => jobOf(row.shop, now)),
      now,
    );
  });
  wakeWorker();
}

export interface ReconciliationStatus {
  since: Date;
  sweptAt: Date | null;
  failedAt: Date | null;
  lastError: string | null;
  found: { orders: number; refunds: number; cancellations: number; edits: number };
  /** The sweep is running or due now (asked for and not yet done). */
  pending: boolean;
}

/** How the shop's reconciliation stands, for the admin; null before the app was first authorized. */
export async function reconciliationStatus(shop: string, now: Date = new Date()): Promise<ReconciliationStatus | null> {
  const [row] = await rowsOf<ShopReconciliation>(
    sql,
    "ShopReconciliation",
    Prisma.sql`SELECT * FROM ${ShopReconciliationTable} WHERE ${ShopReconciliationTable.shop} = ${shop}`,
  );
  if (!row) return null;
  const [job] = await sql.rows<{ state: string; runAt: unknown }>(
    Prisma.sql`SELECT ${Job.state}, ${Job.runAt} FROM ${Job} WHERE ${Job.kind} = ${RECONCILE_JOB} AND ${Job.subject} = ${shop}`,
  );
  return {
    since: row.since,
    sweptAt: row.sweptAt,
    failedAt: row.failedAt,
    lastError: row.lastError,
    found: {
      orders: row.foundOrders,
      refunds: row.foundRefunds,
      cancellations: row.foundCancellations,
      edits: row.foundEdits,
    },
    pending: job !== undefined && (job.state === "running" || (job.state === "queued" && readDate(job.runAt) <= now)),
  };
}

/** The row the sweep works from. */
export async function reconciliationOf(tx: Sql, shop: string): Promise<ShopReconciliation | null> {
  const [row] = await rowsOf<ShopReconciliation>(
    tx,
    "ShopReconciliation",
    Prisma.sql`SELECT * FROM ${ShopReconciliationTable} WHERE ${ShopReconciliationTable.shop} = ${shop}`,
  );
  return row ?? null;
}
