import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  APP_PROXY_PREFIX,
  APP_PROXY_SUBPATH,
  CART_ATTRIBUTES,
  CLICK_ID_PARAM,
  DEFAULT_TAG_PARAMS,
  STOREFRONT_CONFIG_METAFIELD,
} from "../../app/attribution/cart-attributes";
import { CLICK_CAPTURE_GZIP_BUDGET } from "../../scripts/build-extension";
import { ASSET_FILE, BLOCK_FILE, EXTENSION_DIR, renderClickCaptureBlock } from "../../sandbox/storefront/server";

// Shopify's rules for theme app extensions, checked on extensions/click-capture before
// `shopify app deploy` would reject it (or a merchant's storefront would pay for it).
// Sources (docs/storefront.md lists them with the numbers): the Shopify CLI's theme extension
// validation (folders, file types, 10 MB total, liquid total), shopify.dev's theme app
// extension configuration page (blocks per extension, liquid size, locale size, schema) and
// Theme Check's AppBlockValidTags / AssetSizeAppBlockJavascript checks.

const KB = 1024;
const MB = 1024 * KB;

export const LIMITS = {
  /** Total size of all uploaded files (Shopify CLI rejects more). */
  totalBytes: 10 * MB,
  /** All liquid in blocks/ and snippets/: shopify.dev says 100 KB; the CLI enforces 500 KB. We hold the stricter. */
  liquidBytes: 100 * KB,
  /** App blocks + app embed blocks in one theme app extension. */
  blocks: 30,
  /** Each locale file. */
  localeBytes: 15 * KB,
  /** Theme Check AssetSizeAppBlockJavascript: suggested compressed size of each script. */
  javascriptGzipBytes: 10_000,
  /** Theme Check AssetSizeAppBlockCSS: suggested compressed size of each stylesheet. */
  cssGzipBytes: 100_000,
  /** Theme Check ValidSchemaName: block names. */
  schemaName: 25,
  /** Our own budget for the click-capture script, gzipped. */
  clickCaptureGzipBytes: CLICK_CAPTURE_GZIP_BUDGET,
} as const;

const ALLOWED: Record<string, RegExp> = {
  assets: /\.(jpg|jpeg|json|js|css|png|svg|wasm)$/,
  blocks: /\.liquid$/,
  snippets: /\.liquid$/,
  locales: /\.json$/,
};

/** What the Shopify CLI never uploads from a theme extension, plus .shopifyignore's patterns. */
const CLI_IGNORED = [
  ".git",
  ".gitkeep",
  ".DS_Store",
  "Thumbs.db",
  "desktop.ini",
  "config.yml",
  "node_modules",
  ".shopifyignore",
  "*.toml",
];

const globToRegExp = (pattern: string) =>
  new RegExp(
    `^${pattern
      .split("**")
      .map((part) =>
        part
          .replace(/[.+^${}()|[\]\\]/g, "\\$&")
          .replace(/\*/g, "[^/]*")
          .replace(/\?/g, "[^/]"),
      )
      .join(".*")}$`,
  );

function walk(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full, base) : [path.relative(base, full).split(path.sep).join("/")];
  });
}

const files = walk(EXTENSION_DIR);
const shopifyIgnore = readFileSync(path.join(EXTENSION_DIR, ".shopifyignore"), "utf8")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith("#"));
const ignored = (file: string) =>
  shopifyIgnore.some((pattern) => globToRegExp(pattern).test(file)) ||
  CLI_IGNORED.some((pattern) => globToRegExp(`*/${pattern}`).test(file));
/** The CLI uploads files exactly one folder deep (glob "*\/*") that are not ignored. */
const uploaded = files.filter((file) => file.split("/").length === 2 && !ignored(file));
const read = (file: string) => readFileSync(path.join(EXTENSION_DIR, file));
const size = (file: string) => statSync(path.join(EXTENSION_DIR, file)).size;

