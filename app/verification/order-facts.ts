import { z } from "zod";
import type { OrderValueBasis } from "../settings/order-value-basis";

// The slice of an orders/create payload the pipeline needs. We keep only this, never the
// whole payload: it carries the shopper's name and addresses, which the app has no use for.

const DecimalString = z
  .union([z.string(), z.number()])
  .transform(String)
  .pipe(z.string().regex(/^-?\d+(\.\d+)?$/, "must be a decimal amount"));

const AttributeValue = z
  .union([z.string(), z.number(), z.boolean(), z.null()])
  .transform((value) => (value === null ? "" : String(value)));

const OrderPayload = z.object({
  id: z.union([z.number().int().positive(), z.string().regex(/^\d+$/, "must be a numeric id")]).transform(String),
  admin_graphql_api_id: z.string().optional(),
  name: z.string().max(255).nullish(),
  created_at: z.string().refine((value) => !Number.isNaN(Date.parse(value)), "must be an ISO 8601 time"),
  currency: z.string().regex(/^[A-Z]{3}$/, "must be an ISO 4217 code"),
  subtotal_price: DecimalString.nullish(),
  current_subtotal_price: DecimalString.nullish(),
  total_price: DecimalString.nullish(),
  total_line_items_price: DecimalString.nullish(),
  note_attributes: z.array(z.object({ name: z.string(), value: AttributeValue })).nullish(),
  landing_site: z.string().nullish(),
});

export interface OrderFacts {
  id: string;
  gid: string;
  name: string | null;
  createdAt: string;
  currency: string;
  amounts: Partial<Record<OrderValueBasis, string>>;
  noteAttributes: { name: string; value: string }[];
  landingSite: string | null;
}

export type OrderFactsResult = { ok: true; facts: OrderFacts } | { ok: false; reason: string };

export function readOrderFacts(payload: unknown): OrderFactsResult {
  const parsed = OrderPayload.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, reason: issue ? `${issue.path.join(".") || "payload"} ${issue.message}` : "unreadable order" };
  }
  const order = parsed.data;
  // The gid is a string and so exact; a JSON number id beyond 2^53 would already be rounded.
  const id = order.admin_graphql_api_id?.match(/^gid:\/\/shopify\/Order\/(\d+)$/)?.[1] ?? order.id;
  const subtotal = order.subtotal_price ?? order.current_subtotal_price;
  return {
    ok: true,
    facts: {
      id,
      gid: `gid://shopify/Order/${id}`,
      name: order.name ?? null,
      createdAt: new Date(order.created_at).toISOString(),
      currency: order.currency,
      amounts: {
        ...(subtotal != null && { subtotal_after_discounts: subtotal }),
        ...(order.total_line_items_price != null && { subtotal_before_discounts: order.total_line_items_price }),
        ...(order.total_price != null && { total_price: order.total_price }),
      },
      noteAttributes: order.note_attributes ?? [],
      landingSite: order.landing_site ?? null,
    },
  };
}
