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
import { memoCache } from "../units/memo";
import { setTranslatorSource } from "./index";
import appDe from "./locales/de.json";
import appEn from "./locales/en.json";
import appEs from "./locales/es.json";
import appFr from "./locales/fr.json";
import appIt from "./locales/it.json";
import appJa from "./locales/ja.json";
import appNl from "./locales/nl.json";
import appPtBr from "./locales/pt-BR.json";
import appZhCn from "./locales/zh-CN.json";
import { pickLocale, PSEUDO_LOCALE, SOURCE_LOCALE } from "./locales";
import { pseudoize } from "./pseudo";
import {
  createTranslator,
  type Messages,
  type PolarisTranslations,
  type Remember,
  type Translator,
} from "./translator";

// The server's languages: every locale file, read once, and one translator per language the
// merchants ask for. Each request runs under its merchant's translator (server.mjs calls
// runInRequestLocale around Remix's handler), so t() in a loader, an action, the CSV or the page's
// render answers in the language of the request it serves. The worker's payout jobs run under
// the language the shop's admin was last opened in (shop-language.server.ts, decision 055);
// anything else outside a request (a script) is English.

// Imported one by one, not through Vite's import.meta.glob: the worker's thread and scripts load
// this module outside Vite too (a test checks that every file in locales/ is listed here).
const APP_MESSAGES: Record<string, Messages> = {
  de: appDe,
  en: appEn,
  es: appEs,
  fr: appFr,
  it: appIt,
  ja: appJa,
  nl: appNl,
  "pt-BR": appPtBr,
  "zh-CN": appZhCn,
};

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

/** Keys remembered per language and lookup: several times the catalogue's, so a page never starts over. */
const REMEMBERED_KEYS = 10_000;

/** A language's lookups answered once per key: its catalogue never changes once built. */
const remembered: Remember = <T>(answer: (key: string) => T) => {
  const memo = memoCache<T>(REMEMBERED_KEYS);
  return (key: string) => memo(key, () => answer(key));
};

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
  const translator = createTranslator(
    locale,
    locale === PSEUDO_LOCALE ? PSEUDO_LOCALE : tag,
    catalogue(locale),
    remembered,
  );
  // Tags come from requests: a few dozen real ones; the cap only guards against odd input.
  if (translators.size > 200) translators.clear();
  translators.set(tag, translator);
  return translator;
}

const requestTranslator = new AsyncLocalStorage<Translator>();
const english = () => translatorFor(SOURCE_LOCALE);

setTranslatorSource(() => requestTranslator.getStore() ?? english());

/** The `?locale=` a request's URL carries, when it is one a tag could be (BCP 47 is short). */
export function localeOfUrl(url: string): string | null {
  const query = url.indexOf("?");
  const tag = query === -1 ? null : new URLSearchParams(url.slice(query + 1)).get("locale");
  return tag && tag.trim() && tag.length <= 35 ? tag.trim() : null;
}

/**
 * The browser's first language the app ships, from its Accept-Language ("de-DE,de;q=0.9,en;q=0.8"
 * -> "de-DE"), or null when it names none. For pages Shopify admin does not open, which carry no
 * `?locale=`: the login page.
 */
export function localeOfAcceptLanguage(header: string | null | undefined): string | null {
  if (!header || header.length > 500) return null;
  const ranked = header
    .split(",")
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter(({ tag, q }) => /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(tag) && q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  const shipped = ranked.find(({ tag }) => pickLocale(tag, SHIPPED_LOCALES) !== SOURCE_LOCALE || /^en(-|$)/i.test(tag));
  return shipped?.tag ?? null;
}

/**
 * Runs a request's handling under the language its `?locale=` asks for (Shopify admin's, kept on
 * every link the app builds); without one, the browser's own (Accept-Language).
 */
export function runInRequestLocale<T>(url: string, handle: () => T, acceptLanguage?: string | null): T {
  return runInLocale(localeOfUrl(url) ?? localeOfAcceptLanguage(acceptLanguage), handle);
}

/** Runs work that no request carries (a worker's job) under a language the caller chose. */
export function runInLocale<T>(tag: string | null, handle: () => T): T {
  return requestTranslator.run(translatorFor(tag), handle);
}
