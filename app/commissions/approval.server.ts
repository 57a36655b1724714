import { Prisma } from "@prisma/client";
import { sqlTime } from "../database/db.server";
import { sql, updateWhere } from "../database/sql.server";
import { logger } from "../platform/logger.server";
import { Commission } from "../database/tables";
import { creatorHeld } from "./creator-standing";

// Approval: a pending record whose hold has ended becomes approved, unless refunds or a
// cancellation took it to nothing (it is reversed then, never pending), or its creator is held
// (suspected or blocked: creator-standing.ts), when it waits. A periodic sweep in
// the worker process; every update is conditional on the record still being pending, so
// several instances sweeping at once, or a refund applied meanwhile, never conflict.

const BATCH = 500;

/** Approves every record due at `now`, a batch at a time; returns how many. */
export async function approveDueCommissions(now: Date): Promise<number> {
  let approved = 0;
  for (;;) {
    const due = await sql.rows<{ id: string }>(Prisma.sql`
      SELECT ${Commission.id} FROM ${Commission} WHERE ${Commission.status} = 'pending' AND ${Commission.holdUntil} <= ${sqlTime(now)}
        AND NOT ${creatorHeld(Commission)} LIMIT ${BATCH}`);
    if (due.length === 0) return approved;
    const ids = Prisma.join(due.map((row) => row.id));
    approved += await updateWhere(
      sql,
      "Commission",
      Prisma.sql`${Commission.id} IN (${ids}) AND ${Commission.status} = 'pending'`,
      {
        status: "approved",
        approvedAt: now,
      },
    );
    // Another instance took (or a refund reversed) part of this batch: what is left is read again.
    if (due.length < BATCH) return approved;
  }
}

export interface ApprovalSweep {
  /** Runs one sweep now (the timer's own runs never overlap it). */
  runOnce(): Promise<number>;
  stop(): void;
}

export function startApprovalSweep(intervalMs: number, now: () => Date = () => new Date()): ApprovalSweep {
  let running: Promise<number> | null = null;
  const runOnce = () => {
    running ??= approveDueCommissions(now()).finally(() => {
      running = null;
    });
    return running;
  };
  const timer = setInterval(() => {
    runOnce().catch((error: unknown) =>
      logger.error("commissions.approval_failed", "commission approval sweep failed", { error }),
    );
  }, intervalMs);
  timer.unref();
  return { runOnce, stop: () => clearInterval(timer) };
}
