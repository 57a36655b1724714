import prisma from "../database/db.server";
import { logger } from "../platform/logger.server";

// Approval: a pending record whose hold has ended becomes approved, unless refunds or a
// cancellation took it to nothing (it is reversed then, never pending). A periodic sweep in
// the worker process; every update is conditional on the record still being pending, so
// several instances sweeping at once, or a refund applied meanwhile, never conflict.

const BATCH = 500;

/** Approves every record due at `now`, a batch at a time; returns how many. */
export async function approveDueCommissions(now: Date): Promise<number> {
  let approved = 0;
  for (;;) {
    const due = await prisma.commission.findMany({
      where: { status: "pending", holdUntil: { lte: now } },
      select: { id: true },
      take: BATCH,
    });
    if (due.length === 0) return approved;
    const { count } = await prisma.commission.updateMany({
      where: { id: { in: due.map((row) => row.id) }, status: "pending" },
      data: { status: "approved", approvedAt: now },
    });
    approved += count;
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
    runOnce().catch((error: unknown) => logger.error("commission approval sweep failed", { error }));
  }, intervalMs);
  timer.unref();
  return { runOnce, stop: () => clearInterval(timer) };
}
