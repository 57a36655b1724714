import { CLICK_ID_PARAM } from "../../app/attribution/cart-attributes";
import type { CaptureInput } from "./run-scenario";

/** The pages one shopper visits for an order, in order. */
export function shopperJourney({ clickId, expectedTag, arrivedTag, tagParam }: CaptureInput): string[] {
  const query = (params: Record<string, string>) => new URLSearchParams(params).toString();
  if (arrivedTag === null) return [`/?${query({ [CLICK_ID_PARAM]: clickId })}`]; // the tag was stripped
  if (expectedTag === null || arrivedTag === expectedTag)
    return [`/?${query({ [CLICK_ID_PARAM]: clickId, [tagParam]: arrivedTag })}`];
  // A coupon extension's redirect: the creator's link first, then the same shop with the tag swapped.
  return [
    `/?${query({ [CLICK_ID_PARAM]: clickId, [tagParam]: expectedTag })}`,
    `/products/x?${query({ [tagParam]: arrivedTag })}`,
  ];
}
