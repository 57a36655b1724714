// A number the merchant types (a payout minimum, a commission rate) in their own way of writing
// numbers: German, French, Dutch, Spanish, Italian and Brazilian merchants write a decimal comma
// ("25,50"), and group thousands with a dot, a space or an apostrophe ("1.250,50", "1 250,50",
// "1'250.50"). What is read is decimal text with a dot ("1250.50"), never a float: the amount's
// own parsers (minor units, the rate's pattern) then check it exactly as before.
//
// The locale decides which mark is the decimal one. A mark that is not the locale's decimal
// mark is read as one too (a merchant may type "12.5" in a German admin) unless it could as well
// group thousands: "1.500" in German, or "1,500" in English, is 1500 or 1.5, and is refused as
// ambiguous rather than guessed.

export type DecimalRead = { ok: true; value: string } | { ok: false; reason: "invalid" | "ambiguous" };

/** The locale's decimal mark ("," in de, "." in en); "." when Intl does not know the tag. */
export function decimalMark(locale: string): string {
  try {
    const part = new Intl.NumberFormat(locale).formatToParts(1.5).find((p) => p.type === "decimal");
    return part?.value ?? ".";
  } catch {
    return ".";
  }
}

/** Spaces and apostrophes only ever group digits (fr's narrow no-break space, de-CH's ’). */
const SPACE_GROUPS = /[\s\u00a0\u202f'’]/g;

/** Whether `whole` is digits in groups of three after a first group of one to three. */
function grouped(whole: string, mark: string): boolean {
  const groups = whole.split(mark);
  return /^\d{1,3}$/.test(groups[0]!) && groups.slice(1).every((group) => /^\d{3}$/.test(group));
}

/** Reads typed text as decimal text with a dot, per the locale's marks. */
export function readLocaleDecimal(typed: string, locale: string): DecimalRead {
  const invalid = { ok: false, reason: "invalid" } as const;
  let text = typed.trim().replace(SPACE_GROUPS, " ");
  const spaceGrouped = text.includes(" ");
  if (spaceGrouped) {
    // Spaces group the whole part; what follows its last group is the decimal part, whatever its mark.
    const [, whole = "", decimals = ""] = /^([\d ]+)([.,]\d+)?$/.exec(text) ?? [];
    if (!grouped(whole, " ")) return invalid;
    text = `${whole.replaceAll(" ", "")}${decimals}`;
  }
  if (!/^\d+([.,]\d+)*$/.test(text)) return invalid;
  const marks = [...new Set(text.replace(/\d/g, ""))];
  if (marks.length === 0) return { ok: true, value: text };
  if (marks.length === 2) {
    // Both marks: the last one is the decimal mark, and the other groups thousands before it.
    const decimal = text.at(text.search(/[.,]\d+$/))!;
    const group = decimal === "." ? "," : ".";
    const [whole = "", fraction = "", ...more] = text.split(decimal);
    if (more.length > 0 || !grouped(whole, group)) return invalid;
    return { ok: true, value: `${whole.replaceAll(group, "")}.${fraction}` };
  }
  const mark = marks[0]!;
  const pieces = text.split(mark);
  // One mark, several times: only grouping ("1.250.000").
  if (pieces.length > 2) return grouped(text, mark) ? { ok: true, value: pieces.join("") } : invalid;
  const [whole = "", fraction = ""] = pieces;
  if (!spaceGrouped && mark !== decimalMark(locale) && grouped(text, mark)) return { ok: false, reason: "ambiguous" };
  return { ok: true, value: `${whole}.${fraction}` };
}

/** Decimal text with a dot as the locale writes it in an input ("1250.50" -> "1250,50" in de), ungrouped. */
export function writeLocaleDecimal(value: string, locale: string): string {
  return decimalMark(locale) === "." ? value : value.replace(".", decimalMark(locale));
}
