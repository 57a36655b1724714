import { Prisma } from "@prisma/client";
import type { CreatorState, DecisionKind } from "../commissions/creator-standing";
import { readDate, sql } from "../database/sql.server";
import { Commission, CreatorClaim, CreatorDecision, CreatorStanding } from "../database/tables";
import { t } from "../i18n";
import { formatShopDay, formatShopTime, type ShopFormat } from "../units/shop-format";
import type { SuspicionEvidence } from "./evidence.server";
import { SUSPICION } from "./suspicion";

// Where a creator stands, for the Creators page (creator-page.server.ts): their standing with
// why the rule suspected them in words naming its thresholds, what a decision would move, and
// the merchant's decisions on them, newest first.

const DECISIONS_SHOWN = 50;

type Count = number | bigint | string | null;
const count = (value: unknown) => Number((value as Count) ?? 0);

export interface StandingView {
  state: CreatorState;
  version: number;
  suspectedAt: string | null;
  /** What the state means for the creator's money, in words. */
  summary: string;
  /** Why the rule suspected them, and the rule, from the evidence it read (null before any suspicion). */
  why: string | null;
  rule: string | null;
  firstSuspected: string | null;
}

/** The creator's records not yet paid, by status: what a decision would move. */
export interface UnpaidRecords {
  pending: number;
  approved: number;
  review: number;
  /** Of them, records whose order named another creator's click: a reversal credits them to that creator. */
  toAnotherCreator: number;
}

export interface CreatorDecisionView {
  id: string;
  kind: DecisionKind;
  by: string | null;
  at: string;
  /** Records the decision moved (to another creator or reversed). */
  moved: number;
  undoneAt: string | null;
  undoneBy: string | null;
  /** The latest decision still standing: the only one undo takes. */
  canUndo: boolean;
}

export interface StandingRow {
  state: CreatorState;
  version: number;
  evidence: SuspicionEvidence | null;
  suspectedAt: Date | null;
  suspectedAfterOrders: number | null;
}

export async function standingOf(shop: string, creatorId: string): Promise<StandingRow | null> {
  const [row] = await sql.rows<{
    state: string;
    version: unknown;
    evidence: string;
    suspectedAt: unknown;
    suspectedAfterOrders: unknown;
  }>(Prisma.sql`
    SELECT ${CreatorStanding.columns("state", "version", "evidence", "suspectedAt", "suspectedAfterOrders")}
    FROM ${CreatorStanding} WHERE ${CreatorStanding.shop} = ${shop} AND ${CreatorStanding.creatorId} = ${creatorId}`);
  if (!row) return null;
  return {
    state: row.state as CreatorState,
    version: Number(row.version),
    evidence: readEvidence(row.evidence),
    suspectedAt: row.suspectedAt == null ? null : readDate(row.suspectedAt),
    suspectedAfterOrders: row.suspectedAfterOrders == null ? null : Number(row.suspectedAfterOrders),
  };
}

export function readEvidence(json: string | null | undefined): SuspicionEvidence | null {
  try {
    const value = JSON.parse(json ?? "") as Partial<SuspicionEvidence> | null;
    return value && typeof value.reason === "string" && typeof value.claims === "number"
      ? (value as SuspicionEvidence)
      : null;
  } catch {
    return null;
  }
}

/** The rule's thresholds, as its sentences name them. */
export function ruleVars(): Record<string, string | number> {
  return {
    minClaims: SUSPICION.minClaims,
    minTampering: SUSPICION.minTampering,
    minStoodDown: SUSPICION.minStoodDown,
    share: `${Math.round(SUSPICION.minShare * 100)}%`,
    windowDays: SUSPICION.windowDays,
  };
}

export function standingView(row: StandingRow, format: ShopFormat): StandingView {
  const suspectedAt = row.suspectedAt?.toISOString() ?? null;
  const evidence = row.evidence;
  const when = (iso: string) => formatShopTime(iso, format);
  return {
    state: row.state,
    version: row.version,
    suspectedAt,
    summary: t(`creators.standing.state.${row.state}`, { time: suspectedAt ? when(suspectedAt) : "—" }),
    why: evidence
      ? t(`creators.standing.why.${evidence.reason}`, {
          ...evidence,
          from: formatShopDay(evidence.from, format),
          at: formatShopDay(evidence.at, format),
        })
      : null,
    rule: evidence ? t(`creators.standing.rule.${evidence.reason}`, ruleVars()) : null,
    firstSuspected:
      row.suspectedAfterOrders === null
        ? null
        : t("creators.standing.firstSuspected", { count: row.suspectedAfterOrders }),
  };
}

export async function unpaidOf(shop: string, creatorId: string): Promise<UnpaidRecords> {
  const unpaid = Prisma.join(["pending", "approved", "review"]);
  const [byStatus, [other]] = await Promise.all([
    sql.rows<{ status: string; n: Count }>(Prisma.sql`
      SELECT ${Commission.status}, COUNT(*) AS "n" FROM ${Commission}
      WHERE ${Commission.shop} = ${shop} AND ${Commission.creatorId} = ${creatorId} AND ${Commission.status} IN (${unpaid})
      GROUP BY ${Commission.status}`),
    // Records whose order named another creator's click: a reversal credits them to that creator.
    sql.rows<{ n: Count }>(Prisma.sql`
      SELECT COUNT(*) AS "n" FROM ${Commission} c
      WHERE c.${Commission.shop} = ${shop} AND c.${Commission.creatorId} = ${creatorId} AND c.${Commission.status} IN (${unpaid})
        AND EXISTS (SELECT 1 FROM ${CreatorClaim} k WHERE k.${CreatorClaim.verificationId} = c.${Commission.verificationId}
                    AND k.${CreatorClaim.creatorId} <> ${creatorId})`),
  ]);
  const of = (status: string) => count(byStatus.find((row) => row.status === status)?.n);
  return { pending: of("pending"), approved: of("approved"), review: of("review"), toAnotherCreator: count(other?.n) };
}

export async function decisionsOf(shop: string, creatorId: string): Promise<CreatorDecisionView[]> {
  const rows = await sql.rows<{
    id: string;
    kind: string;
    by: string | null;
    at: unknown;
    changes: string;
    undoneAt: unknown;
    undoneBy: string | null;
  }>(Prisma.sql`
    SELECT ${CreatorDecision.columns("id", "kind", "by", "at", "changes", "undoneAt", "undoneBy")} FROM ${CreatorDecision}
    WHERE ${CreatorDecision.shop} = ${shop} AND ${CreatorDecision.creatorId} = ${creatorId}
    ORDER BY ${CreatorDecision.at} DESC, ${CreatorDecision.id} DESC LIMIT ${DECISIONS_SHOWN}`);
  // undoDecision takes the latest decision not undone, in this same order.
  const latest = rows.find((row) => row.undoneAt == null)?.id;
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind as DecisionKind,
    by: row.by,
    at: readDate(row.at).toISOString(),
    moved: movedBy(row.changes),
    undoneAt: row.undoneAt == null ? null : readDate(row.undoneAt).toISOString(),
    undoneBy: row.undoneBy,
    canUndo: row.id === latest,
  }));
}

function movedBy(changes: string): number {
  try {
    const value = JSON.parse(changes) as { records?: unknown[] };
    return Array.isArray(value.records) ? value.records.length : 0;
  } catch {
    return 0;
  }
}
