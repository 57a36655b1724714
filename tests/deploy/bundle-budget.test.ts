import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { clientMessages, stringsIn } from "../../app/i18n/client-messages";
import type { Messages } from "../../app/i18n/translator";
import { PAGES, pageBundles } from "../../scripts/bundle-size";

// Issue 59's budget on the production build this project makes first: translating the admin adds
// at most 15 KB of gzipped JavaScript to any page (decision 053), against each page's figure
// before the admin was translated (bundle-before.json says where those come from). And the
// browser's English chunk, cut at build time to the keys the client code names, holds every key
// the built client code does name: a key the cut dropped would show as its own name on a page.

const ROOT = path.resolve(import.meta.dirname, "../..");
const CLIENT = path.join(ROOT, "build/client");
const BUDGET = 15 * 1024;

const BEFORE = JSON.parse(readFileSync(path.join(import.meta.dirname, "bundle-before.json"), "utf8")) as {
  pages: Record<string, number>;
};

type Manifest = Record<string, { file: string; src?: string }>;
const manifest = JSON.parse(readFileSync(path.join(ROOT, "build/.vite/client-manifest.json"), "utf8")) as Manifest;
const LOCALE_FILE = /app\/i18n\/locales\/[^/]+\.json$|\/@shopify\/polaris\/locales\//;

describe("the admin's JavaScript per page", () => {
  const pages = pageBundles(CLIENT);

  it("has a before figure for every page, and finds every page in the build", () => {
    expect(pages.map((page) => page.page).sort()).toEqual(Object.keys(PAGES).sort());
    expect(Object.keys(BEFORE.pages).sort()).toEqual(Object.keys(PAGES).sort());
  });

  it.each(Object.keys(PAGES))("%s grows by at most 15 KB gzipped, its English strings included", (name) => {
    const page = pages.find((bundle) => bundle.page === name)!;
    const growth = page.staticBytes + page.englishBytes - BEFORE.pages[name]!;
    expect(growth, `${name}: ${(growth / 1024).toFixed(1)} KB more than before`).toBeLessThanOrEqual(BUDGET);
  });
});

describe("the browser's English chunk", () => {
  it("holds every key the built client code names", async () => {
    const english = JSON.parse(readFileSync(path.join(ROOT, "app/i18n/locales/en.json"), "utf8")) as Messages;
    const chunk = manifest["app/i18n/locales/en.json"];
    expect(chunk, "the build has no chunk for English").toBeDefined();
    const shipped = ((await import(pathToFileURL(path.join(CLIENT, chunk!.file)).href)) as { default: Messages })
      .default;
    // Every string in the built code that is not a language's own, as minified and shipped.
    const named = new Set<string>();
    const files = new Set(
      Object.values(manifest)
        .filter((entry) => !LOCALE_FILE.test(entry.src ?? ""))
        .map((entry) => entry.file),
    );
    for (const file of files)
      if (file.endsWith(".js"))
        for (const text of stringsIn(readFileSync(path.join(CLIENT, file), "utf8"))) named.add(text);
    // A word without a dot ("order", "state") is as often a library's own string (an HTML tag, a
    // prop) as a key's parent, and would demand a whole tree the app never asks for: the keys
    // counted here are those a dotted string names, whole or as a template's head (every message
    // is under a top-level parent, so every message's key has a dot). A dotless parent
    // (worded("state", …)) is the pseudo-locale browser test's to catch.
    const dotted = new Set([...named].filter((text) => text.includes(".")));
    const wanted = new Set(flatten(clientMessages(english, dotted)).keys());
    const have = new Set(flatten(shipped).keys());
    expect(wanted.size).toBeGreaterThan(100);
    expect([...wanted].filter((key) => !have.has(key))).toEqual([]);
  });
});

/** Each message by its dotted key, a plural object's forms each on its own. */
function flatten(messages: Messages, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of Object.entries(messages)) {
    const key = prefix ? `${prefix}.${name}` : name;
    if (typeof value === "string") out.set(key, value);
    else for (const [inner, text] of flatten(value, key)) out.set(inner, text);
  }
  return out;
}
