import { z } from "zod";
import { MAX_CLICK_ID_LENGTH } from "../attribution/find-click";
import { MAX_ATTRIBUTE_LENGTH, type TouchRequest } from "../attribution/cart-attributes";

// What the storefront may report through the app proxy. The proxy is public, so anything that
// cannot be a real click id, tag or cart token is refused before it costs a write.

/** Longest body the touch route reads. A real touch is a few hundred bytes. */
export const MAX_TOUCH_BODY_BYTES = 4 * 1024;

/** Printable text without control characters (C0, DEL, C1) or surrounding space. */
const printable = (max: number, what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .min(1, `${what} is empty`)
    .max(max, `${what} is longer than ${max} characters`)
    // eslint-disable-next-line no-control-regex
    .refine((value) => !/[\u0000-\u001f\u007f-\u009f]/.test(value), `${what} contains control characters`)
    .refine((value) => value.trim() === value, `${what} has surrounding spaces`);

const TouchBody = z.object({
  clickId: printable(MAX_CLICK_ID_LENGTH, "clickId"),
  tag: printable(MAX_ATTRIBUTE_LENGTH, "tag").nullable(),
  // Shopify's cart tokens are letters, digits, "-" and "_" (the cookie's "?key=" suffix is cut).
  cartToken: z
    .string({ error: "cartToken must be a string (the bare cart token)" })
    .regex(/^[A-Za-z0-9_-]{1,128}$/, "cartToken is not a cart token"),
});

export type TouchInput = { ok: true; touch: TouchRequest } | { ok: false; error: string };

export function readTouch(body: unknown): TouchInput {
  const parsed = TouchBody.safeParse(body);
  if (parsed.success) return { ok: true, touch: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, error: issue?.message ?? "not a touch" };
}
