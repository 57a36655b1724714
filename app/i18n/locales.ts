// Which of the app's languages a merchant's locale gets. Shopify admin passes its language as
// `locale` (a BCP 47 tag: "de", "pt-BR", "zh-CN"); a tag is tried as given, then without its
// region ("pt-BR" -> "pt"), then English. A language the app does not ship reads in English.

/** The source language: every key exists in it, and every other language falls back to it. */
export const SOURCE_LOCALE = "en";

/**
 * The pseudo-locale: English with every translated string marked, so a string that bypassed
 * translation shows unmarked (tests/e2e/pseudo-locale.test.ts). Served only where
 * pseudoLocaleAllowed says so, never to a merchant.
 */
export const PSEUDO_LOCALE = "en-XA";

/**
 * The locale among `shipped` for a requested tag, by the fallback chain: the tag itself
 * (case aside), its language alone, English.
 */
export function pickLocale(requested: string | null | undefined, shipped: readonly string[]): string {
  if (!requested) return SOURCE_LOCALE;
  const byLower = new Map(shipped.map((locale) => [locale.toLowerCase(), locale]));
  const tag = requested.trim().replace(/_/g, "-").toLowerCase();
  const parts = tag.split("-");
  for (let length = parts.length; length > 0; length--) {
    const found = byLower.get(parts.slice(0, length).join("-"));
    if (found) return found;
  }
  return SOURCE_LOCALE;
}

/** The locale file's name for a path Vite's glob gives ("./locales/pt-BR.json" -> "pt-BR"). */
export function localeOfFile(file: string): string {
  return file.replace(/^.*\//, "").replace(/\.json$/, "");
}
