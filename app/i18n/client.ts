import { setTranslatorSource } from "./index";
import { localeOfFile, PSEUDO_LOCALE, SOURCE_LOCALE } from "./locales";
import { createTranslator, type Messages, type PolarisTranslations, type Translator } from "./translator";

// The browser's language: the one the server rendered the page in (<html lang>, with the
// merchant's own tag in data-locale), loaded before hydration from a chunk of its own, so a page
// carries one language's strings (and English's, for a key a language lacks), never all of them.
// English needs no Polaris chunk: Polaris has its English built in.

type Load<T> = () => Promise<{ default: T }>;

const APP: Record<string, Load<Messages>> = Object.fromEntries(
  Object.entries(import.meta.glob<{ default: Messages }>("./locales/*.json")).map(([file, load]) => [
    localeOfFile(file),
    load,
  ]),
);

const POLARIS: Record<string, Load<PolarisTranslations>> = {
  de: () => import("@shopify/polaris/locales/de.json"),
  en: () => import("@shopify/polaris/locales/en.json"),
  es: () => import("@shopify/polaris/locales/es.json"),
  fr: () => import("@shopify/polaris/locales/fr.json"),
  it: () => import("@shopify/polaris/locales/it.json"),
  ja: () => import("@shopify/polaris/locales/ja.json"),
  nl: () => import("@shopify/polaris/locales/nl.json"),
  "pt-BR": () => import("@shopify/polaris/locales/pt-BR.json"),
  "zh-CN": () => import("@shopify/polaris/locales/zh-CN.json"),
};

async function load(locale: string) {
  const source = (await APP[SOURCE_LOCALE]!()).default;
  const polarisEn = POLARIS[SOURCE_LOCALE]!;
  if (locale === PSEUDO_LOCALE) {
    // Only the pseudo-locale's pages (development and tests) load its code: a merchant's never do.
    const [{ pseudoize }, polaris] = await Promise.all([import("./pseudo"), polarisEn()]);
    return { app: pseudoize(source), polaris: pseudoize(polaris.default) };
  }
  if (locale === SOURCE_LOCALE || !APP[locale]) return { app: source, polaris: undefined };
  const [app, polaris] = await Promise.all([APP[locale]!(), (POLARIS[locale] ?? polarisEn)()]);
  return { app: app.default, source, polaris: polaris.default };
}

/** Loads the page's language and makes it t()'s, before the page hydrates. */
export async function startClientLocale(root: HTMLElement): Promise<void> {
  const locale = root.lang || SOURCE_LOCALE;
  const translator: Translator = createTranslator(locale, root.dataset.locale || locale, await load(locale));
  setTranslatorSource(() => translator);
}
