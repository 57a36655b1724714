import { z } from "zod";
import { CART_ATTRIBUTES } from "../attribution/cart-attributes";
import { storableText, storableTime } from "../database/storable";
import type { OrderValueBasis } from "../settings/order-value-basis";
import { Amount, MAX_ORDER_VALUE } from "../units/amounts";
import { SHOPIFY_ID, shopifyGid } from "../units/shopify-ids";

// The slice of an orders/create payload the pipeline needs. We keep only this, never the
// whole payload: it carries the shopper's name and addresses, which the app has no use for, and
// any script on the storefront can stuff the cart's attributes, so only ours are kept, each cut.

/** Largest order value the app accepts (app/units/amounts.ts: refunds are held to it too). */
export { MAX_ORDER_VALUE };
/** Longest value kept of one of our cart attributes, of the landing page URL, of the cart and checkout tokens. */
export const MAX_KEPT_TEXT = 2_048;
const MAX_CART_TOKEN = 256;
/** Shopify's discount codes are at most 255 characters. */
const MAX_DISCOUNT_CODE = 255;
/** An order carries a handful of codes; a payload listing more is cut here. */
const MAX_DISCOUNT_CODES = 20;

const OUR_ATTRIBUTES = new Set<string>(Object.values(CART_ATTRIBUTES));

const ORDER_GID = shopifyGid("Order");

/** The verification a URL names: by Shopify's numeric order id (as its order page allows), else by our id. */
export function verificationWhere(
  shop: string,
  idOrOrderId: string,
): { shop: string; orderId: string } | { shop: string; id: string } {
  return SHOPIFY_ID.test(idOrOrderId) ? { shop, orderId: idOrOrderId } : { shop, id: idOrOrderId };
}

const AttributeValue = z
  .union([z.string(), z.number(), z.boolean(), z.null()])
  .transform((value) => (value === null ? "" : String(value)));

/** Cut to `max`, then made storable (a cut can split an emoji's surrogate pair). */
const kept = (max: number) => (value: string) => storableText(value.slice(0, max));

/** One entry of the order's `discount_codes`: the code, the amount it took off, its type. */
const DiscountCodeEntry = z.object({
  code: z.string().min(1).max(MAX_DISCOUNT_CODE).transform(storableText),
  amount: Amount,
  type: z
    .string()
    .max(40)
    .transform(storableText)
    .nullish()
    .transform((value) => value ?? null),
});
export type DiscountCodeFact = z.output<typeof DiscountCodeEntry>;

/**
 * The codes as evidence, not as the order: an entry that cannot be read is left out rather
 * than refusing the order, whose verification does not depend on it.
 */
const DiscountCodes = z
  .array(z.unknown())
  .nullish()
  .transform((entries) => {
    const codes: DiscountCodeFact[] = [];
    // Stryker disable next-line ArrayDeclaration: any entry put in its place is no code, and left out
    for (const entry of entries ?? []) {
      const read = DiscountCodeEntry.safeParse(entry);
      if (read.success && !codes.some((c) => c.code === read.data.code)) codes.push(read.data);
      if (codes.length === MAX_DISCOUNT_CODES) break;
    }
    return codes;
  });

const OrderPayload = z.object({
  // Shopify's ids pass 2^53: as a JSON number the id is then inexact, and the gid (a string)
  // is what names the order. zod's int() would refuse such a number outright.
  id: z.union([
    z
      .number()
      .positive()
      .refine((id) => Number.isInteger(id), "must be a numeric id"),
    z.string().regex(SHOPIFY_ID, "must be a numeric id"),
  ]),
  admin_graphql_api_id: z.string().max(100).optional(),
  name: z.string().max(255).transform(storableText).nullish(),
  created_at: z
    .string()
    .max(64)
    .refine((value) => storableTime(Date.parse(value)), "must be an ISO 8601 time between 1970 and 9999"),
  currency: z.string().regex(/^[A-Z]{3}$/, "must be an ISO 4217 code"),
  subtotal_price: Amount.nullish(),
  current_subtotal_price: Amount.nullish(),
  total_price: Amount.nullish(),
  total_line_items_price: Amount.nullish(),
  // Only an edit's subtotal before discounts reads it: one Shopify garbled costs that, not the order.
  total_discounts: Amount.nullish().catch(undefined),
  note_attributes: z.array(z.object({ name: z.string(), value: AttributeValue })).nullish(),
  landing_site: z.string().transform(kept(MAX_KEPT_TEXT)).nullish(),
  cart_token: z.string().transform(kept(MAX_CART_TOKEN)).nullish(),
  checkout_token: z.string().transform(kept(MAX_CART_TOKEN)).nullish(),
  discount_codes: DiscountCodes,
  // Where the shopper checked out from (protected customer data: absent without that access).
  // Read only to derive the order's network source, never kept as it is.
  browser_ip: z.string().max(64).nullish().catch(undefined),
  client_details: z
    .object({
      browser_ip: z.string().max(64).nullish().catch(undefined),
      user_agent: z.string().max(2_048).nullish().catch(undefined),
    })
    .nullish()
    .catch(undefined),
});

