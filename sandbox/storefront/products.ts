// What the stand-in shop sells: one product with its one (default) variant, as Shopify's
// storefront knows it. The cart (cart.ts) holds variants by id, as Shopify's does, and reads
// their title and price from here when it answers or checks out; the theme's pages show it.

export interface Variant {
  /** The variant id the product form posts and the Ajax Cart API takes (`id`, `variant_id`). */
  id: number;
  productId: number;
  handle: string;
  productTitle: string;
  /** The variant's own title; null for a product's only, default variant. */
  variantTitle: string | null;
  /** Unit price in minor units (cents), as the Ajax Cart API gives every amount. */
  price: number;
  grams: number;
  vendor: string;
  productType: string;
  sku: string;
}

export const PRODUCT_VARIANT: Variant = {
  id: 44_012_345_678_901,
  productId: 8_801_234_567_890,
  handle: "merino-beanie",
  productTitle: "Merino wool beanie",
  variantTitle: null,
  price: 2_900,
  grams: 85,
  vendor: "Tag Guard test store",
  productType: "Hats",
  sku: "BEANIE-MERINO",
};

const VARIANTS = new Map<number, Variant>([[PRODUCT_VARIANT.id, PRODUCT_VARIANT]]);

/** The variant with this id, if the shop sells it. */
export function variantById(id: number): Variant | undefined {
  return VARIANTS.get(id);
}

/** A line's title as Shopify gives it: the product's, then the variant's when it has one. */
export function lineTitle(variant: Variant): string {
  return variant.variantTitle ? `${variant.productTitle} - ${variant.variantTitle}` : variant.productTitle;
}

/** An amount in minor units as the shop's decimal string ("29.00"). */
export function decimalAmount(minor: number): string {
  return (minor / 100).toFixed(2);
}
