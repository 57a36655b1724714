import Decimal from "decimal.js";
import { z } from "zod";
import { ORDER_VALUE_BASES, type OrderValueBasis } from "../settings/order-value-basis";
import { Amount, MAX_ORDER_VALUE } from "../units/amounts";
import { SHOPIFY_ID, SHOPIFY_ID_DIGITS, shopifyGid } from "../units/shopify-ids";

// The slice of a refunds/create, orders/cancelled or orders/edited payload the ledger needs, and
// nothing else: which order, which refund or edit, and how much of each order-value basis the
// refund gives back. An edit carries no amount (its payload lists what it added and removed):
// the order's value after it is read from Shopify when it is applied (decision 045).
// Amounts are read from the `*_set.shop_money` strings (exact, in the shop's currency, as the
// order's own amounts are); the bare numbers beside them are JSON floats.

export type OrderEventKind = "refund" | "cancel" | "edit";

export interface RefundFacts {
  kind: "refund";
  orderId: string;
  refundId: string;
  currency: string | null;
  /** How much of the order value each basis loses: line subtotals, before discounts, and the total. */
  refunded: Record<OrderValueBasis, string>;
}

export interface CancelFacts {
  kind: "cancel";
  orderId: string;
  cancelledAt: string | null;
}

export interface EditFacts {
  kind: "edit";
  orderId: string;
  /** The order edit's id; `reconciled-…` for an edit the sweep found with no delivery (decision 045). */
  editId: string;
  committedAt: string | null;
}

export type OrderEventFacts = RefundFacts | CancelFacts | EditFacts;
export type OrderEventRead = { ok: true; facts: OrderEventFacts } | { ok: false; reason: string };

const Digits = z.string().regex(SHOPIFY_ID);
// The currency is compared with the commission's and written into the event's result: an ISO
// 4217 code, as an order's is, so no control character or lone surrogate reaches a stored row.
const Currency = z.string().regex(/^[A-Z]{3}$/, "must be an ISO 4217 code");
const Money = z.object({ shop_money: z.object({ amount: Amount, currency_code: Currency.nullish() }) });
const Id = z.union([z.number().nonnegative(), Digits]);
/** More units of one line than any order holds: a quantity beyond it is not a refund. */
const MAX_REFUND_QUANTITY = 1_000_000;
/** The id the reconciliation sweep gives an edit it found: the order's id and the second it changed. */
export const RECONCILED_EDIT_ID = /^reconciled-\d{1,20}-\d{1,16}$/;

const RefundLine = z.object({
  quantity: z.number().int().nonnegative().max(MAX_REFUND_QUANTITY).nullish(),
  subtotal: Amount.nullish(),
  subtotal_set: Money.nullish(),
  total_tax: Amount.nullish(),
  total_tax_set: Money.nullish(),
  line_item: z.object({ price: Amount.nullish(), price_set: Money.nullish() }).nullish(),
});

const RefundShippingLine = z.object({
  subtotal_amount_set: Money.nullish(),
  tax_amount_set: Money.nullish(),
});

const RefundPayload = z.object({
  id: Id,
  admin_graphql_api_id: z.string().max(100).nullish(),
  order_id: Id,
  refund_line_items: z.array(RefundLine).max(5_000).nullish(),
  refund_shipping_lines: z.array(RefundShippingLine).max(1_000).nullish(),
});

const CancelPayload = z.object({
  id: Id,
  admin_graphql_api_id: z.string().max(100).nullish(),
  cancelled_at: z.string().max(64).nullish(),
});

const EditPayload = z.object({
  order_edit: z.object({
    // A number or digits from Shopify; the sweep names the edits it found by the order's update.
    id: z.union([Id, z.string().regex(RECONCILED_EDIT_ID)]),
    order_id: Id,
    committed_at: z.string().max(64).nullish(),
    created_at: z.string().max(64).nullish(),
  }),
});

const ZERO = new Decimal(0);
const sum = (values: Decimal[]) => values.reduce((a, b) => a.plus(b), ZERO);
const amountOf = (set: z.infer<typeof Money> | null | undefined, bare: string | null | undefined) =>
  new Decimal(set?.shop_money.amount ?? bare ?? "0");

function problem(error: z.ZodError): { ok: false; reason: string } {
  const issue = error.issues[0];
  return { ok: false, reason: issue ? `${issue.path.join(".") || "payload"} ${issue.message}` : "unreadable payload" };
}

/**
 * A numeric id exactly: from its gid when there is one, from the number when it is below 2^53,
 * or else from the raw body's digits of that field. A JSON parser rounds an id beyond 2^53
 * (Shopify's own refund sample has one), and the body's text still holds it exactly.
 */
function exactId(
  value: number | string,
  gid: string | null | undefined,
  gidType: string,
  rawBody: string,
  field: string,
): string | null {
  const fromGid = gid?.match(shopifyGid(gidType))?.[1];
  if (fromGid) return fromGid;
  if (typeof value === "string") return value;
  if (Number.isSafeInteger(value)) return String(value);
  // Every occurrence of the field whose digits parse to this number: all of them must agree.
  const candidates = new Set(
    [...rawBody.matchAll(new RegExp(`"${field}"\\s*:\\s*(${SHOPIFY_ID_DIGITS})(?![\\d.eE])`, "g"))]
      .map((match) => match[1]!)
      .filter((digits) => Number(digits) === value),
  );
  return candidates.size === 1 ? [...candidates][0]! : null;
}

