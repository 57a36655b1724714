// Builds an `orders/create` webhook payload as Shopify delivers it for API 2026-07, with the
// field set of Shopify's documented sample (tests/fixtures/webhooks/orders-create-2026-07.json:
// no checkout_id since 2026-04; current_shipping_price_set, line_item_groups, ...).
// - Money is exact (decimal.js), as decimal strings with a `*_set` {shop_money,
//   presentment_money} beside each amount. Amounts are described in the shop's currency; a
//   buyer paying in another currency gets presentment amounts at `presentment.rate`.
// - Discounts, taxes and shipping are spread over the lines the way Shopify reports them
//   (discount_applications + discount_allocations, tax_lines, shipping_lines).
// - Times carry the shop's UTC offset and whole seconds, as Shopify writes them.
// - Ids are JSON numbers with admin_graphql_api_id beside them. An id beyond 2^53 (Shopify's own
//   sample has one) cannot survive as a JavaScript number: given as a digit string, the number
//   is what a JSON parser would make of it and only the gid keeps the exact digits.
// Fields the app never reads are present with realistic empty values, not invented data.
import Decimal from "decimal.js";

export interface OrderLineDescription {
  title: string;
  /** Unit price in the shop's currency. */
  price: string | number;
  quantity?: number;
  sku?: string;
  productId?: number;
  variantId?: number;
  vendor?: string;
}

export interface OrderDescription {
  /** A number, or digits as a string for an id beyond 2^53. */
  id?: number | string;
  /** Order number; name is `#${number}` unless given. */
  number?: number;
  name?: string;
  email?: string;
  createdAt?: string | Date;
  /** The shop's UTC offset for created_at and the other times, e.g. "+01:00". Default "-05:00". */
  utcOffset?: string;
  /** The shop's currency: every top-level amount and every shop_money is in it. Default USD. */
  currency?: string;
  /** The currency the buyer paid in, and how many of its units one shop-currency unit buys. */
  presentment?: { currency: string; rate: string | number };
  lineItems?: OrderLineDescription[];
  /** Order-level discount amount, spread over the lines; a discount code when `discountCode` is set. */
  discount?: string | number;
  discountCode?: string;
  /** Total tax amount; `taxRate` (default 0.1) is what tax_lines report. */
  tax?: string | number;
  taxRate?: string | number;
  /** Prices include the tax (EU style): the total does not add it again. */
  taxesIncluded?: boolean;
  shipping?: string | number;
  /** Cart attributes: an object or Shopify's [{name, value}] list. */
  noteAttributes?: Record<string, string> | Array<{ name: string; value: string }>;
  note?: string | null;
  landingSite?: string | null;
  referringSite?: string | null;
  tags?: string[] | string;
  customer?: { id?: number; email?: string; firstName?: string; lastName?: string } | null;
  shop?: string;
  test?: boolean;
  sourceName?: string;
}

export type OrderWebhookPayload = Record<string, unknown> & {
  id: number;
  admin_graphql_api_id: string;
  name: string;
  tags: string;
  note_attributes: Array<{ name: string; value: string }>;
};

let sequence = 0;
let lineSequence = 0;
const ZERO = new Decimal(0);

