import { lineKey, variantOf, type Cart, type CartLine } from "./cart";
import { lineTitle } from "./products";

// The cart and its line items as the Ajax Cart API answers them (cart.js, and add.js for the
// lines it added): every amount in minor units of the shop's one currency. The stand-in has no
// discounts in the cart (a discount code applies at checkout), so the original, discounted and
// final prices are one price, and nothing in the cart is taxed or weighed beyond the variant.

const CURRENCY = "USD";
const DEFAULT_OPTION = "Default Title";

export function lineItemJson(line: CartLine) {
  const variant = variantOf(line);
  const linePrice = variant.price * line.quantity;
  const option = variant.variantTitle ?? DEFAULT_OPTION;
  return {
    id: variant.id,
    properties: { ...line.properties },
    quantity: line.quantity,
    variant_id: variant.id,
    key: lineKey(line),
    title: lineTitle(variant),
    price: variant.price,
    original_price: variant.price,
    discounted_price: variant.price,
    line_price: linePrice,
    original_line_price: linePrice,
    total_discount: 0,
    discounts: [],
    sku: variant.sku,
    grams: variant.grams,
    vendor: variant.vendor,
    taxable: true,
    product_id: variant.productId,
    product_has_only_default_variant: variant.variantTitle === null,
    gift_card: false,
    final_price: variant.price,
    final_line_price: linePrice,
    url: `/products/${variant.handle}?variant=${variant.id}`,
    handle: variant.handle,
    requires_shipping: true,
    product_type: variant.productType,
    product_title: variant.productTitle,
    variant_title: variant.variantTitle,
    variant_options: [option],
    options_with_values: [{ name: "Title", value: option }],
    line_level_discount_allocations: [],
    line_level_total_discount: 0,
  };
}

export function cartJson(cart: Cart) {
  const items = cart.items.map(lineItemJson);
  const total = items.reduce((sum, item) => sum + item.final_line_price, 0);
  return {
    token: cart.token,
    note: cart.note,
    attributes: { ...cart.attributes },
    original_total_price: total,
    total_price: total,
    total_discount: 0,
    total_weight: items.reduce((sum, item) => sum + item.grams * item.quantity, 0),
    item_count: items.reduce((sum, item) => sum + item.quantity, 0),
    items,
    requires_shipping: items.some((item) => item.requires_shipping),
    currency: CURRENCY,
    items_subtotal_price: total,
    cart_level_discount_applications: [],
  };
}
