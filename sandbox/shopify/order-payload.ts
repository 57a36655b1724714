// Builds an `orders/create` webhook payload in the REST shape Shopify delivers (API 2026-07)
// from a compact description. Money is decimal strings, each amount also as a *_set
// {shop_money, presentment_money}; ids are numbers with admin_graphql_api_id beside them.
// Fields the app never reads are present with realistic empty values, not invented data.

export interface OrderLineDescription {
  title: string;
  price: string | number;
  quantity?: number;
  sku?: string;
  productId?: number;
  variantId?: number;
  vendor?: string;
}

export interface OrderDescription {
  id?: number;
  /** Order number; name is `#${number}` unless given. */
  number?: number;
  name?: string;
  email?: string;
  createdAt?: string | Date;
  currency?: string;
  lineItems?: OrderLineDescription[];
  /** Total order-level discount (amount), spread as one discount code when `discountCode` is set. */
  discount?: string | number;
  discountCode?: string;
  tax?: string | number;
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

const money = (value: number) => value.toFixed(2);
const set = (amount: string, currency: string) => ({
  shop_money: { amount, currency_code: currency },
  presentment_money: { amount, currency_code: currency },
});

export function buildOrderCreatePayload(description: OrderDescription = {}): OrderWebhookPayload {
  sequence += 1;
  const id = description.id ?? 6_512_345_000_000 + sequence;
  const number = description.number ?? 1000 + sequence;
  const currency = description.currency ?? "USD";
  const createdAt =
    description.createdAt instanceof Date
      ? description.createdAt.toISOString()
      : (description.createdAt ?? new Date().toISOString());
  const lines = description.lineItems ?? [{ title: "Test product", price: "25.00", quantity: 1 }];
  const lineItems = lines.map((line, index) => {
    const price = Number(line.price);
    const quantity = line.quantity ?? 1;
    const lineId = id * 10 + index + 1;
    const productId = line.productId ?? 632910392 + index;
    const variantId = line.variantId ?? 808950810 + index;
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
      price_set: set(money(price), currency),
      product_exists: true,
      product_id: productId,
      properties: [],
      quantity,
      requires_shipping: true,
      sku: line.sku ?? "",
      taxable: true,
      title: line.title,
      total_discount: "0.00",
      total_discount_set: set("0.00", currency),
      variant_id: variantId,
      variant_inventory_management: "shopify",
      variant_title: null,
      vendor: line.vendor ?? "Demo Vendor",
      tax_lines: [],
      duties: [],
      discount_allocations: [],
    };
  });
  const subtotal = lines.reduce((sum, line) => sum + Number(line.price) * (line.quantity ?? 1), 0);
  const discount = Number(description.discount ?? 0);
  const tax = Number(description.tax ?? 0);
  const shipping = Number(description.shipping ?? 0);
  const subtotalAfterDiscount = Math.max(0, subtotal - discount);
  const total = subtotalAfterDiscount + tax + shipping;
  const noteAttributes = Array.isArray(description.noteAttributes)
    ? description.noteAttributes
    : Object.entries(description.noteAttributes ?? {}).map(([name, value]) => ({ name, value }));
  const tags = Array.isArray(description.tags) ? description.tags.join(", ") : (description.tags ?? "");
  const shop = description.shop ?? "demo-shop.myshopify.com";
  const customer =
    description.customer === null
      ? null
      : {
          id: description.customer?.id ?? 7_301_234_567_890,
          email: description.customer?.email ?? description.email ?? "buyer@example.com",
          first_name: description.customer?.firstName ?? "Bob",
          last_name: description.customer?.lastName ?? "Buyer",
          state: "disabled",
          note: null,
          verified_email: true,
          tax_exempt: false,
          tags: "",
          currency,
          created_at: createdAt,
          updated_at: createdAt,
          admin_graphql_api_id: `gid://shopify/Customer/${description.customer?.id ?? 7_301_234_567_890}`,
          default_address: null,
        };
  const discountCodes =
    description.discountCode && discount > 0
      ? [{ code: description.discountCode, amount: money(discount), type: "fixed_amount" }]
      : [];
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    app_id: 580111,
    browser_ip: "203.0.113.7",
    buyer_accepts_marketing: false,
    cancel_reason: null,
    cancelled_at: null,
    cart_token: `cart-${id}`,
    checkout_id: id + 1,
    checkout_token: `checkout-${id}`,
    client_details: {
      accept_language: "en-US",
      browser_height: null,
      browser_ip: "203.0.113.7",
      browser_width: null,
      session_hash: null,
      user_agent: "Mozilla/5.0",
    },
    closed_at: null,
    confirmation_number: `C${id.toString(36).toUpperCase().slice(-8)}`,
    confirmed: true,
    contact_email: description.email ?? customer?.email ?? null,
    created_at: createdAt,
    currency,
    current_subtotal_price: money(subtotalAfterDiscount),
    current_subtotal_price_set: set(money(subtotalAfterDiscount), currency),
    current_total_additional_fees_set: null,
    current_total_discounts: money(discount),
    current_total_discounts_set: set(money(discount), currency),
    current_total_duties_set: null,
    current_total_price: money(total),
    current_total_price_set: set(money(total), currency),
    current_total_tax: money(tax),
    current_total_tax_set: set(money(tax), currency),
    customer_locale: "en",
    discount_codes: discountCodes,
    duties_included: false,
    email: description.email ?? customer?.email ?? "",
    estimated_taxes: false,
    financial_status: "paid",
    fulfillment_status: null,
    landing_site: description.landingSite ?? null,
    landing_site_ref: null,
    location_id: null,
    name: description.name ?? `#${number}`,
    note: description.note ?? null,
    note_attributes: noteAttributes,
    number: number - 1000,
    order_number: number,
    order_status_url: `https://${shop}/690933842/orders/${id.toString(16)}/authenticate?key=standin`,
    original_total_additional_fees_set: null,
    original_total_duties_set: null,
    payment_gateway_names: ["bogus"],
    phone: null,
    po_number: null,
    presentment_currency: currency,
    processed_at: createdAt,
    reference: null,
    referring_site: description.referringSite ?? null,
    source_identifier: null,
    source_name: description.sourceName ?? "web",
    source_url: null,
    subtotal_price: money(subtotalAfterDiscount),
    subtotal_price_set: set(money(subtotalAfterDiscount), currency),
    tags,
    tax_exempt: false,
    tax_lines: [],
    taxes_included: false,
    test: description.test ?? false,
    token: `token-${id}`,
    total_cash_rounding_payment_adjustment_set: set("0.00", currency),
    total_cash_rounding_refund_adjustment_set: set("0.00", currency),
    total_discounts: money(discount),
    total_discounts_set: set(money(discount), currency),
    total_line_items_price: money(subtotal),
    total_line_items_price_set: set(money(subtotal), currency),
    total_outstanding: "0.00",
    total_price: money(total),
    total_price_set: set(money(total), currency),
    total_shipping_price_set: set(money(shipping), currency),
    total_tax: money(tax),
    total_tax_set: set(money(tax), currency),
    total_tip_received: "0.00",
    total_weight: 0,
    updated_at: createdAt,
    user_id: null,
    billing_address: null,
    customer,
    discount_applications: discountCodes.map((code) => ({
      target_type: "line_item",
      type: "discount_code",
      value: code.amount,
      value_type: "fixed_amount",
      allocation_method: "across",
      target_selection: "all",
      code: code.code,
    })),
    fulfillments: [],
    line_items: lineItems,
    payment_terms: null,
    refunds: [],
    shipping_address: null,
    shipping_lines: [],
    returns: [],
  };
}
