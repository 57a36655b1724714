import { Prisma, type Commission, type OrderEvent } from "@prisma/client";
import Decimal from "decimal.js";
import { rowLock } from "../database/dialect-sql.server";
import { insertRows, modelRows, rowsOf, sql, type Sql, updateRow, updateWhere } from "../database/sql.server";
import { orderValueBasisOf } from "../settings/order-value-basis";
import { reopen } from "../queue/queue.server";
import { commissionAmount, minorToAmount, remainingAfterRefunds } from "./commission-amount";
import { holdEnd, shopHoldDays } from "./credit.server";
import { decideEdit, type EditReading, type EditsRead } from "./order-edits";
import { parseEventFacts, type EditFacts, type OrderEventFacts } from "./order-events";
import { paidOut, type CommissionStatus, type EntryKind } from "./statuses";
import { Commission as CommissionTable, OrderEvent as OrderEventTable } from "../database/tables";

// Applies an order's refunds and cancellation to its commission record, each exactly once:
// called only by the order's verify-order job, inside its fenced transaction (so one order's
// events are applied by one worker at a time), and each event is marked applied in the same
// transaction as the entry it made. The unique (record, event) key on entries backs that up.

export interface OrderForEvents {
  shop: string;
  orderId: string;
  verificationId: string;
  /** How the order's verification ended: said on events that find no commission. */
  outcome: string | null;
  /**
   * The order's amounts as Shopify gave them in this run, for its edits (decision 045). Without
   * it, edits to a live commission stay pending and the order's job runs again to read them.
   */
  reading?: EditsRead;
}

/**
 * What an event says when its order had no commission to apply it to. An order that failed can
 * still get one (Retry), so such events go back to pending when it goes again.
 */
export const NO_COMMISSION = "not applied: the order has no commission";

/**
 * Whether the order has events still to apply (read outside any transaction, to skip one); when
 * some are edits of a live commission, their ids: the ledger needs the order's amounts for them.
 */
export async function hasPendingEvents(shop: string, orderId: string): Promise<boolean | { edits: string[] }> {
  const pending = await sql.rows<{ id: string; kind: string }>(
    Prisma.sql`SELECT ${OrderEventTable.id}, ${OrderEventTable.kind} FROM ${OrderEventTable}
               WHERE ${OrderEventTable.shop} = ${shop} AND ${OrderEventTable.orderId} = ${orderId} AND ${OrderEventTable.appliedAt} IS NULL`,
  );
  if (pending.length === 0) return false;
  const edits = pending.filter((row) => row.kind === "edit").map((row) => row.id);
  if (edits.length === 0) return true;
  const live = await sql.rows(
    Prisma.sql`SELECT 1 AS "live" FROM ${CommissionTable} WHERE ${CommissionTable.shop} = ${shop} AND ${CommissionTable.orderId} = ${orderId} AND ${CommissionTable.status} <> 'reversed'`,
  );
  return live.length > 0 && !(await isCancelled(sql, shop, orderId)) ? { edits } : true;
}

/** Whether a cancellation of the order is recorded, applied or not: no edit moves its commission then. */
async function isCancelled(tx: Sql, shop: string, orderId: string): Promise<boolean> {
  const rows = await tx.rows(
    Prisma.sql`SELECT 1 AS "cancelled" FROM ${OrderEventTable} WHERE ${OrderEventTable.shop} = ${shop} AND ${OrderEventTable.kind} = 'cancel' AND ${OrderEventTable.sourceId} = ${orderId}`,
  );
  return rows.length > 0;
}

/** The order's events still to apply, oldest first: read in the transaction that applies them. */
export function pendingOrderEvents(tx: Sql, shop: string, orderId: string): Promise<OrderEvent[]> {
  return rowsOf<OrderEvent>(
    tx,
    "OrderEvent",
    Prisma.sql`
      SELECT * FROM ${OrderEventTable} WHERE ${OrderEventTable.shop} = ${shop} AND ${OrderEventTable.orderId} = ${orderId} AND ${OrderEventTable.appliedAt} IS NULL
      ORDER BY ${OrderEventTable.receivedAt}, ${OrderEventTable.id}`,
  );
}

