import { Prisma } from "@prisma/client";
import type { CreatorEvidenceClaim } from "../attribution/creator-evidence";
import { sqlTime } from "../database/db.server";
import { rowLock } from "../database/dialect-sql.server";
import { deleteWhere, insertRows, readDate, type Sql, updateWhere, upsertRow } from "../database/sql.server";
import { Commission, CreatorClaim, CreatorStanding, Verification } from "../database/tables";
import type { CreatorState } from "../commissions/creator-standing";
import { heldCreators } from "../commissions/held-creators.server";
import { readContest, settleContest } from "../commissions/review.server";
import { shopRates } from "../settings/shop-settings.server";
import { SUSPICION, suspicionOf, type CreatorEvidenceCounts, type SuspicionReason } from "./suspicion";

// Evidence by creator, written where the order's verification writes (order-run.server.ts):
// the order's claims replace what an earlier judgement of it wrote, and each creator they name
// is weighed again by the rule (suspicion.ts), in the same transaction. Only a creator an order
// names without crediting can cross it: a credited order only lowers their share.

export interface OrderOfClaims {
  shop: string;
  verificationId: string;
  orderId: string;
  orderName: string | null;
  orderAt: Date;
}

/** What the rule read when it suspected the creator, kept on their standing (the page says why). */
export interface SuspicionEvidence extends CreatorEvidenceCounts {
  reason: SuspicionReason;
  /** The window the counts cover: from (ISO) to the time of the suspicion. */
  from: string;
  at: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Contested orders settled in the transaction that suspects a creator; the rest wait for the merchant's decision on the creator. */
const MAX_SETTLED = 200;

export async function recordCreatorEvidence(
  tx: Sql,
  order: OrderOfClaims,
  claims: readonly CreatorEvidenceClaim[],
  now: Date,
): Promise<void> {
  await deleteWhere(tx, "CreatorClaim", Prisma.sql`${CreatorClaim.verificationId} = ${order.verificationId}`);
  await insertRows(
    tx,
    "CreatorClaim",
    claims.map((claim) => ({
      shop: order.shop,
      creatorId: claim.creatorId,
      verificationId: order.verificationId,
      orderId: order.orderId,
      orderName: order.orderName,
      clickId: claim.clickIds[0] ?? null,
      outcome: claim.outcome,
      signals: claim.signals.join(","),
      tampering: claim.tampering,
      orderAt: order.orderAt,
      createdAt: now,
    })),
  );
  // One creator after another, in one order, so two orders' transactions lock standings alike.
  for (const creatorId of [...new Set(claims.map((c) => c.creatorId))].sort())
    await weighCreator(tx, order.shop, creatorId, now);
}

/** The creator's evidence since `from`: each order once, whether it credited or named them. */
export async function evidenceCounts(
  tx: Sql,
  shop: string,
  creatorId: string,
  from: Date,
): Promise<CreatorEvidenceCounts> {
  const [claims] = await tx.rows<{ claims: unknown; tampering: unknown }>(Prisma.sql`
    SELECT COUNT(*) AS "claims", COALESCE(SUM(CASE WHEN ${CreatorClaim.tampering} THEN 1 ELSE 0 END), 0) AS "tampering"
    FROM ${CreatorClaim}
    WHERE ${CreatorClaim.shop} = ${shop} AND ${CreatorClaim.creatorId} = ${creatorId} AND ${CreatorClaim.orderAt} >= ${sqlTime(from)}`);
  // Credited records whose order names them in a claim too (a contested order) are counted once.
  const [credited] = await tx.rows<{ credited: unknown }>(Prisma.sql`
    SELECT COUNT(*) AS "credited" FROM ${Commission} c
    WHERE c.${Commission.shop} = ${shop} AND c.${Commission.creatorId} = ${creatorId} AND c.${Commission.createdAt} >= ${sqlTime(from)}
      AND NOT EXISTS (SELECT 1 FROM ${CreatorClaim} k WHERE k.${CreatorClaim.verificationId} = c.${Commission.verificationId}
                      AND k.${CreatorClaim.creatorId} = c.${Commission.creatorId})`);
  const count = (value: unknown) => Number(value ?? 0);
  return {
    orders: count(claims?.claims) + count(credited?.credited),
    claims: count(claims?.claims),
    tampering: count(claims?.tampering),
  };
}

/**
 * Weighs one creator's evidence with the rule and suspects them when it says so: a creator
 * never suspected, or released or reversed before (on evidence newer than that decision). A
 * suspected creator's evidence is brought up to date; a blocked one is left as they are.
 */
export async function weighCreator(tx: Sql, shop: string, creatorId: string, now: Date): Promise<void> {
  const [standing] = await tx.rows<{ state: string; evidenceFrom: unknown; suspectedAfterOrders: unknown }>(Prisma.sql`
    SELECT ${CreatorStanding.columns("state", "evidenceFrom", "suspectedAfterOrders")} FROM ${CreatorStanding}
    WHERE ${CreatorStanding.shop} = ${shop} AND ${CreatorStanding.creatorId} = ${creatorId} ${rowLock()}`);
  const state = standing?.state as CreatorState | undefined;
  if (state === "blocked") return;
  const windowStart = new Date(now.getTime() - SUSPICION.windowDays * DAY_MS);
  const cut = standing?.evidenceFrom == null ? null : readDate(standing.evidenceFrom);
  const from = cut && cut > windowStart ? cut : windowStart;
  const counts = await evidenceCounts(tx, shop, creatorId, from);
  const reason = suspicionOf(counts);
  if (reason === null) return;
  const evidence: SuspicionEvidence = { reason, ...counts, from: from.toISOString(), at: now.toISOString() };
  const snapshot = JSON.stringify(evidence);
  if (state !== "suspected") await settleOpenContests(tx, shop, creatorId, now);
  if (!standing) {
    // Two orders naming a new creator at once: the second finds the row the first wrote.
    await upsertRow(
      tx,
      "CreatorStanding",
      ["shop", "creatorId"],
      {
        shop,
        creatorId,
        state: "suspected",
        evidence: snapshot,
        suspectedAt: now,
        suspectedAfterOrders: counts.orders,
        version: 1,
        updatedAt: now,
      },
      ["evidence", "updatedAt"],
    );
    return;
  }
  await updateWhere(
    tx,
    "CreatorStanding",
    Prisma.sql`${CreatorStanding.shop} = ${shop} AND ${CreatorStanding.creatorId} = ${creatorId}`,
    state === "suspected"
      ? { evidence: snapshot, updatedAt: now }
      : {
          state: "suspected",
          evidence: snapshot,
          suspectedAt: now,
          suspectedAfterOrders: standing.suspectedAfterOrders == null ? counts.orders : undefined,
          version: Prisma.sql`${CreatorStanding.version} + 1`,
          updatedAt: now,
        },
  );
}

/**
 * The orders still waiting for the merchant with a claim of the newly suspected creator: settled
 * as the policy now settles such a contest (app/attribution/witnesses.ts). A record credited for
 * now to the suspect goes to the order's first other claim of a creator not held, or nobody; a
 * record credited to another creator stays theirs. The order keeps the decision, by the app.
 */
async function settleOpenContests(tx: Sql, shop: string, creatorId: string, now: Date): Promise<void> {
  await settleContests(tx, shop, Prisma.sql`k.${CreatorClaim.creatorId} = ${creatorId}`, new Set([creatorId]), now);
}

/**
 * A contested order's record, just credited in review (OrderRun): settled at once when a claim
 * of its is of a creator the rule suspected while the order was being verified (the order's own
 * claims may have been what suspected them, before its record existed).
 */
export async function settleIfSuspected(tx: Sql, shop: string, verificationId: string, now: Date): Promise<void> {
  await settleContests(tx, shop, Prisma.sql`k.${CreatorClaim.verificationId} = ${verificationId}`, new Set(), now);
}

async function settleContests(
  tx: Sql,
  shop: string,
  which: Prisma.Sql,
  suspects: Set<string>,
  now: Date,
): Promise<void> {
  const open = await tx.rows<{ verificationId: string; contest: string | null; recordCreator: string }>(Prisma.sql`
    SELECT DISTINCT v.${Verification.id} AS "verificationId", v.${Verification.contest}, c.${Commission.creatorId} AS "recordCreator"
    FROM ${CreatorClaim} k
    JOIN ${Commission} c ON c.${Commission.verificationId} = k.${CreatorClaim.verificationId}
    JOIN ${Verification} v ON v.${Verification.id} = k.${CreatorClaim.verificationId}
    WHERE k.${CreatorClaim.shop} = ${shop} AND ${which}
      AND k.${CreatorClaim.outcome} = 'contested' AND c.${Commission.status} = 'review'
    LIMIT ${MAX_SETTLED}`);
  if (open.length === 0) return;
  const held = new Set((await heldCreators(tx, shop)).keys());
  for (const creatorId of suspects) held.add(creatorId);
  const rates = await shopRates(tx, shop);
  for (const order of open) {
    const claims = readContest(order.contest)?.claims ?? [];
    // A contest no held creator is in waits for the merchant.
    if (!claims.some((c) => c.creatorId !== null && held.has(c.creatorId))) continue;
    const keep = claims.find((c) => c.creatorId === order.recordCreator);
    const other = claims.find((c) => c.creatorId !== null && !held.has(c.creatorId));
    const clickId = held.has(order.recordCreator) ? (other?.clickId ?? null) : (keep?.clickId ?? null);
    await settleContest(
      tx,
      shop,
      Prisma.sql`${Verification.id} = ${order.verificationId}`,
      { clickId, by: null, settledBy: "creator-suspected" },
      rates,
      now,
    );
  }
}
