import { Prisma } from "@prisma/client";
import Decimal from "decimal.js";
import { editedValues, type OrderAmountsReading } from "../commissions/order-edits";
import { sql } from "../database/sql.server";
import { orderValueBasisOf } from "../settings/order-value-basis";
import { parseStoredFacts } from "../verification/order-facts";
import { Commission, OrderEvent, Verification } from "../database/tables";

// Edits Shopify never delivered (decision 045): the sweep's listing carries each order's amounts
// after its edits, and an order whose value on its commission's basis differs from the one the
// ledger holds was edited without an orders/edited the app recorded. The sweep then records the
// edit as its webhook would have been (source "reconciled"), and the order's job reads the
// amounts and applies it as it applies any edit. An order whose edit is already on its way (an
// edit event not applied yet) or whose commission is reversed or cancelled is passed over.

export interface ListedAmounts {
  orderId: string;
  updatedAt: unknown;
  cancelledAt?: unknown;
  reading: OrderAmountsReading;
}

/** The orders/edited payload of an edit the sweep found: named by the order and the second it changed. */
export function foundEditPayload(order: ListedAmounts): { eventId: string; payload: Record<string, unknown> } {
  const second = Math.floor(Date.parse(String(order.updatedAt)) / 1000);
  const id = `reconciled-${order.orderId}-${Number.isFinite(second) ? second : 0}`;
  return {
    eventId: `edit-${order.orderId}-${second}`,
    payload: {
      order_edit: {
        id,
        order_id: order.orderId,
        committed_at: typeof order.updatedAt === "string" ? order.updatedAt : null,
      },
    },
  };
}

/** The listed orders with a live commission whose value the listing says has moved. */
export async function editedWithoutDelivery(shop: string, listed: ListedAmounts[]): Promise<ListedAmounts[]> {
  const candidates = listed.filter((order) => !order.cancelledAt);
  if (candidates.length === 0) return [];
  const ids = Prisma.join(candidates.map((order) => order.orderId));
  const [records, waiting] = await Promise.all([
    sql.rows<{ orderId: string; orderValue: string; basis: string; currency: string; orderFacts: string }>(Prisma.sql`
      SELECT c.${Commission.orderId}, c.${Commission.orderValue}, c.${Commission.basis}, c.${Commission.currency}, v.${Verification.orderFacts}
      FROM ${Commission} c JOIN ${Verification} v ON v.${Verification.id} = c.${Commission.verificationId}
      WHERE c.${Commission.shop} = ${shop} AND c.${Commission.orderId} IN (${ids}) AND c.${Commission.status} <> 'reversed'`),
    sql.rows<{ orderId: string }>(Prisma.sql`
      SELECT DISTINCT ${OrderEvent.orderId} FROM ${OrderEvent}
      WHERE ${OrderEvent.shop} = ${shop} AND ${OrderEvent.orderId} IN (${ids})
        AND ((${OrderEvent.kind} = 'edit' AND ${OrderEvent.appliedAt} IS NULL) OR ${OrderEvent.kind} = 'cancel')`),
  ]);
  const passedOver = new Set(waiting.map((row) => row.orderId));
  const byOrder = new Map(records.map((record) => [record.orderId, record]));
  return candidates.filter((order) => {
    const record = byOrder.get(order.orderId);
    if (!record || passedOver.has(order.orderId) || order.reading.currency !== record.currency) return false;
    const created = parseStoredFacts(record.orderFacts)?.amounts ?? {};
    const value = editedValues(order.reading, created)[orderValueBasisOf(record.basis)];
    return value !== undefined && !new Decimal(value).eq(record.orderValue);
  });
}
