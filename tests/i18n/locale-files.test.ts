import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Every language the app ships says everything English says: each key of en.json, no key
// English lacks, the same {placeholders} in each string, and exactly the plural forms its own
// language has (Intl.PluralRules: "one"/"other" in German, "one"/"many"/"other" in French, only
// "other" in Japanese). A key English has and a language has not yet is named in
// untranslated.json until it is translated; the list only shrinks (a key translated but still
// listed fails too), so a new English string is seen as untranslated, never forgotten.

const LOCALES = path.resolve(import.meta.dirname, "../../app/i18n/locales");
const UNTRANSLATED: Record<string, string[]> = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "untranslated.json"), "utf8"),
);

type Messages = { [key: string]: string | Messages };
const PLURAL_FORMS = new Set(["zero", "one", "two", "few", "many", "other"]);

function read(locale: string): Messages {
  return JSON.parse(readFileSync(path.join(LOCALES, `${locale}.json`), "utf8")) as Messages;
}

function isPlural(node: string | Messages): node is Messages {
  return typeof node === "object" && "other" in node && Object.keys(node).every((key) => PLURAL_FORMS.has(key));
}

/** Each message by its dotted key: a string, or a plural object kept whole. */
function flatten(messages: Messages, prefix = ""): Map<string, string | Messages> {
  const out = new Map<string, string | Messages>();
  for (const [key, value] of Object.entries(messages)) {
    const dotted = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string" || isPlural(value)) out.set(dotted, value);
    else for (const [inner, leaf] of flatten(value, dotted)) out.set(inner, leaf);
  }
  return out;
}

function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!))].sort();
}

/** A plural object's placeholders: all its forms' together ("one" may say "1" for {count}). */
function pluralPlaceholders(node: Messages): string[] {
  return [...new Set(Object.values(node).flatMap((form) => placeholders(String(form))))].sort();
}

/** What is wrong with one language against English, one line per key. */
export function localeProblems(locale: string, english: Messages, translated: Messages): string[] {
  const source = flatten(english);
  const target = flatten(translated);
  const categories = [...new Intl.PluralRules(locale).resolvedOptions().pluralCategories].sort();
  const problems: string[] = [];
  for (const key of target.keys()) if (!source.has(key)) problems.push(`${key}: not in English`);
  for (const [key, value] of source) {
    const theirs = target.get(key);
    if (theirs === undefined) continue;
    if (typeof value === "string") {
      if (typeof theirs !== "string") problems.push(`${key}: a string in English`);
      else if (placeholders(theirs).join() !== placeholders(value).join())
        problems.push(`${key}: placeholders ${placeholders(theirs).join(",")} for ${placeholders(value).join(",")}`);
      continue;
    }
    if (typeof theirs !== "object" || !isPlural(theirs)) {
      problems.push(`${key}: plural forms in English`);
      continue;
    }
    const forms = Object.keys(theirs).sort();
    if (forms.join() !== categories.join())
      problems.push(`${key}: forms ${forms.join(",")}, ${locale} has ${categories.join(",")}`);
    const expected = pluralPlaceholders(value).filter((name) => name !== "count");
    const found = pluralPlaceholders(theirs).filter((name) => name !== "count");
    if (found.join() !== expected.join())
      problems.push(`${key}: placeholders ${found.join(",")} for ${expected.join(",")}`);
    for (const [form, text] of Object.entries(theirs))
      if (typeof text !== "string" || text.trim() === "") problems.push(`${key}.${form}: empty`);
  }
  return problems;
}

/** English's keys the language does not have. */
function missingKeys(english: Messages, translated: Messages): string[] {
  const target = flatten(translated);
  return [...flatten(english).keys()].filter((key) => !target.has(key)).sort();
}

const english = read("en");
const shipped = readdirSync(LOCALES)
  .filter((file) => file.endsWith(".json") && file !== "en.json")
  .map((file) => file.replace(/\.json$/, ""))
  .sort();

describe("the shipped languages", () => {
  it("are the nine of issue 59, English among them", () => {
    expect(["en", ...shipped].sort()).toEqual(["de", "en", "es", "fr", "it", "ja", "nl", "pt-BR", "zh-CN"]);
  });

  it.each(shipped)("%s has English's keys, placeholders and its own plural forms", (locale) => {
    expect(localeProblems(locale, english, read(locale))).toEqual([]);
  });

  it.each(shipped)("%s lacks only the keys untranslated.json names", (locale) => {
    expect(missingKeys(english, read(locale))).toEqual((UNTRANSLATED[locale] ?? []).slice().sort());
  });

  it("English's own plural objects have English's forms", () => {
    const forms = [...flatten(english).values()].filter((value) => typeof value === "object");
    for (const value of forms) expect(Object.keys(value).sort()).toEqual(["one", "other"]);
  });
});

describe("the check itself", () => {
  const en: Messages = { a: "Hi {name}", n: { one: "{count} order", other: "{count} orders" } };

  it("finds a lost placeholder, a wrong plural form and a key English lacks", () => {
    expect(localeProblems("ja", en, { a: "こんにちは", n: { one: "x", other: "{count}件" }, extra: "x" })).toEqual([
      "extra: not in English",
      "a: placeholders  for name",
      "n: forms one,other, ja has other",
    ]);
  });

  it("accepts French's three forms and a 'one' form that writes the number out", () => {
    expect(
      localeProblems("fr", en, {
        a: "Salut {name}",
        n: { one: "une commande", many: "{count} de commandes", other: "{count} commandes" },
      }),
    ).toEqual([]);
  });
});

describe("the theme app embed's settings labels", () => {
  const dir = path.resolve(import.meta.dirname, "../../extensions/click-capture/locales");
  const schema = (file: string) => JSON.parse(readFileSync(path.join(dir, file), "utf8")) as Messages;
  const source = schema("en.default.schema.json");
  const files = readdirSync(dir).filter((file) => file.endsWith(".schema.json") && !file.startsWith("en."));

  it("come in the app's languages", () => {
    expect(files.map((file) => file.replace(".schema.json", "")).sort()).toEqual(shipped);
  });

  it.each(files)("%s has English's labels", (file) => {
    expect(localeProblems(file.replace(".schema.json", ""), source, schema(file))).toEqual([]);
    expect(missingKeys(source, schema(file))).toEqual([]);
  });
});
