import ShopifyFormat from "@shopify/i18next-shopify";
import type { AppProviderProps } from "@shopify/polaris";
import i18next, { type i18n } from "i18next";
import { PSEUDO_LOCALE, SOURCE_LOCALE } from "./locales";

// One language's messages behind i18next, with Shopify's own translation format
// (@shopify/i18next-shopify): {placeholders} in single braces and plural forms as nested objects
// ("one", "other", and whatever else the language's Intl.PluralRules names), exactly the shape of
// the locale files. Built once per language on the server and once in the browser.

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
  created.use(ShopifyFormat);
  void created.init({
    lng: locale,
    fallbackLng: catalogue.source ? SOURCE_LOCALE : false,
    resources,
    // Resources are in hand: init finishes before it returns, and t() works at once.
    initAsync: false,
    nsSeparator: false,
    // React escapes what it renders; the CSV and log text want the raw value.
    interpolation: { escapeValue: false },
    returnEmptyString: false,
  });
  return created;
}

export function createTranslator(locale: string, requested: string, catalogue: Catalogue): Translator {
  const messages = instance(locale, catalogue);
  // The plugin picks a plural form and writes {count} with an Intl.NumberFormat it builds on
  // every call (about 50 µs, a dashboard's worth of counts is milliseconds); both are built
  // once here instead, and the plugin is handed the form's own key and the written count.
  const plurals = new Intl.PluralRules(locale === PSEUDO_LOCALE ? SOURCE_LOCALE : locale);
  const numbers = new Intl.NumberFormat(numberLocale(requested));
  const pluralKey = (key: string, count: number | undefined): string => {
    if (!messages.exists(`${key}.other`)) return key;
    const form = count === undefined ? "other" : plurals.select(count);
    return messages.exists(`${key}.${form}`) ? `${key}.${form}` : `${key}.other`;
  };
  return {
    locale,
    requested,
    t: (key, vars = {}) => {
      const count = typeof vars.count === "number" ? vars.count : undefined;
      const filled = count === undefined ? vars : { ...vars, count: numbers.format(count) };
      const value = messages.t(pluralKey(key, count), filled);
      return typeof value === "string" ? value : key;
    },
    exists: (key) => messages.exists(key),
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
