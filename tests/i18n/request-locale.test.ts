import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { activeLocale, localePath, polarisTranslations, t } from "../../app/i18n";
import { localeOfFile, pickLocale } from "../../app/i18n/locales";
import {
  localeOfAcceptLanguage,
  runInRequestLocale,
  SHIPPED_LOCALES,
  translatorFor,
} from "../../app/i18n/translators.server";

// The merchant's language is the one Shopify admin passes as ?locale=, chosen per request and
// never another request's, by the fallback chain tag, language, English.

describe("the fallback chain", () => {
  const shipped = ["de", "en", "ja", "pt-BR", "zh-CN"];
  it.each([
    ["de", "de"],
    ["de-CH", "de"],
    ["pt-BR", "pt-BR"],
    ["PT-br", "pt-BR"],
    ["pt_BR", "pt-BR"],
    ["pt-PT", "en"],
    ["pt", "en"],
    ["zh-CN", "zh-CN"],
    ["zh-TW", "en"],
    ["ko", "en"],
    ["", "en"],
    [null, "en"],
  ])("%s reads in %s", (requested, locale) => {
    expect(pickLocale(requested, shipped)).toBe(locale);
  });

  it("ships the nine languages, each file in locales/", () => {
    expect(SHIPPED_LOCALES).toEqual(["de", "en", "es", "fr", "it", "ja", "nl", "pt-BR", "zh-CN"]);
    const files = readdirSync(path.resolve(import.meta.dirname, "../../app/i18n/locales"));
    expect(files.map((file) => localeOfFile(file)).sort()).toEqual(SHIPPED_LOCALES);
  });
});

describe("the browser's language, for a page Shopify admin does not open (the login page)", () => {
  it.each([
    ["de-DE,de;q=0.9,en;q=0.8", "de-DE"],
    // The first language the app ships, by the browser's weights, not its order alone.
    ["ko-KR,ko;q=0.9,fr;q=0.8,en;q=0.7", "fr"],
    ["en;q=0.5,ja;q=0.9", "ja"],
    ["en-GB,de;q=0.5", "en-GB"],
    ["de;q=0,nl", "nl"],
    ["ko", null],
    ["*", null],
    ["", null],
    [undefined, null],
  ])("%s reads as %s", (header, tag) => {
    expect(localeOfAcceptLanguage(header)).toBe(tag);
  });

  it("gives way to ?locale= when the request has one", () => {
    runInRequestLocale("/auth/login?locale=fr", () => expect(activeLocale()).toBe("fr"), "de-DE,de");
    runInRequestLocale(
      "/auth/login",
      () => {
        expect(activeLocale()).toBe("de");
        expect(t("login.missingShop")).toBe("Gib deine Shop-Domain ein, um dich anzumelden.");
      },
      "de-DE,de",
    );
  });
});

type Tree = { [key: string]: string | Tree };

/** Every message of the English file by its key; a plural object once, as its text in JSON. */
function englishMessages(): [string, string][] {
  const english = JSON.parse(
    readFileSync(path.resolve(import.meta.dirname, "../../app/i18n/locales/en.json"), "utf8"),
  ) as Tree;
  const messages = (tree: Tree, prefix = ""): [string, string][] =>
    Object.entries(tree).flatMap(([name, value]) => {
      const key = prefix ? `${prefix}.${name}` : name;
      if (typeof value === "string") return [[key, value]];
      // A plural object is asked for by its own key; the translator picks the form.
      if ("other" in value) return [[key, JSON.stringify(value)]];
      return messages(value, key);
    });
  return messages(english);
}