function parseToml(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.replace(/#.*$/, "").trim();
    if (!line) continue;
    const match = /^([A-Za-z0-9_-]+)\s*=\s*"([^"]*)"$/.exec(line);
    if (!match) throw new Error(`unsupported toml line: ${raw}`);
    out[match[1]!] = match[2]!;
  }
  return out;
}

const UNESCAPE: Record<string, string> = { quot: '"', "#39": "'", lt: "<", gt: ">", amp: "&" };

/**
 * A schema string as the theme editor shows it: a "t:" key is looked up in the default locale's
 * schema translations (locales/en.default.schema.json), the one Theme Check's
 * ValidSchemaTranslations holds every key to; anything else is shown as written.
 */
function shownAs(text: string): string {
  if (!text.startsWith("t:")) return text;
  let entry: unknown = JSON.parse(read("locales/en.default.schema.json").toString("utf8"));
  for (const part of text.slice(2).split(".")) entry = (entry as Record<string, unknown> | undefined)?.[part];
  expect(typeof entry, `${text} in locales/en.default.schema.json`).toBe("string");
  return entry as string;
}

function schemaOf(liquid: string): Record<string, unknown> {
  const schemas = [...liquid.matchAll(/\{%-?\s*schema\s*-?%\}([\s\S]*?)\{%-?\s*endschema\s*-?%\}/g)];
  expect(schemas, "exactly one {% schema %}").toHaveLength(1);
  return JSON.parse(schemas[0]![1]!) as Record<string, unknown>;
}

