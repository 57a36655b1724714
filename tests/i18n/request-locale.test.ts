import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { activeLocale, localePath, polarisTranslations, t } from "../../app/i18n";
import { pickLocale } from "../../app/i18n/locales";
import { runInRequestLocale, SHIPPED_LOCALES, translatorFor } from "../../app/i18n/translators.server";

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

  it("ships the nine languages", () => {
    expect(SHIPPED_LOCALES).toEqual(["de", "en", "es", "fr", "it", "ja", "nl", "pt-BR", "zh-CN"]);
  });
});

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

  it("is English outside any request (the worker, scripts)", () => {
    expect(t("nav.settings")).toBe("Settings");
  });
});
