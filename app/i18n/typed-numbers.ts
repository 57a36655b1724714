import { readLocaleDecimal, writeLocaleDecimal } from "../units/locale-decimal";
import { requestedLocale, t } from "./index";

// A number field of an admin form, read in the language of the request that sent it: decimal text
// with a dot for the field's own checks, or a message that says why not. Ambiguous input names
// both readings, so the merchant picks one instead of the app guessing.

export type TypedNumber = { ok: true; value: string } | { ok: false; message: string };

/**
 * The typed text as decimal text with a dot. Text that is no number at all is passed on as it
 * was typed, for the field's own check to word its usual error; only ambiguity is answered here.
 */
export function typedNumber(typed: string, locale = requestedLocale()): TypedNumber {
  const read = readLocaleDecimal(typed, locale);
  if (read.ok) return read;
  if (read.reason === "invalid") return { ok: true, value: typed.trim() };
  const [whole = "", fraction = ""] = typed.trim().split(/[.,]/);
  return {
    ok: false,
    message: t("numbers.ambiguous", {
      typed: typed.trim(),
      thousands: `${whole}${fraction}`,
      fraction: writeLocaleDecimal(`${whole}.${fraction}`, locale),
    }),
  };
}

/** Decimal text with a dot as the request's locale writes it in an input. */
export function shownNumber(value: string, locale = requestedLocale()): string {
  return writeLocaleDecimal(value, locale);
}
