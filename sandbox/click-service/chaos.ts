// Probabilistic faults for chaos runs: instead of "the next N calls", a share of all merchant
// calls misbehave, drawn from a seeded random source so a run can be replayed. Each kind is
// one of the deterministic faults of faults.ts; what was injected is counted by kind.
import { DEFAULT_TIMEOUTS } from "../../app/click-service/http";
import { pickWeighted, seededRandom, type Random } from "../seeded-random";
import type { Fault } from "./faults";

export const CHAOS_FAULT_KINDS = ["http-503", "slow-reply", "dropped", "answer-lost"] as const;
export type ChaosFaultKind = (typeof CHAOS_FAULT_KINDS)[number];

export interface ChaosPlan {
  seed: number;
  /** Share of merchant calls (/api/...) that get a fault, from 0 to 1. */
  rate: number;
  /** Relative weights of the kinds; every kind equally likely when omitted. */
  weights?: Partial<Record<ChaosFaultKind, number>>;
  /** How long a slow reply is held: past the app client's timeout by default. */
  slowMs?: number;
}

export type ParsedChaosPlan = { ok: true; plan: ChaosPlan } | { ok: false; message: string };

const MAX_SLOW_MS = 120_000;
const DEFAULT_SLOW_MS = DEFAULT_TIMEOUTS.headersTimeoutMs + 1_000;

export function parseChaosPlan(body: Record<string, unknown>): ParsedChaosPlan {
  const { seed, rate, weights, slow_ms: slowMs } = body;
  if (!Number.isInteger(seed)) return { ok: false, message: "seed must be an integer" };
  if (typeof rate !== "number" || !(rate >= 0 && rate <= 1))
    return { ok: false, message: "rate must be between 0 and 1" };
  if (weights !== undefined) {
    if (typeof weights !== "object" || weights === null || Array.isArray(weights))
      return { ok: false, message: `weights must be an object of ${CHAOS_FAULT_KINDS.join(", ")}` };
    for (const [kind, weight] of Object.entries(weights)) {
      if (!(CHAOS_FAULT_KINDS as readonly string[]).includes(kind))
        return { ok: false, message: `weights: unknown kind ${JSON.stringify(kind)}` };
      if (typeof weight !== "number" || !(weight >= 0)) return { ok: false, message: `weights.${kind} must be >= 0` };
    }
  }
  if (slowMs !== undefined && (!Number.isInteger(slowMs) || (slowMs as number) < 1 || (slowMs as number) > MAX_SLOW_MS))
    return { ok: false, message: `slow_ms must be an integer between 1 and ${MAX_SLOW_MS}` };
  return {
    ok: true,
    plan: {
      seed: seed as number,
      rate,
      ...(weights === undefined ? {} : { weights: weights as ChaosPlan["weights"] }),
      ...(slowMs === undefined ? {} : { slowMs: slowMs as number }),
    },
  };
}

export class ChaosFaults {
  readonly injected: Record<ChaosFaultKind, number> = { "http-503": 0, "slow-reply": 0, dropped: 0, "answer-lost": 0 };
  private readonly random: Random;
  private readonly weights: Partial<Record<ChaosFaultKind, number>>;
  private readonly slowMs: number;

  constructor(readonly plan: ChaosPlan) {
    this.random = seededRandom(plan.seed);
    this.weights = plan.weights ?? Object.fromEntries(CHAOS_FAULT_KINDS.map((kind) => [kind, 1]));
    this.slowMs = plan.slowMs ?? DEFAULT_SLOW_MS;
  }

  /** A fault for this call, or undefined when it goes through untouched. */
  draw(path: string): Fault | undefined {
    if (this.random() >= this.plan.rate) return undefined;
    const kind = pickWeighted(this.random, this.weights);
    if (!kind) return undefined;
    this.injected[kind] += 1;
    const base = { path, remaining: 0, delayMs: 0, drop: false, after: false };
    switch (kind) {
      case "http-503":
        return { ...base, status: 503, error: "Service Unavailable" };
      case "slow-reply":
        // Handled and recorded, then answered after the client has stopped waiting.
        return { ...base, delayMs: this.slowMs, after: true };
      case "dropped":
        // The connection is cut before the call is handled: nothing recorded.
        return { ...base, drop: true };
      case "answer-lost":
        // Handled and recorded, then the connection is cut before a byte of the answer.
        return { ...base, drop: true, after: true };
    }
  }
}
