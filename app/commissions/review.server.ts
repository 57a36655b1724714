import { Prisma, type Commission } from "@prisma/client";
import type { Contest } from "../attribution/witnesses";
import { rowLock } from "../database/dialect-sql.server";
import { insertRows, modelRows, type Sql, sql, updateRow } from "../database/sql.server";
import { rateForCreator } from "../settings/creator-rates";
import { SHOPIFY_ID } from "../units/shopify-ids";
import { shopRates } from "../settings/shop-settings.server";
import { commissionAmount, minorToAmount, remainingAfterRefunds } from "./commission-amount";
import { ClickRecord, Commission as CommissionTable, Verification } from "../database/tables";

// The merchant's decision on a contested order (docs/attribution.md): its record waits in status
// review, credited for now to the first click reported, until the merchant credits one of the
// claims or none. Crediting another claim moves the record to that click's creator at that
// creator's rate, net of the refunds already applied; none reverses it. The record then goes on
// as any other (pending, or approved when its hold is over). The decision is a `review` entry
// of the difference, and is kept on the order with who made it and when. Nothing of a record in
// review was ever payable, so moving it pays nobody twice.

export interface ContestDecision {
  /** A claim's click id, or null: credit nobody. */
  clickId: string | null;
  /** The staff member's id from the session token, when the admin gave one. */
  by: string | null;
  /** Set when the app settled it, not the merchant: a claim's creator was suspected of hijacking. */
  settledBy?: "creator-suspected";
}

export type ContestResult =
  | { ok: true; creatorId: string | null; status: string; amount: string; currency: string }
  | { ok: false; error: "not-found" | "not-contested" | "decided" | "unknown-claim" | "unknown-creator" };

/** A contest as stored on the order, with the merchant's decision once made. */
export interface StoredContest extends Contest {
  decision?: {
    clickId: string | null;
    creatorId: string | null;
    by: string | null;
    at: string;
    settledBy?: "creator-suspected";
  };
}

export function readContest(json: string | null): StoredContest | null {
  if (!json) return null;
  try {
    const value = JSON.parse(json) as StoredContest;
    return value && Array.isArray(value.claims) ? value : null;
  } catch {
    return null;
  }
}

/** `idOrOrderId`: our verification id, or Shopify's numeric order id (as the order page's URL may name it). */
export async function decideContest(
  shop: string,
  idOrOrderId: string,
  decision: ContestDecision,
  now: Date = new Date(),
): Promise<ContestResult> {
  const which = SHOPIFY_ID.test(idOrOrderId)
    ? Prisma.sql`${Verification.orderId} = ${idOrOrderId}`
    : Prisma.sql`${Verification.id} = ${idOrOrderId}`;
  return sql.transaction(async (tx) => settleContest(tx, shop, which, decision, await shopRates(tx, shop), now));
}

/**
 * The decision on the contested order `which` picks, in the caller's transaction: the merchant's
 * (decideContest), or the app's when a claim's creator was suspected (app/creators).
 */
