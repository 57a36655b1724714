import { randomUUID } from "node:crypto";
import { createClickServiceClient } from "../click-service";
import prisma from "../db.server";
import { env } from "../env.server";
import { logger } from "../logger.server";
import { unauthenticated } from "../shopify.server";
import { backoffDelay, MAX_ATTEMPTS } from "./retry-policy";
import { LeaseLost, verifyOrder, type PipelineDeps } from "./verify-order.server";
import { onWake } from "./wake.server";

// The verification worker runs inside the app's server process. It wakes when intake records
// an order and also polls, so work survives restarts and reaches every instance. Instances
// share the database safely: a row is claimed by one conditional UPDATE that only one of
// them can win, and the claim is a lease that another instance takes over if its owner dies.

export interface WorkerOptions {
  owner?: string;
  concurrency?: number;
  pollIntervalMs?: number;
  leaseMs?: number;
  deps?: Partial<PipelineDeps>;
}

export interface VerificationWorker {
  readonly owner: string;
  /** Claims and processes everything due now; resolves when that batch is done. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

const DEFAULT_LEASE_MS = 2 * 60_000;

export const defaultPipelineDeps: PipelineDeps = {
  now: () => new Date(),
  random: Math.random,
  clickService: (settings) => createClickServiceClient({ baseUrl: settings.clickServiceUrl, apiKey: settings.apiKey }),
  adminGraphql: async (shop) => {
    try {
      const { admin } = await unauthenticated.admin(shop);
      return admin.graphql;
    } catch {
      return null;
    }
  },
};

export function startVerificationWorker(options: WorkerOptions = {}): VerificationWorker {
  const owner = options.owner ?? `worker-${randomUUID()}`;
  const concurrency = options.concurrency ?? env().WORKER_CONCURRENCY;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const deps: PipelineDeps = { ...defaultPipelineDeps, ...options.deps };
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let ticking: Promise<number> | null = null;
  let again = false;

  async function claim(limit: number): Promise<string[]> {
    const now = deps.now();
    const due = {
      OR: [
        { state: "queued", nextAttemptAt: { lte: now } },
        { state: "processing", leaseExpiresAt: { lt: now } },
      ],
    };
    const candidates = await prisma.verification.findMany({
      where: due,
      orderBy: { nextAttemptAt: "asc" },
      take: limit,
      select: { id: true },
    });
    const claimed: string[] = [];
    for (const { id } of candidates) {
      const { count } = await prisma.verification.updateMany({
        where: { id, ...due },
        data: { state: "processing", leaseOwner: owner, leaseExpiresAt: new Date(now.getTime() + leaseMs) },
      });
      if (count === 1) claimed.push(id);
    }
    return claimed;
  }

  async function process(id: string): Promise<void> {
    try {
      await verifyOrder(id, owner, deps);
    } catch (error) {
      if (error instanceof LeaseLost) {
        logger.warn("verification lease lost; another worker took over", { verificationId: id });
        return;
      }
      // An unexpected fault (database busy, a bug): put the order back, never drop it, but
      // count it, so a fault that repeats ends as `failed` with its message instead of looping.
      logger.error("verification step failed; will retry", { verificationId: id, error });
      await releaseAfterFault(id, String(error).slice(0, 500)).catch((releaseError: unknown) =>
        logger.error("could not release verification", { verificationId: id, error: releaseError }),
      );
    }
  }

  async function releaseAfterFault(id: string, message: string): Promise<void> {
    const row = await prisma.verification.findUnique({ where: { id }, select: { attempts: true } });
    const attempts = (row?.attempts ?? 0) + 1;
    const now = deps.now();
    const giveUp = attempts >= MAX_ATTEMPTS;
    await prisma.verification.updateMany({
      where: { id, leaseOwner: owner },
      data: giveUp
        ? {
            state: "done",
            outcome: "failed",
            reason: `internal error: ${message}`,
            attempts,
            completedAt: now,
            leaseOwner: null,
            leaseExpiresAt: null,
            lastError: message,
          }
        : {
            state: "queued",
            attempts,
            nextAttemptAt: new Date(now.getTime() + backoffDelay(attempts, deps.random)),
            leaseOwner: null,
            leaseExpiresAt: null,
            lastError: message,
          },
    });
  }

  async function drain(): Promise<number> {
    let total = 0;
    do {
      again = false;
      const room = concurrency - inFlight.size;
      const ids = stopped || room <= 0 ? [] : await claim(room);
      total += ids.length;
      for (const id of ids) {
        const job = process(id).finally(() => inFlight.delete(job));
        inFlight.add(job);
      }
      if (inFlight.size > 0) await Promise.race(inFlight);
    } while (!stopped && (again || inFlight.size > 0));
    return total;
  }

  function runOnce(): Promise<number> {
    if (ticking) {
      again = true;
      return ticking;
    }
    ticking = drain().finally(() => {
      ticking = null;
    });
    return ticking;
  }

  const kick = () => {
    if (!stopped) runOnce().catch((error: unknown) => logger.error("verification worker tick failed", { error }));
  };
  const unsubscribe = onWake(kick);
  const timer = setInterval(kick, options.pollIntervalMs ?? env().WORKER_POLL_INTERVAL_MS);
  timer.unref();
  kick();

  return {
    owner,
    runOnce,
    async stop() {
      stopped = true;
      unsubscribe();
      clearInterval(timer);
      await Promise.allSettled([...inFlight, ticking]);
    },
  };
}

/** After the merchant fixes the API key: orders parked as rejected go again while their click lives. */
export async function requeueRejected(shop: string, now: Date = new Date()): Promise<number> {
  const { count } = await prisma.verification.updateMany({
    where: { shop, state: "parked", outcome: "rejected", OR: [{ deadlineAt: null }, { deadlineAt: { gt: now } }] },
    data: { state: "queued", outcome: null, reason: null, nextAttemptAt: now },
  });
  return count;
}
