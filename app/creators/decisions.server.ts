import { Prisma, type Commission } from "@prisma/client";
import { commissionAmount, minorToAmount, remainingAfterRefunds } from "../commissions/commission-amount";
import { paidOut } from "../commissions/statuses";
import {
  DECIDABLE,
  HELD_STATES,
  STATE_AFTER,
  type CreatorState,
  type DecisionKind,
} from "../commissions/creator-standing";
import { rowLock } from "../database/dialect-sql.server";
import { insertRows, readDate, rowsOf, sql, type Sql, updateRow, updateWhere } from "../database/sql.server";
import {
  ClickRecord,
  Commission as CommissionTable,
  CreatorClaim,
  CreatorDecision,
  CreatorStanding,
} from "../database/tables";
import { rateForCreator } from "../settings/creator-rates";
import { shopRates } from "../settings/shop-settings.server";

// The merchant's decision on a suspected creator (docs/commissions.md, "Suspected creators"),
// made once for all their orders, in one transaction:
// - release: their commissions are paid as credited; evidence up to now no longer counts;
// - reverse: every record of theirs not yet paid is moved to the order's rightful claim (another
//   creator's click the order named, of a creator not held, a click without a tampering mark
//   first), or reversed where the order had none; evidence up to now no longer counts;
// - block: reverse, and from now on their clicks take no order (app/attribution/witnesses.ts).
// Each is a CreatorDecision row (who, when, what it moved) and a `creator_decision` entry per
// record moved; undo puts every record and the standing back as they were, refused when a
// record it moved has been paid since. The standing row is locked first, then the records, as a
// payout locks them: a payout never pays a record a decision reverses.

export type DecisionResult =
  | { ok: true; decisionId: string; state: CreatorState; moved: number; reversed: number }
  | { ok: false; error: "not-found" | "changed" | "not-decidable" };

export type UndoResult =
  | { ok: true; state: CreatorState; restored: number }
  | { ok: false; error: "not-found" | "undone" | "not-latest" | "paid-since"; paid?: number };

/** A record as it stood before a decision moved it: what undo writes back. */
interface RecordBefore {
  id: string;
  creatorId: string;
  expectedTag: string;
  arrivedTag: string;
  redirected: boolean;
  rate: string;
  amountMinor: string;
  status: string;
  approvedAt: string | null;
  reversedAt: string | null;
  /** The decision reversed it (no rightful claim); otherwise it moved it to another creator. */
  reversedByDecision?: boolean;
}

interface DecisionChanges {
  before: { state: CreatorState; evidenceFrom: string | null };
  records: RecordBefore[];
}

const UNPAID = Prisma.join(["pending", "approved", "review"]);

interface StandingRow {
  state: CreatorState;
  version: number;
  evidenceFrom: Date | null;
}

async function lockedStanding(tx: Sql, shop: string, creatorId: string): Promise<StandingRow | null> {
  const [row] = await tx.rows<{ state: string; version: unknown; evidenceFrom: unknown }>(Prisma.sql`
    SELECT ${CreatorStanding.columns("state", "version", "evidenceFrom")} FROM ${CreatorStanding}
    WHERE ${CreatorStanding.shop} = ${shop} AND ${CreatorStanding.creatorId} = ${creatorId} ${rowLock()}`);
  if (!row) return null;
  return {
    state: row.state as CreatorState,
    version: Number(row.version),
    evidenceFrom: row.evidenceFrom == null ? null : readDate(row.evidenceFrom),
  };
}

const standingWhere = (shop: string, creatorId: string) =>
  Prisma.sql`${CreatorStanding.shop} = ${shop} AND ${CreatorStanding.creatorId} = ${creatorId}`;

/**
 * `version`: the standing's version the merchant decided on (the page shows it); a decision on
 * an older view is refused, so of two made at once one wins.
 */