export async function settleContest(
  tx: Sql,
  shop: string,
  which: Prisma.Sql,
  decision: ContestDecision,
  settings: Parameters<typeof rateForCreator>[0] | null,
  now: Date,
): Promise<ContestResult> {
  const [order] = await tx.rows<{
    id: string;
    contest: string | null;
    clickId: string | null;
    creatorId: string | null;
    expectedTag: string | null;
  }>(Prisma.sql`
      SELECT ${Verification.columns("id", "contest", "clickId", "creatorId", "expectedTag")} FROM ${Verification}
      WHERE ${Verification.shop} = ${shop} AND ${which} ${rowLock()}`);
  if (!order) return { ok: false, error: "not-found" } as const;
  const contest = readContest(order.contest);
  if (!contest) return { ok: false, error: "not-contested" } as const;
  if (contest.decision) return { ok: false, error: "decided" } as const;
  const record = modelRows<Commission>(
    "Commission",
    await tx.rows(
      Prisma.sql`SELECT * FROM ${CommissionTable} WHERE ${CommissionTable.verificationId} = ${order.id} ${rowLock()}`,
    ),
  )[0];
  if (!record) return { ok: false, error: "not-found" } as const;

  let chosen: { clickId: string; creatorId: string; expectedTag: string; arrivedTag: string | null } | null = null;
  if (decision.clickId !== null) {
    const claim = contest.claims.find((c) => c.clickId === decision.clickId);
    if (!claim) return { ok: false, error: "unknown-claim" } as const;
    const known = await knownCreator(tx, shop, order, claim.clickId);
    if (!known) return { ok: false, error: "unknown-creator" } as const;
    chosen = { clickId: claim.clickId, ...known, arrivedTag: claim.arrivedTag };
  }

  const decided: StoredContest = {
    ...contest,
    decision: {
      clickId: chosen?.clickId ?? null,
      creatorId: chosen?.creatorId ?? null,
      by: decision.by,
      at: now.toISOString(),
      ...(decision.settledBy && { settledBy: decision.settledBy }),
    },
  };
  await updateRow(tx, "Verification", order.id, { contest: JSON.stringify(decided), updatedAt: now });
  // A record refunds or a cancellation already reversed stays reversed: the decision is kept, nothing moves.
  if (record.status !== "review")
    return {
      ok: true,
      creatorId: record.creatorId,
      status: record.status,
      amount: record.amount,
      currency: record.currency,
    };

  let data: Partial<Commission>;
  if (chosen === null) {
    data = { amountMinor: 0n, amount: minorToAmount(0n, record.currency), status: "reversed", reversedAt: now };
  } else {
    const rate = settings ? rateForCreator(settings, chosen.creatorId) : record.rate;
    const credit = commissionAmount(record.orderValue, rate, record.currency).amountMinor;
    const amountMinor = remainingAfterRefunds(credit, record.orderValue, record.refunded);
    // The hold it was credited with still runs: the decision does not restart it.
    const approved = record.holdUntil !== null && record.holdUntil <= now;
    data = {
      creatorId: chosen.creatorId,
      expectedTag: chosen.expectedTag,
      arrivedTag: chosen.arrivedTag ?? "",
      redirected: chosen.arrivedTag !== chosen.expectedTag,
      rate,
      amountMinor,
      amount: minorToAmount(amountMinor, record.currency),
      status: approved ? "approved" : "pending",
      approvedAt: approved ? now : null,
    };
  }
  const delta = data.amountMinor! - record.amountMinor;
  await insertRows(tx, "CommissionEntry", [
    {
      shop,
      commissionId: record.id,
      kind: "review",
      amountMinor: delta,
      amount: minorToAmount(delta, record.currency),
      createdAt: now,
    },
  ]);
  const after = (await updateRow<Commission>(tx, "Commission", record.id, data)) ?? record;
  return {
    ok: true,
    creatorId: chosen?.creatorId ?? null,
    status: after.status,
    amount: after.amount,
    currency: after.currency,
  };
}

/**
 * The creator and expected tag of a claimed click: the service's answer for the click the order
 * was verified with, else what lookup-click learned of it. null: the app never learned whose it is.
 */
async function knownCreator(
  tx: Sql,
  shop: string,
  order: { clickId: string | null; creatorId: string | null; expectedTag: string | null },
  clickId: string,
): Promise<{ creatorId: string; expectedTag: string } | null> {
  if (order.clickId === clickId && order.creatorId && order.expectedTag !== null)
    return { creatorId: order.creatorId, expectedTag: order.expectedTag };
  const [record] = await tx.rows<{ creatorId: string | null; expectedTag: string | null }>(Prisma.sql`
    SELECT ${ClickRecord.creatorId}, ${ClickRecord.expectedTag} FROM ${ClickRecord}
    WHERE ${ClickRecord.shop} = ${shop} AND ${ClickRecord.clickId} = ${clickId} AND ${ClickRecord.state} = 'known' LIMIT 1`);
  return record?.creatorId && record.expectedTag !== null
    ? { creatorId: record.creatorId, expectedTag: record.expectedTag }
    : null;
}