/** Applies the order's pending events (pendingOrderEvents), in their order; returns how many were settled. */
export async function applyOrderEvents(
  tx: Sql,
  order: OrderForEvents,
  events: readonly OrderEvent[],
  now: Date,
): Promise<number> {
  if (events.length === 0) return 0;
  let record = await lockedRecord(tx, order.verificationId);
  const cancelled = await isCancelled(tx, order.shop, order.orderId);
  let settled = 0;
  for (const event of events) {
    const facts = parseEventFacts(event.facts);
    let result: string;
    if (!facts) result = "not applied: its stored facts cannot be read";
    else if (!record) result = `${NO_COMMISSION} (${order.outcome ?? "not verified"})`;
    else if (facts.kind === "edit") {
      const read = order.reading?.edits.includes(event.id) ? order.reading.reading : null;
      if (!read && record.status !== "reversed" && !cancelled) {
        // Its amounts are read outside any transaction (decision 025), after it was recorded:
        // the job runs again for them.
        await reopen(tx, "verify-order", order.verificationId, now);
        continue;
      }
      ({ record, result } = await applyEdit(tx, record, event.id, read ?? NO_READING, cancelled, now));
    } else ({ record, result } = await applyEvent(tx, record, event.id, facts, now));
    await updateWhere(tx, "OrderEvent", Prisma.sql`${OrderEventTable.id} = ${event.id}`, { appliedAt: now, result });
    settled += 1;
  }
  return settled;
}

const NO_READING: EditReading = { ok: false, reason: "the order's amounts were not read" };

/** An edit applied to the record: its value and amount moved, with an entry naming the edit. */
async function applyEdit(
  tx: Sql,
  record: Commission,
  eventId: string,
  reading: EditReading,
  cancelled: boolean,
  now: Date,
): Promise<{ record: Commission; result: string }> {
  const decision = decideEdit(record, reading, cancelled);
  if (!decision.change) {
    const moved = decision.orderValue !== undefined && decision.orderValue !== record.orderValue;
    return {
      record: moved ? await updated(tx, record, { orderValue: decision.orderValue }) : record,
      result: decision.result,
    };
  }
  await insertRows(tx, "CommissionEntry", [
    {
      shop: record.shop,
      commissionId: record.id,
      kind: decision.kind,
      amountMinor: decision.delta,
      amount: minorToAmount(decision.delta, record.currency),
      eventId,
      // The hold in force now is the one the top-up waits: the merchant's later change to it
      // moves new records and top-ups, not this one, as it moves no record already held.
      dueAt: decision.kind === "top_up" ? holdEnd(now, await shopHoldDays(tx, record.shop)) : null,
      createdAt: now,
    },
  ]);
  const after = await updated(tx, record, {
    orderValue: decision.orderValue,
    amountMinor: decision.amountMinor,
    amount: minorToAmount(decision.amountMinor, record.currency),
  });
  return { record: after, result: decision.result };
}

/**
 * The order goes again (Retry): its events set aside for want of a commission wait for the one
 * it may now get, and are applied with its credit. Without this, a refund or cancellation that
 * arrived while the order had failed would never reach the commission a retry credits.
 */
export async function reopenEventsWithoutCommission(
  tx: Sql,
  shop: string,
  orderId: string,
): Promise<{ count: number }> {
  // NO_COMMISSION holds no LIKE wildcard (% or _), so the pattern is a plain prefix.
  const setAside = Prisma.sql`${OrderEventTable.shop} = ${shop} AND ${OrderEventTable.orderId} = ${orderId} AND ${OrderEventTable.result} LIKE ${`${NO_COMMISSION}%`}`;
  return { count: await updateWhere(tx, "OrderEvent", setAside, { appliedAt: null, result: null }) };
}

