import { randomUUID } from "node:crypto";
import { Prisma } from "@prisma/client";
import { insertRows, insertRowWhen, type Sql } from "../database/sql.server";
import type { OrderValueBasis } from "../settings/order-value-basis";
import { commissionAmount } from "./commission-amount";
import { DEFAULT_SETTINGS } from "../settings/defaults";
import { Commission, ShopSettings } from "../database/tables";

export interface CommissionInput {
  shop: string;
  verificationId: string;
  orderId: string;
  orderName: string | null;
  orderCreatedAt: Date;
  /** The creator of the EXPECTED tag, as the click service reports it. */
  creatorId: string;
  expectedTag: string;
  arrivedTag: string;
  orderValue: string;
  /** The basis orderValue was read with: refunds are pro-rated on the same one. */
  basis: OrderValueBasis;
  currency: string;
  ratePercent: string;
  holdDays: number;
  hijacked: boolean;
  /** The order is contested (docs/attribution.md): the record waits in status review. */
  review?: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The hold runs from the order's creation, as a return window does; a top-up's from when it is
 * written (decision 045).
 */
export function holdEnd(from: Date, holdDays: number): Date {
  return new Date(from.getTime() + holdDays * DAY_MS);
}

/** The shop's hold as set now, or the default for a shop with no settings row. */
export async function shopHoldDays(tx: Sql, shop: string): Promise<number> {
  const [row] = await tx.rows<{ holdDays: number | bigint | string }>(
    Prisma.sql`SELECT ${ShopSettings.holdDays} FROM ${ShopSettings} WHERE ${ShopSettings.shop} = ${shop}`,
  );
  return Number(row?.holdDays ?? DEFAULT_SETTINGS.holdDays);
}

/**
 * Credits the order's commission to the creator of the expected tag, never the arrived one:
 * the record and its credit entry; returns whether it wrote them. Exactly one record per order:
 * called inside the order job's fenced transaction (only the lease holder writes), and the
 * unique keys on the verification and the order back that up: a record already there is kept,
 * with no second entry. A hold already over (0 days, or a late order) starts the record
 * approved; a contested order's starts in review, whatever its hold.
 */
export async function creditCommission(tx: Sql, input: CommissionInput, now: Date): Promise<boolean> {
  const { amount, amountMinor } = commissionAmount(input.orderValue, input.ratePercent, input.currency);
  const holdUntil = holdEnd(input.orderCreatedAt, input.holdDays);
  const approved = !input.review && holdUntil <= now;
  const id = randomUUID();
  // Issued together, in this order, with nothing awaited between: on PostgreSQL they go out with
  // the verdict's other writes in one round trip (OrderRun). The entry follows the record only
  // if this statement wrote it.
  const record = insertRows(
    tx,
    "Commission",
    [
      {
        id,
        shop: input.shop,
        verificationId: input.verificationId,
        orderId: input.orderId,
        orderName: input.orderName,
        creatorId: input.creatorId,
        expectedTag: input.expectedTag,
        arrivedTag: input.arrivedTag,
        orderValue: input.orderValue,
        basis: input.basis,
        currency: input.currency,
        rate: input.ratePercent,
        amount,
        amountMinor,
        status: input.review ? "review" : approved ? "approved" : "pending",
        approvedAt: approved ? now : null,
        holdUntil,
        redirected: input.hijacked,
        createdAt: now,
      },
    ],
    { skipDuplicates: true },
  );
  const entry = insertRowWhen(
    tx,
    "CommissionEntry",
    { shop: input.shop, commissionId: id, kind: "credit", amountMinor, amount, createdAt: now },
    Prisma.sql`EXISTS (SELECT 1 FROM ${Commission} WHERE ${Commission.id} = ${id})`,
  );
  const [written] = await Promise.all([record, entry]);
  return written === 1;
}
