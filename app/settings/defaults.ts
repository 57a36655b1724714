import { DEFAULT_TAG_PARAMS } from "../attribution/cart-attributes";
import { DEFAULT_ORDER_VALUE_BASIS, type OrderValueBasis } from "./order-value-basis";

// What a shop's settings are until the merchant changes them, in one place: the settings
// schema's defaults, the settings page before the first save, the demo's scenario, and the
// ShopSettings columns' @default in prisma/schema.prisma (which cannot import them;
// tests/settings/defaults.test.ts holds the two equal). The tag parameters come from the
// storefront module, which the theme extension's script is built from.
export const DEFAULT_SETTINGS: {
  readonly tagParams: readonly string[];
  readonly hijackTag: string;
  readonly commissionRate: string;
  readonly orderValueBasis: OrderValueBasis;
  readonly autoVerify: boolean;
  /** Days a landing attributes an order (the landing record). */
  readonly attributionWindowDays: number;
  /** New clicks the app proxy may look up per hour for the shop. */
  readonly landingLookupsPerHour: number;
  /** Days after the order before a commission is approved (the ledger's hold). */
  readonly holdDays: number;
  /** Creator id -> percent, overriding commissionRate. */
  readonly creatorRates: Readonly<Record<string, string>>;
} = {
  tagParams: DEFAULT_TAG_PARAMS,
  hijackTag: "affiliate-hijacked",
  commissionRate: "10",
  orderValueBasis: DEFAULT_ORDER_VALUE_BASIS,
  autoVerify: true,
  attributionWindowDays: 30,
  landingLookupsPerHour: 1000,
  holdDays: 30,
  creatorRates: {},
};
