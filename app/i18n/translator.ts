import type { AppProviderProps } from "@shopify/polaris";
import i18next, { type i18n } from "i18next";
import { PSEUDO_LOCALE, SOURCE_LOCALE } from "./locales";

// One language's messages behind i18next, read in the locale files' own shape (Shopify's
// translation format): {placeholders} in single braces, i18next's interpolation set to those
// delimiters, and plural forms as nested objects ("one", "other", and whatever else the
// language's Intl.PluralRules names), picked here rather than by i18next's "_one" suffixes.
// Built once per language on the server and once in the browser.

export type Messages = { [key: string]: string | Messages };

/** Polaris's own strings for its AppProvider; none for English, which Polaris has built in. */
export type PolarisTranslations = AppProviderProps["i18n"] | undefined;

export interface Catalogue {
  /** The app's strings in this language. */
  app: Messages;
  /** English, for a key this language does not have yet; absent when the language is English. */
  source?: Messages;
  polaris: PolarisTranslations;
}

export interface Translator {
  /** The app's language the strings come from ("de", "pt-BR", "en"). */
  locale: string;
  /** The tag the merchant's admin asked for ("de-CH"): numbers, money and dates follow it. */
  requested: string;
  t(key: string, vars?: Record<string, string | number>): string;
  exists(key: string): boolean;
  polaris: PolarisTranslations;
}

function instance(locale: string, catalogue: Catalogue): i18n {
  const resources: Record<string, { translation: Messages }> = { [locale]: { translation: catalogue.app } };
  if (catalogue.source && locale !== SOURCE_LOCALE) resources[SOURCE_LOCALE] = { translation: catalogue.source };
  const created = i18next.createInstance();
  void created.init({
    lng: locale,
    fallbackLng: catalogue.source ? SOURCE_LOCALE : false,
    resources,
    // Resources are in hand: init finishes before it returns, and t() works at once.
    initAsync: false,
    nsSeparator: false,
    // The locale files write {name}, not i18next's {{name}}. React escapes what it renders; the
    // CSV and log text want the raw value.
    interpolation: { prefix: "{", suffix: "}", escapeValue: false },
    returnEmptyString: false,
  });
  return created;
}

/**
 * Wraps a lookup so that a key's answer is worked out once. The server keeps answers (a page asks
 * a few hundred, each an i18next resolution of several microseconds); the browser, which renders
 * a page's worth once, asks i18next each time and ships no memory of its own.
 */
export type Remember = <T>(answer: (key: string) => T) => (key: string) => T;

const askEachTime: Remember = (answer) => answer;

export function createTranslator(
  locale: string,
  requested: string,
  catalogue: Catalogue,
  remember: Remember = askEachTime,
): Translator {
  const messages = instance(locale, catalogue);
  // The plural form is picked here with the language's Intl.PluralRules, and {count} written
  // with an Intl.NumberFormat, both built once per language (a formatter built per call costs
  // about 50 µs, a dashboard's worth of counts is milliseconds); i18next is handed the form's
  // own key and the written count, a string, so its own plural suffixes never come into play.
  const plurals = new Intl.PluralRules(locale === PSEUDO_LOCALE ? SOURCE_LOCALE : locale);
  const numbers = new Intl.NumberFormat(numberLocale(requested));
  const exists = remember((key) => messages.exists(key));
  const pluralKey = (key: string, count: number | undefined): string => {
    if (!exists(`${key}.other`)) return key;
    const form = count === undefined ? "other" : plurals.select(count);
    return exists(`${key}.${form}`) ? `${key}.${form}` : `${key}.other`;
  };
  // A message's own text (its fallback language's when it has none), then filled by i18next's
  // interpolator with the instance's settings: the one step of i18next's t() that depends on
  // the values, so the text can be remembered.
  const template = remember((key) => messages.t(key, { skipInterpolation: true }));
  return {
    locale,
    requested,
    t: (key, vars = {}) => {
      const count = typeof vars.count === "number" ? vars.count : undefined;
      const filled = count === undefined ? vars : { ...vars, count: numbers.format(count) };
      const text = template(pluralKey(key, count));
      return typeof text === "string" ? messages.services.interpolator.interpolate(text, filled, locale, {}) : key;
    },
    exists,
    polaris: catalogue.polaris,
  };
}

/** The tag numbers are written in: the merchant's own, when Intl knows it. */
function numberLocale(requested: string): string {
  try {
    return Intl.NumberFormat.supportedLocalesOf(requested)[0] ?? SOURCE_LOCALE;
  } catch {
    return SOURCE_LOCALE;
  }
}