/** The order's record, locked on PostgreSQL against the approval sweep and a payout. */
async function lockedRecord(tx: Sql, verificationId: string): Promise<Commission | null> {
  const rows = await tx.rows(
    Prisma.sql`SELECT * FROM ${CommissionTable} WHERE ${CommissionTable.verificationId} = ${verificationId} ${rowLock()}`,
  );
  return modelRows<Commission>("Commission", rows)[0] ?? null;
}

/** The record with `data` written, as it now stands. */
async function updated(tx: Sql, record: Commission, data: Partial<Commission>): Promise<Commission> {
  return (await updateRow<Commission>(tx, "Commission", record.id, data)) ?? record;
}

async function applyEvent(
  tx: Sql,
  record: Commission,
  eventId: string,
  facts: Exclude<OrderEventFacts, EditFacts>,
  now: Date,
): Promise<{ record: Commission; result: string }> {
  let refunded = record.refunded;
  let target = 0n;
  if (facts.kind === "refund") {
    if (facts.currency && facts.currency !== record.currency)
      return { record, result: `not applied: refunded in ${facts.currency}, the commission is in ${record.currency}` };
    const basis = orderValueBasisOf(record.basis);
    const total = Decimal.max(0, new Decimal(record.refunded).plus(facts.refunded[basis]));
    refunded = Decimal.min(total, record.orderValue).toFixed();
    target = remainingAfterRefunds(creditOf(record), record.orderValue, refunded);
  }
  // Never back up: a record already taken lower (by a cancellation) stays there.
  const amountMinor = target < record.amountMinor ? target : record.amountMinor;
  const delta = amountMinor - record.amountMinor;
  // A record that owed nothing (a zero rate, or a credit that rounded to nothing) has nothing
  // to take back, but a cancellation or a whole refund still ends it as reversed, as any other.
  if (delta === 0n && amountMinor === 0n && unpaidAndOpen(record) && endsTheOrder(facts, refunded, record)) {
    return {
      record: await updated(tx, record, { refunded, status: "reversed", reversedAt: now }),
      result: "reversed: nothing was owed",
    };
  }
  if (record.status === "reversed" || delta === 0n) {
    return {
      record: await updated(tx, record, { refunded }),
      result:
        record.status === "reversed" ? "nothing to adjust: the commission is already reversed" : "nothing to adjust",
    };
  }
  const kind: EntryKind = paidOut(record.status) ? "clawback" : facts.kind === "refund" ? "refund" : "reversal";
  const status: CommissionStatus =
    !paidOut(record.status) && amountMinor === 0n ? "reversed" : (record.status as CommissionStatus);
  const deltaText = minorToAmount(delta, record.currency);
  await insertRows(tx, "CommissionEntry", [
    {
      shop: record.shop,
      commissionId: record.id,
      kind,
      amountMinor: delta,
      amount: deltaText,
      eventId,
      createdAt: now,
    },
  ]);
  const after = await updated(tx, record, {
    amountMinor,
    amount: minorToAmount(amountMinor, record.currency),
    refunded,
    status,
    ...(status === "reversed" && record.status !== "reversed" && { reversedAt: now }),
  });
  return { record: after, result: `${kind} ${deltaText} ${record.currency}` };
}

function unpaidAndOpen(record: Commission): boolean {
  return record.status === "pending" || record.status === "approved" || record.status === "review";
}

/** A cancellation, or refunds that now cover the whole order value. */
function endsTheOrder(facts: Exclude<OrderEventFacts, EditFacts>, refunded: string, record: Commission): boolean {
  return facts.kind === "cancel" || new Decimal(refunded).gte(record.orderValue);
}

/**
 * The record's credit: what refunds are pro-rated against. The rate on the order value, exactly
 * as it was credited (credit.server.ts), and as a contest's decision set it when it moved the
 * record to another creator's rate (review.server.ts).
 */
function creditOf(record: Commission): bigint {
  return commissionAmount(record.orderValue, record.rate, record.currency).amountMinor;
}