export async function decideCreator(
  shop: string,
  creatorId: string,
  decision: { kind: DecisionKind; version: number; by: string | null },
  now: Date = new Date(),
): Promise<DecisionResult> {
  return sql.transaction(async (tx) => {
    const settings = await shopRates(tx, shop);
    const standing = await lockedStanding(tx, shop, creatorId);
    if (!standing) return { ok: false, error: "not-found" } as const;
    if (standing.version !== decision.version) return { ok: false, error: "changed" } as const;
    if (!DECIDABLE[decision.kind].includes(standing.state)) return { ok: false, error: "not-decidable" } as const;
    const decisionId = crypto.randomUUID();
    const records: RecordBefore[] = [];
    let reversed = 0;
    if (decision.kind !== "release") {
      const unpaid = await rowsOf<Commission>(
        tx,
        "Commission",
        Prisma.sql`SELECT * FROM ${CommissionTable} WHERE ${CommissionTable.shop} = ${shop}
          AND ${CommissionTable.creatorId} = ${creatorId} AND ${CommissionTable.status} IN (${UNPAID}) ${rowLock()}`,
      );
      for (const record of unpaid) {
        const rightful = await rightfulClaim(tx, shop, record, creatorId);
        records.push({ ...beforeOf(record), reversedByDecision: rightful === null });
        const rate = rightful && settings ? rateForCreator(settings, rightful.creatorId) : record.rate;
        const data: Partial<Commission> = rightful
          ? movedTo(record, rightful, rate, now)
          : { amountMinor: 0n, amount: minorToAmount(0n, record.currency), status: "reversed", reversedAt: now };
        if (!rightful) reversed += 1;
        await writeMove(tx, record, data, `${decisionId}`, now);
      }
    }
    const state = STATE_AFTER[decision.kind];
    await updateWhere(tx, "CreatorStanding", standingWhere(shop, creatorId), {
      state,
      // Block keeps the cut it had: unblocking (undo) goes back to what was counted before.
      evidenceFrom: decision.kind === "block" ? undefined : now,
      version: Prisma.sql`${CreatorStanding.version} + 1`,
      updatedAt: now,
    });
    const changes: DecisionChanges = {
      before: { state: standing.state, evidenceFrom: standing.evidenceFrom?.toISOString() ?? null },
      records,
    };
    await insertRows(tx, "CreatorDecision", [
      {
        id: decisionId,
        shop,
        creatorId,
        kind: decision.kind,
        by: decision.by,
        at: now,
        changes: JSON.stringify(changes),
      },
    ]);
    return { ok: true, decisionId, state, moved: records.length - reversed, reversed } as const;
  });
}

/** Undoes the creator's latest decision: every record it moved back as it was, and the standing. */
export async function undoDecision(
  shop: string,
  decisionId: string,
  by: string | null,
  now: Date = new Date(),
): Promise<UndoResult> {
  return sql.transaction(async (tx) => {
    const [decision] = await tx.rows<{ creatorId: string; changes: string; undoneAt: unknown }>(Prisma.sql`
      SELECT ${CreatorDecision.columns("creatorId", "changes", "undoneAt")} FROM ${CreatorDecision}
      WHERE ${CreatorDecision.shop} = ${shop} AND ${CreatorDecision.id} = ${decisionId}`);
    if (!decision) return { ok: false, error: "not-found" } as const;
    if (decision.undoneAt != null) return { ok: false, error: "undone" } as const;
    const standing = await lockedStanding(tx, shop, decision.creatorId);
    if (!standing) return { ok: false, error: "not-found" } as const;
    const [latest] = await tx.rows<{ id: string }>(Prisma.sql`
      SELECT ${CreatorDecision.id} FROM ${CreatorDecision}
      WHERE ${CreatorDecision.shop} = ${shop} AND ${CreatorDecision.creatorId} = ${decision.creatorId} AND ${CreatorDecision.undoneAt} IS NULL
      ORDER BY ${CreatorDecision.at} DESC, ${CreatorDecision.id} DESC LIMIT 1`);
    if (latest?.id !== decisionId) return { ok: false, error: "not-latest" } as const;
    const changes = JSON.parse(decision.changes) as DecisionChanges;
    const ids = changes.records.map((r) => r.id);
    const current = ids.length
      ? await rowsOf<Commission>(
          tx,
          "Commission",
          Prisma.sql`SELECT * FROM ${CommissionTable} WHERE ${CommissionTable.id} IN (${Prisma.join(ids)}) ${rowLock()}`,
        )
      : [];
    const paid = current.filter((r) => paidOut(r.status)).length;
    if (paid > 0) return { ok: false, error: "paid-since", paid } as const;
    for (const before of changes.records) {
      const record = current.find((r) => r.id === before.id);
      if (record) await writeMove(tx, record, restored(record, before), `undo:${decisionId}`, now);
    }
    await updateWhere(tx, "CreatorStanding", standingWhere(shop, decision.creatorId), {
      state: changes.before.state,
      evidenceFrom: changes.before.evidenceFrom ? new Date(changes.before.evidenceFrom) : null,
      version: Prisma.sql`${CreatorStanding.version} + 1`,
      updatedAt: now,
    });
    await updateWhere(tx, "CreatorDecision", Prisma.sql`${CreatorDecision.id} = ${decisionId}`, {
      undoneAt: now,
      undoneBy: by,
    });
    return { ok: true, state: changes.before.state, restored: changes.records.length } as const;
  });
}