/** Shopify's time format: the shop's local time to the second, with its offset. */
export function shopTime(at: Date, utcOffset: string): string {
  const match = /^([+-])(\d{2}):(\d{2})$/.exec(utcOffset);
  if (!match) throw new Error(`utcOffset must look like +01:00 or -05:00, got ${JSON.stringify(utcOffset)}`);
  const minutes = (match[1] === "-" ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
  const local = new Date(Math.floor(at.getTime() / 1000) * 1000 + minutes * 60_000);
  return `${local.toISOString().slice(0, 19)}${utcOffset}`;
}

/** Splits `total` over `weights` in proportion, to the cent, the remainder on the last share. */
function spread(total: Decimal, weights: Decimal[]): Decimal[] {
  const sum = weights.reduce((a, b) => a.plus(b), ZERO);
  if (sum.isZero()) return weights.map(() => ZERO);
  const shares = weights.map((w) => total.times(w).dividedBy(sum).toDecimalPlaces(2));
  const rest = total.minus(shares.reduce((a, b) => a.plus(b), ZERO));
  shares[shares.length - 1] = shares[shares.length - 1]!.plus(rest);
  return shares;
}

export function buildOrderCreatePayload(description: OrderDescription = {}): OrderWebhookPayload {
  sequence += 1;
  const idDigits = String(description.id ?? 6_512_345_000_000 + sequence);
  if (!/^\d+$/.test(idDigits)) throw new Error(`order id must be digits, got ${JSON.stringify(description.id)}`);
  const id = Number(idDigits);
  const number = description.number ?? 1000 + sequence;
  const currency = description.currency ?? "USD";
  const presentmentCurrency = description.presentment?.currency ?? currency;
  const rate = new Decimal(description.presentment?.rate ?? 1);
  const money = (amount: Decimal) => amount.toFixed(2);
  const set = (amount: Decimal) => ({
    shop_money: { amount: money(amount), currency_code: currency },
    presentment_money: { amount: money(amount.times(rate)), currency_code: presentmentCurrency },
  });
  const utcOffset = description.utcOffset ?? "-05:00";
  const createdAt = shopTime(
    description.createdAt instanceof Date ? description.createdAt : new Date(description.createdAt ?? Date.now()),
    utcOffset,
  );
  const shop = description.shop ?? "demo-shop.myshopify.com";

  const lines = description.lineItems ?? [{ title: "Test product", price: "25.00", quantity: 1 }];
  const lineTotals = lines.map((line) => new Decimal(line.price).times(line.quantity ?? 1));
  const lineItemsPrice = lineTotals.reduce((a, b) => a.plus(b), ZERO);
  const discount = Decimal.min(new Decimal(description.discount ?? 0), lineItemsPrice);
  const discountShares = spread(discount, lineTotals);
  const subtotal = lineItemsPrice.minus(discount);
  const tax = new Decimal(description.tax ?? 0);
  const taxRate = new Decimal(description.taxRate ?? "0.1");
  const taxShares = spread(
    tax,
    lineTotals.map((total, i) => total.minus(discountShares[i]!)),
  );
  const shipping = new Decimal(description.shipping ?? 0);
  const taxesIncluded = description.taxesIncluded ?? false;
  const total = subtotal.plus(shipping).plus(taxesIncluded ? ZERO : tax);
  const taxLine = (amount: Decimal) => ({
    price: money(amount),
    rate: taxRate.toNumber(),
    title: "Tax",
    price_set: set(amount),
    channel_liable: false,
  });

  const discountApplications = discount.isZero()
    ? []
    : [
        {
          target_type: "line_item",
          type: description.discountCode ? "discount_code" : "manual",
          value: money(discount),
          value_type: "fixed_amount",
          allocation_method: "across",
          target_selection: "all",
          ...(description.discountCode
            ? { code: description.discountCode }
            : { title: "Discount", description: "Discount" }),
        },
      ];

  const lineItems = lines.map((line, index) => {
    lineSequence += 1;
    const lineId = 14_500_000_000_000 + lineSequence;
    const quantity = line.quantity ?? 1;
    const price = new Decimal(line.price);
    return {
      id: lineId,
      admin_graphql_api_id: `gid://shopify/LineItem/${lineId}`,
      attributed_staffs: [],
      current_quantity: quantity,
      fulfillable_quantity: quantity,
      fulfillment_service: "manual",
      fulfillment_status: null,
      gift_card: false,
      grams: 0,
      name: line.title,
      price: money(price),
      price_set: set(price),
      product_exists: true,
      product_id: line.productId ?? 632910392 + index,
      properties: [],
      quantity,
      requires_shipping: true,
      sales_line_item_group_id: null,
      sku: line.sku ?? "",
      taxable: true,
      title: line.title,
      total_discount: "0.00",
      total_discount_set: set(ZERO),
      variant_id: line.variantId ?? 808950810 + index,
      variant_inventory_management: "shopify",
      variant_title: null,
      vendor: line.vendor ?? "Demo Vendor",
      tax_lines: tax.isZero() ? [] : [taxLine(taxShares[index]!)],
      duties: [],
      discount_allocations: discount.isZero()
        ? []
        : [
            {
              amount: money(discountShares[index]!),
              amount_set: set(discountShares[index]!),
              discount_application_index: 0,
            },
          ],
    };
  });

  const noteAttributes = Array.isArray(description.noteAttributes)
    ? description.noteAttributes
    : Object.entries(description.noteAttributes ?? {}).map(([name, value]) => ({ name, value }));
  const tags = Array.isArray(description.tags) ? description.tags.join(", ") : (description.tags ?? "");
  const customerId = description.customer?.id ?? 7_301_234_567_890;
  const email = description.email ?? description.customer?.email ?? "buyer@example.com";
  const customer =
    description.customer === null
      ? null
      : {
          id: customerId,
          created_at: createdAt,
          updated_at: createdAt,
          first_name: description.customer?.firstName ?? "Bob",
          last_name: description.customer?.lastName ?? "Buyer",
          state: "disabled",
          note: null,
          verified_email: true,
          multipass_identifier: null,
          tax_exempt: false,
          email,
          phone: null,
          currency,
          tax_exemptions: [],
          admin_graphql_api_id: `gid://shopify/Customer/${customerId}`,
          default_address: null,
        };
  lineSequence += 1;
  const shippingLineId = 14_500_000_000_000 + lineSequence;

  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${idDigits}`,
    app_id: 580111,
    browser_ip: "203.0.113.7",
    buyer_accepts_marketing: false,
    cancel_reason: null,
    cancelled_at: null,
    cart_token: `cart-${idDigits}`,
    checkout_token: `checkout-${idDigits}`,
    client_details: {
      accept_language: "en-US",
      browser_height: null,
      browser_ip: "203.0.113.7",
      browser_width: null,
      session_hash: null,
      user_agent: "Mozilla/5.0",
    },
    closed_at: null,
    confirmation_number: `C${BigInt(idDigits).toString(36).toUpperCase().slice(-8)}`,
    confirmed: true,
    contact_email: email,
    created_at: createdAt,
    currency,
    current_shipping_price_set: set(shipping),
    current_subtotal_price: money(subtotal),
    current_subtotal_price_set: set(subtotal),
    current_total_additional_fees_set: null,
    current_total_discounts: money(discount),
    current_total_discounts_set: set(discount),
    current_total_duties_set: null,
    current_total_price: money(total),
    current_total_price_set: set(total),
    current_total_tax: money(tax),
    current_total_tax_set: set(tax),
    customer_locale: "en",
    device_id: null,
    discount_codes: description.discountCode
      ? [{ code: description.discountCode, amount: money(discount), type: "fixed_amount" }]
      : [],
    duties_included: false,
    email,
    estimated_taxes: false,
    financial_status: "paid",
    fulfillment_status: null,
    landing_site: description.landingSite ?? null,
    landing_site_ref: null,
    location_id: null,
    merchant_business_entity_id: "MTU0ODM4MDAwOQ",
    merchant_of_record_app_id: null,
    name: description.name ?? `#${number}`,
    note: description.note ?? null,
    note_attributes: noteAttributes,
    number: number - 1000,
    order_number: number,
    order_status_url: `https://${shop}/690933842/orders/${BigInt(idDigits).toString(16)}/authenticate?key=standin`,
    original_total_additional_fees_set: null,
    original_total_duties_set: null,
    payment_gateway_names: ["bogus"],
    phone: null,
    po_number: null,
    presentment_currency: presentmentCurrency,
    processed_at: createdAt,
    reference: null,
    referring_site: description.referringSite ?? null,
    source_identifier: null,
    source_name: description.sourceName ?? "web",
    source_url: null,
    subtotal_price: money(subtotal),
    subtotal_price_set: set(subtotal),
    tags,
    tax_exempt: false,
    tax_lines: tax.isZero() ? [] : [taxLine(tax)],
    taxes_included: taxesIncluded,
    test: description.test ?? false,
    token: `token-${idDigits}`,
    total_cash_rounding_payment_adjustment_set: set(ZERO),
    total_cash_rounding_refund_adjustment_set: set(ZERO),
    total_discounts: money(discount),
    total_discounts_set: set(discount),
    total_line_items_price: money(lineItemsPrice),
    total_line_items_price_set: set(lineItemsPrice),
    total_outstanding: "0.00",
    total_price: money(total),
    total_price_set: set(total),
    total_shipping_price_set: set(shipping),
    total_tax: money(tax),
    total_tax_set: set(tax),
    total_tip_received: "0.00",
    total_weight: 0,
    updated_at: createdAt,
    user_id: null,
    billing_address: null,
    customer,
    discount_applications: discountApplications,
    fulfillments: [],
    line_items: lineItems,
    payment_terms: null,
    refunds: [],
    shipping_address: null,
    shipping_lines: shipping.isZero()
      ? []
      : [
          {
            id: shippingLineId,
            carrier_identifier: null,
            code: "Standard",
            current_discounted_price_set: set(shipping),
            discounted_price: money(shipping),
            discounted_price_set: set(shipping),
            is_removed: false,
            phone: null,
            price: money(shipping),
            price_set: set(shipping),
            requested_fulfillment_service_id: null,
            source: "shopify",
            title: "Standard",
            tax_lines: [],
            discount_allocations: [],
          },
        ],
    returns: [],
    line_item_groups: [],
  };
}