export function readRefund(payload: unknown, rawBody: string): OrderEventRead {
  const parsed = RefundPayload.safeParse(payload);
  if (!parsed.success) return problem(parsed.error);
  const refund = parsed.data;
  const orderId = exactId(refund.order_id, null, "Order", rawBody, "order_id");
  if (!orderId) return { ok: false, reason: "order_id is beyond 2^53 and the body does not give it exactly" };
  const refundId = exactId(refund.id, refund.admin_graphql_api_id, "Refund", rawBody, "id");
  if (!refundId) return { ok: false, reason: "id is beyond 2^53 and no admin_graphql_api_id gives it exactly" };

  const lines = refund.refund_line_items ?? [];
  const shipping = refund.refund_shipping_lines ?? [];
  const subtotal = sum(lines.map((line) => amountOf(line.subtotal_set, line.subtotal)));
  const beforeDiscounts = sum(
    lines.map((line) => amountOf(line.line_item?.price_set, line.line_item?.price).times(line.quantity ?? 1)),
  );
  const lineTax = sum(lines.map((line) => amountOf(line.total_tax_set, line.total_tax)));
  const shippingTotal = sum(
    shipping.map((line) => amountOf(line.subtotal_amount_set, null).plus(amountOf(line.tax_amount_set, null))),
  );
  const total = subtotal.plus(lineTax).plus(shippingTotal);
  // Each amount is bounded above; so is what the refund gives back in all, on every basis.
  for (const [what, amount] of [
    ["the refunded line subtotals", subtotal],
    ["the refunded line prices times their quantities", beforeDiscounts],
    ["the refunded lines, their tax and shipping", total],
  ] as const) {
    if (amount.gt(MAX_ORDER_VALUE)) return { ok: false, reason: `${what} add up to more than ${MAX_ORDER_VALUE}` };
  }
  const currency =
    lines.find((line) => line.subtotal_set?.shop_money.currency_code)?.subtotal_set?.shop_money.currency_code ??
    shipping.find((line) => line.subtotal_amount_set?.shop_money.currency_code)?.subtotal_amount_set?.shop_money
      .currency_code ??
    null;
  return {
    ok: true,
    facts: {
      kind: "refund",
      orderId,
      refundId,
      currency,
      // Refunded shipping moves only the total: a subtotal basis never included it.
      refunded: {
        subtotal_after_discounts: subtotal.toFixed(),
        subtotal_before_discounts: beforeDiscounts.toFixed(),
        total_price: total.toFixed(),
      },
    },
  };
}

export function readCancellation(payload: unknown, rawBody: string): OrderEventRead {
  const parsed = CancelPayload.safeParse(payload);
  if (!parsed.success) return problem(parsed.error);
  const order = parsed.data;
  const orderId = exactId(order.id, order.admin_graphql_api_id, "Order", rawBody, "id");
  if (!orderId) return { ok: false, reason: "id is beyond 2^53 and no admin_graphql_api_id gives it exactly" };
  const cancelledAt = order.cancelled_at && !Number.isNaN(Date.parse(order.cancelled_at)) ? order.cancelled_at : null;
  return { ok: true, facts: { kind: "cancel", orderId, cancelledAt } };
}

export function readEdit(payload: unknown, rawBody: string): OrderEventRead {
  const parsed = EditPayload.safeParse(payload);
  if (!parsed.success) return problem(parsed.error);
  const edit = parsed.data.order_edit;
  const orderId = exactId(edit.order_id, null, "Order", rawBody, "order_id");
  if (!orderId)
    return { ok: false, reason: "order_edit.order_id is beyond 2^53 and the body does not give it exactly" };
  const editId =
    typeof edit.id === "string" && RECONCILED_EDIT_ID.test(edit.id)
      ? edit.id
      : exactId(edit.id, null, "OrderEdit", rawBody, "id");
  if (!editId) return { ok: false, reason: "order_edit.id is beyond 2^53 and the body does not give it exactly" };
  const at = edit.committed_at ?? edit.created_at;
  const committedAt = at && !Number.isNaN(Date.parse(at)) ? at : null;
  return { ok: true, facts: { kind: "edit", orderId, editId, committedAt } };
}

/** The id an event is unique by within its shop and kind: the refund's, the edit's, or the cancelled order's. */
export function eventSourceId(facts: OrderEventFacts): string {
  return facts.kind === "refund" ? facts.refundId : facts.kind === "edit" ? facts.editId : facts.orderId;
}

/** A refunded amount as intake stores it: a decimal of at least 0 and at most the largest order value. */
function isRefundedAmount(value: unknown): boolean {
  return typeof value === "string" && /^\d{1,13}(\.\d+)?$/.test(value) && new Decimal(value).lte(MAX_ORDER_VALUE);
}

/**
 * Facts stored by intake, read back; null when they cannot be (the event is then recorded as
 * unreadable). A refund stored before its amounts were bounded, with one below zero or beyond
 * the bound, is unreadable too: it is never applied.
 */
export function parseEventFacts(text: string): OrderEventFacts | null {
  try {
    const value = JSON.parse(text) as Partial<RefundFacts> & Partial<CancelFacts> & Partial<EditFacts>;
    if (value.kind === "cancel" && typeof value.orderId === "string") return value as CancelFacts;
    if (value.kind === "edit" && typeof value.orderId === "string" && typeof value.editId === "string")
      return value as EditFacts;
    if (
      value.kind === "refund" &&
      typeof value.orderId === "string" &&
      value.refunded &&
      ORDER_VALUE_BASES.every((basis) => isRefundedAmount(value.refunded![basis]))
    )
      return value as RefundFacts;
    return null;
  } catch {
    return null;
  }
}