describe("extensions/click-capture follows Shopify's theme app extension rules", () => {
  it("has only the allowed folders and file types; everything else is kept out of the upload", () => {
    expect(files).toContain("shopify.extension.toml");
    for (const file of files) {
      const [top] = file.split("/");
      if (uploaded.includes(file)) {
        expect(Object.keys(ALLOWED), file).toContain(top);
        expect(file, `file type not allowed in ${top}/`).toMatch(ALLOWED[top!]!);
      } else {
        // Not uploaded: the root config files, or what .shopifyignore excludes (the script source).
        const allowedOutside = file === "shopify.extension.toml" || file === ".shopifyignore" || ignored(file);
        expect(allowedOutside, `${file} would be silently left out of the upload`).toBe(true);
      }
    }
    // The settings' words in English, and in every other language the admin ships (app/i18n/locales).
    const adminLanguages = readdirSync(path.join(process.cwd(), "app/i18n/locales"))
      .map((file) => file.replace(/\.json$/, ""))
      .filter((locale) => locale !== "en");
    expect(adminLanguages.length).toBeGreaterThan(0);
    expect(uploaded.sort()).toEqual(
      [
        "assets/click-capture.js",
        "blocks/click-capture.liquid",
        "locales/en.default.schema.json",
        ...adminLanguages.map((locale) => `locales/${locale}.schema.json`),
      ].sort(),
    );
    expect(files).toContain("src/click-capture.ts");
    expect(ignored("src/click-capture.ts")).toBe(true);
  });

  it("has a valid shopify.extension.toml", () => {
    const toml = parseToml(read("shopify.extension.toml").toString("utf8"));
    expect(toml.type).toBe("theme");
    expect(toml.name?.length).toBeGreaterThan(0);
    expect(toml.name!.length).toBeLessThanOrEqual(30);
    expect(toml.handle).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(toml.handle!.length).toBeLessThanOrEqual(30);
  });

  it("stays within the size and count limits", () => {
    const total = uploaded.reduce((sum, file) => sum + size(file), 0);
    expect(total).toBeLessThanOrEqual(LIMITS.totalBytes);
    const liquid = uploaded
      .filter((file) => /^(blocks|snippets)\//.test(file))
      .reduce((sum, file) => sum + size(file), 0);
    expect(liquid).toBeLessThanOrEqual(LIMITS.liquidBytes);
    expect(uploaded.filter((file) => file.startsWith("blocks/")).length).toBeLessThanOrEqual(LIMITS.blocks);
    for (const file of uploaded.filter((f) => f.startsWith("locales/")))
      expect(size(file), file).toBeLessThanOrEqual(LIMITS.localeBytes);
    for (const file of uploaded.filter((f) => f.endsWith(".js"))) {
      expect(gzipSync(read(file)).length, file).toBeLessThanOrEqual(LIMITS.javascriptGzipBytes);
    }
    for (const file of uploaded.filter((f) => f.endsWith(".css"))) {
      expect(gzipSync(read(file)).length, file).toBeLessThanOrEqual(LIMITS.cssGzipBytes);
    }
  });

  it("keeps the click-capture script within its 2,000-byte gzipped budget", () => {
    const asset = readFileSync(ASSET_FILE);
    expect(gzipSync(asset).length).toBeLessThanOrEqual(LIMITS.clickCaptureGzipBytes);
    expect(gzipSync(asset, { level: 9 }).length).toBeLessThanOrEqual(LIMITS.clickCaptureGzipBytes);
  });

  it("declares every block with a valid schema; the click-capture block is an app embed on body", () => {
    for (const file of uploaded.filter((f) => f.startsWith("blocks/"))) {
      const schema = schemaOf(read(file).toString("utf8"));
      const allowedKeys = [
        "name",
        "target",
        "javascript",
        "stylesheet",
        "settings",
        "available_if",
        "enabled_on",
        "disabled_on",
        "class",
        "tag",
        "default",
      ];
      for (const key of Object.keys(schema)) expect(allowedKeys, `${file}: schema key ${key}`).toContain(key);
      expect(typeof schema.name).toBe("string");
      expect(shownAs(schema.name as string).length).toBeLessThanOrEqual(LIMITS.schemaName);
      expect(["section", "head", "body", "compliance_head"]).toContain(schema.target);
      if (schema.settings !== undefined) {
        expect(Array.isArray(schema.settings)).toBe(true);
        for (const setting of schema.settings as Record<string, unknown>[]) {
          expect(typeof setting.type, `${file}: setting type`).toBe("string");
        }
      }
      for (const key of ["javascript", "stylesheet"] as const) {
        if (schema[key] !== undefined) expect(uploaded).toContain(`assets/${schema[key] as string}`);
      }
      expect(schema.enabled_on === undefined || schema.disabled_on === undefined).toBe(true);
    }
    const embed = schemaOf(readFileSync(BLOCK_FILE, "utf8"));
    expect(embed.target).toBe("body");
    // Its name reaches the theme editor through the default locale, as the one merchants look for
    // under App embeds (docs/storefront.md).
    expect(embed.name).toBe("t:blocks.click_capture.name");
    expect(shownAs(embed.name as string)).toBe("Tag Guard click capture");
  });

  it("uses no Liquid tag that theme app extensions forbid, and only assets that exist", () => {
    for (const file of uploaded.filter((f) => f.endsWith(".liquid"))) {
      const liquid = read(file).toString("utf8");
      expect(liquid, file).not.toMatch(/\{%-?\s*(javascript|stylesheet|include|layout|section|sections)\b/);
      expect(liquid, file).not.toMatch(/<Partial\b/);
      expect(liquid, file).not.toMatch(/content_for_(header|layout|index)/);
      for (const [, asset] of liquid.matchAll(/'([^']+)'\s*\|\s*asset_url/g))
        expect(uploaded).toContain(`assets/${asset}`);
    }
  });

  it("passes configuration to the script without inline JavaScript, from the app-owned metafield", () => {
    const liquid = readFileSync(BLOCK_FILE, "utf8");
    const { namespace, key } = STOREFRONT_CONFIG_METAFIELD;
    expect(liquid).toContain(`app.metafields.${namespace}.${key}.value.tagParams`);
    // The liquid fallback is the same default the script has.
    expect(liquid).toContain(`'${JSON.stringify(DEFAULT_TAG_PARAMS)}'`);

    for (const [storefrontConfig, tagParams] of [
      [undefined, DEFAULT_TAG_PARAMS],
      [{ tagParams: [] }, DEFAULT_TAG_PARAMS],
      [{ tagParams: ["ref", "tag"] }, ["ref", "tag"]],
      [{ tagParams: ['"><script>x</script>'] }, ['"><script>x</script>']],
    ] as const) {
      const html = renderClickCaptureBlock(liquid, {
        assetUrl: "https://cdn.example/click-capture.js",
        storefrontConfig,
      });
      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts).toHaveLength(1);
      const [, attributes, body] = scripts[0]!;
      expect(body).toBe(""); // no inline logic
      expect(attributes).toMatch(/\sdefer(\s|$)/);
      expect(attributes).toContain('src="https://cdn.example/click-capture.js"');
      const configured = /data-tag-params="([^"]*)"/.exec(attributes!)?.[1] ?? "";
      expect(configured).not.toMatch(/[<>"']/); // escaped
      // What the script reads: the attribute's value, HTML-unescaped, is the JSON of the names.
      const unescaped = configured.replace(/&(quot|#39|lt|gt|amp);/g, (_, entity: string) => UNESCAPE[entity]!);
      expect(JSON.parse(unescaped)).toEqual(tagParams);
      expect(html.replace(/<script\b[^>]*><\/script>/, "").trim()).toBe(""); // renders nothing else
    }
  });

  it("passes the merchant's theme-editor choice on arrivals without consent: on unless turned off", () => {
    const liquid = readFileSync(BLOCK_FILE, "utf8");
    const arrivals = (blockSettings?: Record<string, unknown>) =>
      /data-arrivals="([^"]*)"/.exec(renderClickCaptureBlock(liquid, { assetUrl: "/a.js", blockSettings }))?.[1];
    expect(arrivals()).toBe("true");
    expect(arrivals({ arrivals_without_consent: false })).toBe("false");
    // Every setting the block declares has its label and help in the extension's own locales.
    const locale = JSON.parse(readFileSync(path.join(EXTENSION_DIR, "locales/en.default.schema.json"), "utf8"));
    expect(locale.blocks.click_capture.settings.arrivals_without_consent).toEqual({
      label: expect.any(String),
      info: expect.any(String),
    });
  });

  it("contains no secrets, keys or calls to outside services", () => {
    const patterns = [
      /shp(at|ss|ca|pa|ua)_[0-9a-f]{8,}/i,
      /\bsk_(live|test)_/,
      /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
      /\bAKIA[0-9A-Z]{16}\b/,
      /\b(api[_-]?key|api[_-]?secret|client[_-]?secret|password|access[_-]?token)\b\s*[:=]/i,
    ];
    for (const file of files) {
      const text = read(file).toString("utf8");
      for (const pattern of patterns) expect(text, `${file} matches ${pattern}`).not.toMatch(pattern);
    }
    const asset = readFileSync(ASSET_FILE, "utf8");
    expect(asset).not.toMatch(/https?:|\/\/[a-z0-9-]+\./i);
    expect(asset).not.toMatch(/\b(eval|Function|XMLHttpRequest|sendBeacon|WebSocket|importScripts|import)\s*\(/);
    expect(asset).not.toMatch(
      /innerHTML|outerHTML|insertAdjacentHTML|document\.write|appendChild|append\(|createElement/,
    );
    expect(asset).not.toMatch(/\brequire\(|^import\s/m);
  });

  it("is built from the shared attribute definitions", () => {
    const asset = readFileSync(ASSET_FILE, "utf8");
    for (const name of [...Object.values(CART_ATTRIBUTES), CLICK_ID_PARAM, APP_PROXY_PREFIX, APP_PROXY_SUBPATH])
      expect(asset).toContain(`"${name}"`);
    expect(readFileSync(path.join(EXTENSION_DIR, "src/click-capture.ts"), "utf8")).toContain(
      'from "../../../app/attribution/cart-attributes"',
    );
  });
});