/**
 * The record as it was before the decision, on what happened to the order since: refunds and
 * edits applied meanwhile stay applied (the amount is worked out again at the rate restored),
 * and a record a cancellation reversed since stays reversed, with its creator back.
 */
function restored(record: Commission, before: RecordBefore): Partial<Commission> {
  const creator = {
    creatorId: before.creatorId,
    expectedTag: before.expectedTag,
    arrivedTag: before.arrivedTag,
    redirected: before.redirected,
    rate: before.rate,
  };
  if (record.status === "reversed" && !before.reversedByDecision) return creator;
  const credit = commissionAmount(record.orderValue, before.rate, record.currency).amountMinor;
  const amountMinor =
    before.status === "reversed"
      ? BigInt(before.amountMinor)
      : remainingAfterRefunds(credit, record.orderValue, record.refunded);
  return {
    ...creator,
    amountMinor,
    amount: minorToAmount(amountMinor, record.currency),
    status: before.status,
    approvedAt: before.approvedAt ? new Date(before.approvedAt) : null,
    reversedAt: before.reversedAt ? new Date(before.reversedAt) : null,
  };
}

function beforeOf(record: Commission): RecordBefore {
  return {
    id: record.id,
    creatorId: record.creatorId,
    expectedTag: record.expectedTag,
    arrivedTag: record.arrivedTag,
    redirected: record.redirected,
    rate: record.rate,
    amountMinor: String(record.amountMinor),
    status: record.status,
    approvedAt: record.approvedAt?.toISOString() ?? null,
    reversedAt: record.reversedAt?.toISOString() ?? null,
  };
}

interface Rightful {
  creatorId: string;
  expectedTag: string;
  arrivedTag: string | null;
}

/**
 * The order's rightful claim once the creator's is set aside: another creator's click the order
 * named (its claims), of a creator not held, one without a tampering mark first, the earliest
 * recorded first; null when the order named nobody else.
 */
async function rightfulClaim(tx: Sql, shop: string, record: Commission, creatorId: string): Promise<Rightful | null> {
  const [claim] = await tx.rows<{ creatorId: string; expectedTag: string | null }>(Prisma.sql`
    SELECT k.${CreatorClaim.creatorId}, r.${ClickRecord.expectedTag} FROM ${CreatorClaim} k
    JOIN ${ClickRecord} r ON r.${ClickRecord.shop} = k.${CreatorClaim.shop} AND r.${ClickRecord.clickId} = k.${CreatorClaim.clickId}
    WHERE k.${CreatorClaim.verificationId} = ${record.verificationId} AND k.${CreatorClaim.creatorId} <> ${creatorId}
      AND r.${ClickRecord.state} = 'known'
      AND NOT EXISTS (SELECT 1 FROM ${CreatorStanding} s WHERE s.${CreatorStanding.shop} = ${shop}
        AND s.${CreatorStanding.creatorId} = k.${CreatorClaim.creatorId} AND s.${CreatorStanding.state} IN (${Prisma.join([...HELD_STATES])}))
    ORDER BY k.${CreatorClaim.tampering}, k.${CreatorClaim.createdAt}, k.${CreatorClaim.creatorId} LIMIT 1`);
  if (!claim || claim.expectedTag === null) return null;
  return { creatorId: claim.creatorId, expectedTag: claim.expectedTag, arrivedTag: claim.expectedTag };
}

/** The record credited to the rightful claim at their rate, net of refunds; its hold goes on. */
function movedTo(record: Commission, rightful: Rightful, rate: string, now: Date): Partial<Commission> {
  const credit = commissionAmount(record.orderValue, rate, record.currency).amountMinor;
  const amountMinor = remainingAfterRefunds(credit, record.orderValue, record.refunded);
  const approved = record.holdUntil !== null && record.holdUntil <= now;
  return {
    creatorId: rightful.creatorId,
    expectedTag: rightful.expectedTag,
    arrivedTag: rightful.arrivedTag ?? "",
    redirected: true,
    rate,
    amountMinor,
    amount: minorToAmount(amountMinor, record.currency),
    status: approved ? "approved" : "pending",
    approvedAt: approved ? now : null,
    reversedAt: null,
  };
}

/** Writes a move and its ledger entry (the difference in amount), named by the decision. */
async function writeMove(tx: Sql, record: Commission, data: Partial<Commission>, eventId: string, now: Date) {
  const delta = (data.amountMinor ?? record.amountMinor) - record.amountMinor;
  await insertRows(tx, "CommissionEntry", [
    {
      shop: record.shop,
      commissionId: record.id,
      kind: "creator_decision",
      amountMinor: delta,
      amount: minorToAmount(delta, record.currency),
      eventId,
      createdAt: now,
    },
  ]);
  await updateRow<Commission>(tx, "Commission", record.id, data);
}