export interface OrderFacts {
  id: string;
  gid: string;
  name: string | null;
  createdAt: string;
  currency: string;
  amounts: Partial<Record<OrderValueBasis, string>>;
  /**
   * What discounts took off the order as placed (total_discounts): an edit's line discounts move
   * its subtotal before discounts apart from its subtotal after (decision 045). Absent from
   * facts kept before it was.
   */
  discounts?: string;
  /** Our cart attributes as they reached the order (its note_attributes), each cut to MAX_KEPT_TEXT. */
  cartAttributes: { name: string; value: string }[];
  landingSite: string | null;
  /** The cart the order was placed from: what the storefront's landing touches name. */
  cartToken: string | null;
  /** The checkout that became the order: what the pixel's checkout report must carry to count. */
  checkoutToken: string | null;
  /** The discount codes applied to the order and the amount each took off. */
  discountCodes: DiscountCodeFact[];
}

/** The shopper's address and browser at checkout, as Shopify recorded them: read, hashed, never kept. */
export interface OrderShopper {
  browserIp: string | null;
  userAgent: string | null;
}

export type OrderFactsResult = { ok: true; facts: OrderFacts; shopper: OrderShopper } | { ok: false; reason: string };

export function readOrderFacts(payload: unknown): OrderFactsResult {
  let parsed: ReturnType<typeof OrderPayload.safeParse>;
  try {
    parsed = OrderPayload.safeParse(payload);
  } catch {
    // zod still runs a string's length checks on a value that is not a string: a JSON object
    // whose "length" cannot be compared ({"length": {"toString": null}}) makes them throw.
    return { ok: false, reason: "payload is not an order: a field holds an unreadable value" };
  }
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      reason: issue
        ? `${issue.path.join(".") || "payload"} ${issue.message}`
        : // Stryker disable next-line StringLiteral: never read, zod reports at least one issue for every failed parse
          "unreadable order",
    };
  }
  const order = parsed.data;
  // The gid is a string and so exact; a JSON number id beyond 2^53 is already rounded.
  const fromGid = order.admin_graphql_api_id?.match(ORDER_GID)?.[1];
  if (!fromGid && typeof order.id === "number" && !Number.isSafeInteger(order.id)) {
    return { ok: false, reason: "id is beyond 2^53 and no admin_graphql_api_id gives it exactly" };
  }
  const id = fromGid ?? String(order.id);
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
      ...(order.total_discounts != null && { discounts: order.total_discounts }),
      cartAttributes: (order.note_attributes ?? [])
        .filter((attribute) => OUR_ATTRIBUTES.has(attribute.name))
        .map(({ name, value }) => ({ name, value: kept(MAX_KEPT_TEXT)(value) })),
      landingSite: order.landing_site ?? null,
      cartToken: order.cart_token || null,
      checkoutToken: order.checkout_token || null,
      discountCodes: order.discount_codes,
    },
    shopper: {
      browserIp: order.client_details?.browser_ip ?? order.browser_ip ?? null,
      userAgent: order.client_details?.user_agent ?? null,
    },
  };
}

/** Facts stored by an earlier version, or emptied by customers/redact, read back safely. */
export function parseStoredFacts(text: string): OrderFacts | null {
  try {
    const value = JSON.parse(text) as Partial<OrderFacts> & { noteAttributes?: OrderFacts["cartAttributes"] };
    // Stryker disable next-line OptionalChaining: without the ?. a stored "null" throws, and the catch below returns null all the same
    if (typeof value?.id !== "string" || typeof value.createdAt !== "string") return null;
    return {
      id: value.id,
      gid: value.gid ?? `gid://shopify/Order/${value.id}`,
      name: value.name ?? null,
      createdAt: value.createdAt,
      currency: value.currency ?? "USD",
      amounts: value.amounts ?? {},
      ...(typeof value.discounts === "string" && { discounts: value.discounts }),
      cartAttributes: value.cartAttributes ?? value.noteAttributes ?? [],
      landingSite: value.landingSite ?? null,
      cartToken: value.cartToken ?? null,
      checkoutToken: value.checkoutToken ?? null,
      discountCodes: value.discountCodes ?? [],
    };
  } catch {
    return null;
  }
}
