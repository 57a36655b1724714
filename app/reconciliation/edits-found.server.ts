import { Prisma } from "@prisma/client";
import Decimal from "decimal.js";
import { editedValues } from "../commissions/order-edits";
import type { OrderAmounts } from "../shopify-admin/orders.server";
import { sql } from "../database/sql.server";
import { orderValueBasisOf } from "../settings/order-value-basis";
import { parseStoredFacts, type OrderFacts } from "../verification/order-facts";
import { Commission, OrderEvent, Verification } from "../database/tables";

// Edits Shopify never delivered (decision 045): the sweep's listing says whether each order was
// ever edited (a scalar: the page costs no more). For an edited order with a live commission and
// no edit of it still waiting, the order's amounts are read (ORDER_AMOUNTS, a few points), and
// when its value on its commission's basis differs from the one the ledger holds, it was edited
// without an orders/edited the app recorded. The sweep then records the edit as its webhook
// would have been (source "reconciled"), and the order's job reads the amounts again and applies
// it as it applies any edit. A cancelled order, or a reversed commission, is passed over.

export interface EditCandidate {
  orderId: string;
  orderGid: string;
  updatedAt: unknown;
  orderValue: string;
  basis: string;
  currency: string;
  /** The amounts and discounts orders/create brought, which the subtotal before discounts moves from. */
  placed: Pick<OrderFacts, "amounts" | "discounts">;
}

/** The orders/edited payload of an edit the sweep found: named by the order and the second it changed. */
export function foundEditPayload(order: Pick<EditCandidate, "orderId" | "updatedAt">): {
  eventId: string;
  payload: Record<string, unknown>;
} {
  const parsed = Math.floor(Date.parse(String(order.updatedAt)) / 1000);
  const second = Number.isFinite(parsed) ? parsed : 0;
  return {
    eventId: `edit-${order.orderId}-${second}`,
    payload: {
      order_edit: {
        id: `reconciled-${order.orderId}-${second}`,
        order_id: order.orderId,
        committed_at: typeof order.updatedAt === "string" ? order.updatedAt : null,
      },
    },
  };
}

/** Whether the amounts read put the order's value on the commission's basis elsewhere than the ledger holds it. */
export function valueMoved(candidate: EditCandidate, reading: OrderAmounts): boolean {
  if (reading.currency !== candidate.currency) return false;
  const value = editedValues(reading, candidate.placed)[orderValueBasisOf(candidate.basis)];
  return value !== undefined && !new Decimal(value).eq(candidate.orderValue);
}

/** The listed orders, edited in Shopify, whose commission an edit could still move. */
export async function editCandidates(
  shop: string,
  listed: { orderId: string; id: string; updatedAt: unknown; edited?: unknown; cancelledAt?: unknown }[],
): Promise<EditCandidate[]> {
  const edited = listed.filter((order) => order.edited === true && !order.cancelledAt);
  if (edited.length === 0) return [];
  const ids = Prisma.join(edited.map((order) => order.orderId));
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
  return edited.flatMap((order) => {
    const record = byOrder.get(order.orderId);
    if (!record || passedOver.has(order.orderId)) return [];
    const { orderFacts, ...held } = record;
    const placed = parseStoredFacts(orderFacts) ?? { amounts: {} };
    return [{ ...held, orderGid: order.id, updatedAt: order.updatedAt, placed }];
  });
}