describe("a request's language", () => {
  it("is its ?locale=, for t(), <html lang>, links and Polaris", () => {
    runInRequestLocale("/app?embedded=1&locale=de&shop=a.myshopify.com", () => {
      expect(activeLocale()).toBe("de");
      expect(t("nav.dashboard")).toBe("Übersicht");
      expect(localePath("/app/settings")).toBe("/app/settings?locale=de");
      expect(localePath("/app/creators?creator=cr_a#top")).toBe("/app/creators?creator=cr_a&locale=de#top");
      expect(JSON.stringify(polarisTranslations())).toContain("Avatar mit Initialen");
    });
  });

  it("is English without ?locale=, and links then carry none", () => {
    runInRequestLocale("/app/settings", () => {
      expect(activeLocale()).toBe("en");
      expect(t("nav.dashboard")).toBe("Dashboard");
      expect(localePath("/app/settings")).toBe("/app/settings");
      // Polaris's English is built into its AppProvider.
      expect(polarisTranslations()).toBeUndefined();
    });
  });

  it("keeps the merchant's own tag for links and numbers while reading its language", () => {
    runInRequestLocale("/app?locale=de-CH", () => {
      expect(activeLocale()).toBe("de");
      expect(localePath("/app")).toBe("/app?locale=de-CH");
      expect(t("ledger.totalsRow", { total: "CHF 1", count: 1234 })).toBe("CHF 1 aus 1'234 Einträgen");
    });
  });

  it("stays its own while other requests in other languages run between its steps", async () => {
    const run = (locale: string) =>
      runInRequestLocale(`/app?locale=${locale}`, async () => {
        const seen: string[] = [];
        for (let step = 0; step < 5; step++) {
          await sleep(Math.random() * 5);
          seen.push(t("nav.settings"));
        }
        return seen;
      });
    const [de, ja, en] = await Promise.all([run("de"), run("ja"), run("en")]);
    expect(new Set(de)).toEqual(new Set(["Einstellungen"]));
    expect(new Set(ja)).toEqual(new Set(["設定"]));
    expect(new Set(en)).toEqual(new Set(["Settings"]));
  });

  it("uses each language's plural forms, and English for a key the language lacks", () => {
    expect(translatorFor("ja").t("ledger.totalsRow", { total: "¥1", count: 1 })).toBe("1件の記録で合計¥1");
    expect(translatorFor("fr").t("ledger.totalsRow", { total: "1 €", count: 1_000_000 })).toContain(
      "1\u202f000\u202f000",
    );
    expect(translatorFor("de").t("no.such.key")).toBe("no.such.key");
  });

  it("fills every {placeholder} of every message in every language, plural forms too", () => {
    // i18next reads the files' single braces through its interpolation's prefix and suffix; a
    // placeholder its delimiters missed would show as written. Each one gets a value naming it.
    const unfilled: string[] = [];
    for (const locale of SHIPPED_LOCALES) {
      const translator = translatorFor(locale);
      for (const [key, text] of englishMessages()) {
        const names = [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!))];
        if (names.length === 0) continue;
        const vars = Object.fromEntries(names.map((name) => [name, name === "count" ? 2 : `<${name}>`]));
        for (const count of names.includes("count") ? [1, 2, 1234] : [undefined]) {
          const said = translator.t(key, count === undefined ? vars : { ...vars, count });
          if (/\{\w+\}/.test(said) || said === key) unfilled.push(`${locale} ${key}: ${said}`);
        }
      }
    }
    expect(unfilled).toEqual([]);
  });

  it("answers a key the same the first time and every time after, past the memory's cap too", () => {
    // The translator keeps what i18next answered (decision 053); a fresh one per language is
    // asked every key cold, then again warm, then again after ten thousand made-up keys
    // (recorded values reach worded()) have filled and emptied its memory.
    const all = englishMessages().map(([key]) => key);
    for (const locale of ["de", "ja", "en"]) {
      const translator = translatorFor(`${locale}-x-cold`);
      const ask = () =>
        all.flatMap((key) => [
          translator.t(key),
          translator.t(key, { name: "N", count: 1 }),
          translator.t(key, { count: 21 }),
          String(translator.exists(key)),
        ]);
      const cold = ask();
      expect(ask()).toEqual(cold);
      for (let i = 0; i < 10_001; i++) expect(translator.exists(`outcome.recorded${i}`)).toBe(false);
      expect(ask()).toEqual(cold);
      expect(cold.filter((said, i) => i % 4 === 0 && said !== all[i / 4])).not.toEqual([]);
    }
  });

  it("keeps a placeholder nobody filled visible, as a missing key is", () => {
    expect(translatorFor("en").t("settings.testUnreachable")).toBe("Could not reach the service: {message}");
  });

  it("is English outside any request (the worker, scripts)", () => {
    expect(t("nav.settings")).toBe("Settings");
  });
});
