import { SOURCE_LOCALE } from "./locales";
import type { PolarisTranslations, Translator } from "./translator";

// Every merchant-facing string lives in app/i18n/locales/<locale>.json; t() looks one up by its
// dotted key in the merchant's language and fills {placeholders}. A missing key shows the key
// itself, so a gap is visible, never blank. A string that depends on {count} is an object of
// plural forms chosen by the language's own rules.
//
// Which language is the request's: on the server, the translator the request runs under
// (translators.server.ts, from Shopify admin's `locale`); in the browser, the one its page was
// served in (client.ts). Either registers itself here, so that the same t() serves components,
// loaders and the CSV without each passing a language along.

let current: () => Translator = () => untranslated;

/** Before any language is registered: keys as themselves (never reached by a served page). */
const untranslated: Translator = {
  locale: SOURCE_LOCALE,
  requested: SOURCE_LOCALE,
  t: (key) => key,
  exists: () => false,
  polaris: undefined,
};

/** Where the active translator comes from: the server's request or the browser's page. */
export function setTranslatorSource(source: () => Translator): void {
  current = source;
}

export function t(key: string, vars: Record<string, string | number> = {}): string {
  return current().t(key, vars);
}

/** True when the key exists (for outcome names and the like that come from data). */
export function hasMessage(key: string): boolean {
  return current().exists(key);
}

/** The message `prefix.value` when the catalogue has it, else the raw value: a step or result added later still shows. */
export function worded(prefix: string, value: string): string {
  return hasMessage(`${prefix}.${value}`) ? t(`${prefix}.${value}`) : value;
}

/** The app's language for this request or page ("de"), as <html lang> says it. */
export function activeLocale(): string {
  return current().locale;
}

/** The tag the merchant's admin asked for ("de-CH"), which numbers and dates follow. */
export function requestedLocale(): string {
  return current().requested;
}

/** Polaris's strings in the same language, for its AppProvider. */
export function polarisTranslations(): PolarisTranslations {
  return current().polaris;
}

/**
 * An app path that keeps the merchant's language: `?locale=` rides along on every link and form
 * the app builds, as Shopify admin's own query does not once the app navigates inside its frame.
 */
export function localePath(path: string): string {
  const requested = current().requested;
  if (requested === SOURCE_LOCALE) return path;
  const [base, hash] = path.split("#", 2);
  const url = new URL(base ?? "", "http://app.invalid");
  url.searchParams.set("locale", requested);
  return `${url.pathname}${url.search}${hash === undefined ? "" : `#${hash}`}`;
}
