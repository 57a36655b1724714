import type { PrismaClient } from "@prisma/client";
import { witnessOf, type Witness } from "../../app/attribution/witnesses";
import { ATTACKER_CREATOR, RIGHTFUL_CREATOR } from "./catalogue";
import type { Entry } from "./entry";

// Who got paid, per journey: the order's commission as the app recorded it, read from its
// database once the order has its outcome, and the order's Verification row, which says why
// (the witness that brought the credited click, what each witness named, the tampering found,
// the contest). The report's names are a public interface.

/**
 * rightful: the commission is the rightful creator's; attacker: a click made for cr_attacker was
 * credited; review: the commission is held for the merchant (status review), whoever it names;
 * nobody: no commission, or a reversed one; other: a creator neither rightful nor the
 * attacker (bob, say): never what any journey expects.
 */
export type Credited = "rightful" | "review" | "attacker" | "nobody" | "other";

export interface Verdict {
  outcome: string | null;
  witness: Witness | null;
  commission: { creatorId: string; status: string; amount: string; currency: string } | null;
  credited: Credited;
  verification: {
    captureSource: string | null;
    witnesses: unknown;
    tamperEvidence: unknown;
    contest: unknown;
  } | null;
  /** The discount codes the app stored for the order. */
  discountCodes: string[];
}

export interface StrategyResult {
  name: string;
  kind: Entry["kind"];
  expected: Entry["expected"];
  credited: Credited;
  description: string;
  /** Set on an attack the app is known not to stop: where that is explained. */
  knownException?: string;
  outcome: string | null;
  witness: Witness | null;
  creatorId: string | null;
  commissionStatus: string | null;
  verification: Verdict["verification"];
  discountCodes: string[];
  seconds: number;
  /** The calls the shop's app proxy answered, by path and status (touches, pixel reports). */
  appProxyCalls?: Record<string, Record<string, number>>;
  /** After a late report: whether it had the order judged again. */
  rejudged?: boolean;
  notes?: string[];
  error?: string;
}

/** Whose is whose for one order: the arena's are always cr_alice and cr_attacker; a population's vary. */
export interface Parties {
  rightful: string;
  attacker: string;
}

const ARENA_PARTIES: Parties = { rightful: RIGHTFUL_CREATOR, attacker: ATTACKER_CREATOR };

export function creditedOf(
  commission: { creatorId: string; status: string } | null,
  parties: Parties = ARENA_PARTIES,
): Credited {
  if (!commission || commission.status === "reversed") return "nobody";
  if (commission.status === "review") return "review";
  if (commission.creatorId === parties.attacker) return "attacker";
  if (commission.creatorId === parties.rightful) return "rightful";
  return "other";
}

export async function readVerdict(
  db: PrismaClient,
  shop: string,
  orderId: string,
  parties: Parties = ARENA_PARTIES,
): Promise<Verdict> {
  const row = await db.verification.findUnique({
    where: { shop_orderId: { shop, orderId } },
    select: {
      outcome: true,
      captureSource: true,
      witnesses: true,
      tamperEvidence: true,
      contest: true,
      discountCodes: { select: { code: true }, orderBy: { code: "asc" } },
      commission: { select: { creatorId: true, status: true, amount: true, currency: true } },
    },
  });
  const commission = row?.commission ?? null;
  return {
    outcome: row?.outcome ?? null,
    witness: witnessOf(row?.captureSource ?? null),
    commission,
    credited: creditedOf(commission, parties),
    verification: row && {
      captureSource: row.captureSource,
      witnesses: parsed(row.witnesses),
      tamperEvidence: parsed(row.tamperEvidence),
      contest: parsed(row.contest),
    },
    discountCodes: row?.discountCodes.map((c) => c.code) ?? [],
  };
}

function parsed(json: string | null): unknown {
  if (json === null) return null;
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

export interface ArenaReport {
  strategies: StrategyResult[];
  attackerCredited: number;
  honestWrong: number;
  /** Journeys whose commission waits for the merchant's decision (status review). */
  reviewCount: number;
}

/** Whether the run failed: someone paid wrongly outside the known exceptions, or a journey not played. */
export function arenaFailed(results: StrategyResult[]): boolean {
  return results.some(
    (r) =>
      Boolean(r.error) ||
      (r.credited === "attacker" && !r.knownException) ||
      (r.kind === "honest" && r.credited !== r.expected),
  );
}

export function arenaReport(results: StrategyResult[]): ArenaReport {
  return {
    strategies: results,
    attackerCredited: results.filter((r) => r.credited === "attacker").length,
    honestWrong: results.filter((r) => r.kind === "honest" && r.credited !== r.expected).length,
    reviewCount: results.filter((r) => r.credited === "review").length,
  };
}

/** What a row's result means to a reader of the matrix. */
function judgement(result: StrategyResult): string {
  if (result.error) return "ERROR";
  if (result.credited === "attacker")
    return result.knownException ? "ATTACKER PAID (known exception)" : "ATTACKER PAID";
  if (result.credited === result.expected) return "ok";
  if (result.credited === "review") return "held for review";
  return "WRONG";
}

export function formatMatrix(results: StrategyResult[]): string {
  const header = ["strategy", "kind", "expected", "credited", "outcome", "witness", "commission", "result"];
  const rows = results.map((r) => [
    r.name,
    r.kind,
    r.expected,
    r.credited,
    r.outcome ?? "-",
    r.witness ?? "-",
    r.creatorId ? `${r.creatorId} (${r.commissionStatus})` : "-",
    judgement(r),
  ]);
  return formatTable(header, rows);
}

/** Columns padded to their widest cell, under a header and a rule: the arena's tables. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}

/** For each journey that did not end as expected: why, from its Verification row. */
export function formatFindings(results: StrategyResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    if (r.credited === r.expected && !r.error && !r.notes?.length) continue;
    lines.push(`${r.name}: expected ${r.expected}, credited ${r.credited}${r.error ? `; error: ${r.error}` : ""}`);
    if (r.knownException) lines.push(`  known exception: ${r.knownException}`);
    if (r.verification) {
      lines.push(`  captureSource: ${r.verification.captureSource ?? "null"}`);
      lines.push(`  witnesses: ${JSON.stringify(r.verification.witnesses)}`);
      lines.push(`  tamperEvidence: ${JSON.stringify(r.verification.tamperEvidence)}`);
      lines.push(`  contest: ${JSON.stringify(r.verification.contest)}`);
    }
    for (const note of r.notes ?? []) lines.push(`  note: ${note}`);
  }
  return lines.join("\n");
}
