import { z } from "zod";
import { MAX_ATTRIBUTE_LENGTH } from "../attribution/cart-attributes";
import { MAX_CLICK_ID_LENGTH } from "../attribution/click-claims";
import type { PixelReport } from "../attribution/pixel-report";
import { printable } from "../landing/touch-input";

// What the web pixel may report through the app proxy. The proxy is public: a report that no
// pixel could have sent is refused before it costs a write, with the same bounds as a touch
// (app/landing/touch-input.ts) for the click id and the tag.

/** Longest body read. A real report is a few hundred bytes. */
export const MAX_PIXEL_BODY_BYTES = 4 * 1024;

// Shopify's event ids and client ids are letters, digits and a few separators (a UUID, or
// "sh-…"); anything else no pixel sends.
const opaqueId = (what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .regex(/^[A-Za-z0-9_.:-]{1,128}$/, `${what} is not an id Shopify gives`);

const ReportBody = z
  .object({
    eventId: opaqueId("eventId"),
    kind: z.enum(["landing", "checkout"], { error: 'kind must be "landing" or "checkout"' }),
    clientId: opaqueId("clientId"),
    clickId: printable(MAX_CLICK_ID_LENGTH, "clickId").nullable(),
    tag: printable(MAX_ATTRIBUTE_LENGTH, "tag").nullable(),
    // Shopify's numeric order id (the pixel cuts it from the order's gid).
    orderId: z
      .string({ error: "orderId must be a string" })
      .regex(/^[1-9]\d{0,19}$/, "orderId is not an order id")
      .nullable(),
    // The checkout's token, as orders/create's checkout_token has it. Optional: a pixel built
    // before it was sent still reports, and its checkout binds to no order (evidence only).
    checkoutToken: z
      .string({ error: "checkoutToken must be a string" })
      .regex(/^[A-Za-z0-9_-]{1,128}$/, "checkoutToken is not a checkout token")
      .nullish()
      .transform((token) => token ?? null),
  })
  .strict()
  // A tag alone: the page's URL swapped the tag and kept no click id (a coupon extension's
  // redirect); it belongs to the visitor's current click.
  .refine(
    (report) => report.kind !== "landing" || report.clickId !== null || report.tag !== null,
    "a landing carries a clickId or a tag",
  )
  .refine((report) => report.kind !== "landing" || report.orderId === null, "a landing carries no orderId")
  .refine((report) => report.kind !== "landing" || report.checkoutToken === null, "a landing carries no checkoutToken")
  .refine((report) => report.kind !== "checkout" || report.orderId !== null, "a checkout carries an orderId");

export type PixelInput = { ok: true; report: PixelReport } | { ok: false; error: string };

export function readPixelReport(body: unknown): PixelInput {
  const parsed = ReportBody.safeParse(body);
  if (parsed.success) return { ok: true, report: parsed.data };
  const issue = parsed.error.issues[0];
  // Stryker disable next-line StringLiteral: never read, zod reports at least one issue for every failed parse
  return { ok: false, error: issue?.message ?? "not a pixel report" };
}
