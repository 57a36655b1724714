import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The web pixel's settings labels (extensions/tag-guard-pixel/shopify.extension.toml) and
// Shopify's extension localization. Shopify documents `t:` keys in shopify.extension.toml with
// a locales/ folder (<lang>.default.json and <lang>.json) for the extension types whose deploy
// sends that folder: functions, checkout and customer account UI extensions, Flow templates. The
// Shopify CLI the project ships decides what a deploy sends for each type: for a web pixel it is
// the runtime context, customer privacy and the settings as written, and no localization. A `t:`
// key there would reach Shopify as the key itself, and a locales/ folder would be left behind.
// So the labels stay plain words, and this suite fails the day the CLI starts sending a web
// pixel's locales: then they become `t:` keys held in every language the admin ships, as the
// theme embed's are (tests/extension/layout.test.ts).

const ROOT = process.cwd();
const PIXEL_DIR = path.join(ROOT, "extensions/tag-guard-pixel");
const CLI_DIST = path.join(ROOT, "node_modules/@shopify/cli/dist");

/** The CLI's specification of one extension type: its source from its identifier to the next type's. */
function cliSpecification(identifier: string): string {
  const marker = `identifier:"${identifier}"`;
  for (const file of readdirSync(CLI_DIST).filter((name) => name.endsWith(".js"))) {
    const text = readFileSync(path.join(CLI_DIST, file), "utf8");
    const start = text.indexOf(marker);
    if (start === -1) continue;
    const next = text.indexOf("identifier:", start + marker.length);
    return text.slice(start, next === -1 ? undefined : next);
  }
  throw new Error(`the Shopify CLI has no extension type ${identifier}`);
}

/** Each settings field's name and description, as written in the pixel's TOML. */
function settingsLabels(): { field: string; name: string; description: string }[] {
  const toml = readFileSync(path.join(PIXEL_DIR, "shopify.extension.toml"), "utf8");
  return [...toml.matchAll(/^\[settings\.fields\.(\w+)\]\n((?:(?!\[).*\n?)*)/gm)].map(([, field, body]) => ({
    field: field!,
    name: /^name = "([^"]*)"$/m.exec(body!)?.[1] ?? "",
    description: /^description = "([^"]*)"$/m.exec(body!)?.[1] ?? "",
  }));
}

describe("the web pixel's settings labels", () => {
  it("are read from the CLI rightly: a type whose deploy sends its locales says localization", () => {
    // The probe below would pass on any text without the word; this shows it finds the word where it is.
    expect(cliSpecification("checkout_ui_extension")).toContain("localization");
  });

  it("have no translations the CLI would send: a web pixel's deploy carries no localization", () => {
    const spec = cliSpecification("web_pixel_extension");
    expect(spec).toContain("runtime_configuration_definition");
    expect(
      spec,
      "the Shopify CLI now sends a web pixel's locales: make the settings' name and description t: keys, " +
        "with locales/en.default.json and a locales/<lang>.json for every language in app/i18n/locales",
    ).not.toContain("localization");
  });

  it("are plain English words, no t: key Shopify would show as it is, and no locales/ the deploy would leave behind", () => {
    const labels = settingsLabels();
    expect(labels.map((label) => label.field)).toEqual(["tagParams"]);
    for (const { field, name, description } of labels) {
      expect(name, field).toMatch(/^[A-Z][\w ]+$/);
      expect(description, field).toMatch(/^[A-Z]/);
      expect(`${name} ${description}`, field).not.toMatch(/\bt:/);
    }
    expect(existsSync(path.join(PIXEL_DIR, "locales"))).toBe(false);
  });
});
