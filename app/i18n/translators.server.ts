import { AsyncLocalStorage } from "node:async_hooks";
import polarisDe from "@shopify/polaris/locales/de.json";
import polarisEn from "@shopify/polaris/locales/en.json";
import polarisEs from "@shopify/polaris/locales/es.json";
import polarisFr from "@shopify/polaris/locales/fr.json";
import polarisIt from "@shopify/polaris/locales/it.json";
import polarisJa from "@shopify/polaris/locales/ja.json";
import polarisNl from "@shopify/polaris/locales/nl.json";
import polarisPtBr from "@shopify/polaris/locales/pt-BR.json";
import polarisZhCn from "@shopify/polaris/locales/zh-CN.json";
import { setTranslatorSource } from "./index";
import { localeOfFile, pickLocale, PSEUDO_LOCALE, SOURCE_LOCALE } from "./locales";
import { pseudoize } from "./pseudo";
import { createTranslator, type Messages, type PolarisTranslations, type Translator } from "./translator";

// The server's languages: every locale file, read once, and one translator per language the
// merchants ask for. Each request runs under its merchant's translator (server.mjs calls
// runInRequestLocale around Remix's handler), so t() in a loader, an action, the CSV or the page's
// render answers in the language of the request it serves. Outside a request (the worker, a
// script) it is English.

const APP_MESSAGES: Record<string, Messages> = Object.fromEntries(
  Object.entries(import.meta.glob<Messages>("./locales/*.json", { eager: true, import: "default" })).map(
    ([file, messages]) => [localeOfFile(file), messages],
  ),
);

/** Polaris ships more languages than the app; the app's own languages decide which are used. */
const POLARIS: Record<string, PolarisTranslations> = {
  de: polarisDe,
  es: polarisEs,
  fr: polarisFr,
  it: polarisIt,
  ja: polarisJa,
  nl: polarisNl,
  "pt-BR": polarisPtBr,
  "zh-CN": polarisZhCn,
};

/** The languages the app ships: one locale file each. */
export const SHIPPED_LOCALES: readonly string[] = Object.keys(APP_MESSAGES).sort();

/** Whether the pseudo-locale may be served: in development and tests, never in production. */
export function pseudoLocaleAllowed(): boolean {
  return process.env.NODE_ENV !== "production";
}

function catalogue(locale: string) {
  const source = APP_MESSAGES[SOURCE_LOCALE]!;
  if (locale === PSEUDO_LOCALE) return { app: pseudoize(source), polaris: pseudoize(polarisEn) };
  return {
    app: APP_MESSAGES[locale] ?? source,
    source: locale === SOURCE_LOCALE ? undefined : source,
    polaris: locale === SOURCE_LOCALE ? undefined : (POLARIS[locale] ?? polarisEn),
  };
}

const translators = new Map<string, Translator>();

/** The translator for a tag the merchant's admin sent (or none: English). */
export function translatorFor(requested: string | null | undefined): Translator {
  const tag = requested?.trim() || SOURCE_LOCALE;
  const cached = translators.get(tag);
  if (cached) return cached;
  const locale =
    tag.toLowerCase() === PSEUDO_LOCALE.toLowerCase() && pseudoLocaleAllowed()
      ? PSEUDO_LOCALE
      : pickLocale(tag, SHIPPED_LOCALES);
  const translator = createTranslator(locale, locale === PSEUDO_LOCALE ? PSEUDO_LOCALE : tag, catalogue(locale));
  // Tags come from requests: a few dozen real ones; the cap only guards against odd input.
  if (translators.size > 200) translators.clear();
  translators.set(tag, translator);
  return translator;
}

const requestTranslator = new AsyncLocalStorage<Translator>();
const english = () => translatorFor(SOURCE_LOCALE);

setTranslatorSource(() => requestTranslator.getStore() ?? english());

/** Runs a request's handling under the language its `?locale=` asks for. */
export function runInRequestLocale<T>(url: string, handle: () => T): T {
  const query = url.indexOf("?");
  const tag = query === -1 ? null : new URLSearchParams(url.slice(query + 1)).get("locale");
  return requestTranslator.run(translatorFor(tag && tag.length <= 35 ? tag : null), handle);
}
