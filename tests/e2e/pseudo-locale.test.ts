import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { seedShopWithData, type SeededShop } from "../../sandbox/admin-pages/seed-shop";
import english from "../../app/i18n/locales/en.json";
import { PSEUDO_CLOSE, PSEUDO_OPEN } from "../../app/i18n/pseudo";
import { adminPageStates, openAdminPage } from "./admin-pages";
import { useEmbeddedAdmin } from "./embedded-suite";

// Every admin page in the pseudo-locale (en-XA: each translated string bracketed ⟦…⟧, Polaris's
// own strings too), with data and on a fresh shop: any visible text, or a label a screen reader
// reads (aria-label, placeholder, title, alt), outside the brackets is a string that bypassed
// translation, and fails the page.
//
// Data is not translated, and may stand outside the brackets only as data looks: a token with
// no letter (numbers, money, punctuation), a currency code, a word Intl writes into an English
// date ("Nov", "AM", "GMT"), or a token with a digit, an underscore, an @ or a dot inside it (an id
// such as cr_alice, an order #1002, a code LEAKED20, a tag alice-20, an email, a domain).
// An English word on its own is never data, nor is a message's key (a lookup that found
// nothing). A page that does not hydrate the text its server wrote fails too: the browser would
// then show other words than the server's (a string looked up at module load, say).

const SHOP = "e2e-pseudo.myshopify.com";
const FRESH_SHOP = "e2e-pseudo-fresh.myshopify.com";
const suite = useEmbeddedAdmin({ shop: SHOP, apiKey: "e2e-pseudo-api-key", apiSecret: "e2e-pseudo-api-secret" });
let seeded: SeededShop;

beforeAll(async () => {
  seeded = await seedShopWithData(SHOP, { clickServiceUrl: suite.clicks.url, apiKey: suite.clicks.createApiKey() });
}, 120_000);

/** The words Intl writes into English dates and times: month and weekday names, AM/PM, zone names. */
function dateWords(): Set<string> {
  const words = new Set(["AM", "PM", "GMT", "UTC"]);
  for (const month of ["long", "short"] as const)
    for (let m = 0; m < 12; m++) words.add(new Date(Date.UTC(2026, m, 15)).toLocaleString("en", { month }));
  for (const weekday of ["long", "short"] as const)
    for (let d = 0; d < 7; d++) words.add(new Date(Date.UTC(2026, 0, 4 + d)).toLocaleString("en", { weekday }));
  return words;
}

const DATE_WORDS = dateWords();
const CURRENCIES = new Set(Intl.supportedValuesOf("currency"));

/** Every key of the English catalogue, plural objects as their own key. */
function messageKeys(messages: object, prefix = ""): string[] {
  return Object.entries(messages).flatMap(([key, value]) => {
    const dotted = prefix ? `${prefix}.${key}` : key;
    return typeof value === "object" && value !== null ? [dotted, ...messageKeys(value, dotted)] : [dotted];
  });
}
const KEYS = new Set(messageKeys(english));

/** What of a text is outside every pseudo bracket (brackets nest when one message fills another). */
export function unmarked(text: string): string {
  const innermost = new RegExp(`\\${PSEUDO_OPEN}[^\\${PSEUDO_OPEN}\\${PSEUDO_CLOSE}]*\\${PSEUDO_CLOSE}`, "g");
  let rest = text;
  for (let previous = ""; previous !== rest;) [previous, rest] = [rest, rest.replace(innermost, " ")];
  return rest;
}

/** The tokens of unmarked text that do not look like data. */
export function untranslatedWords(text: string): string[] {
  return unmarked(text)
    .split(/[\s,;:()[\]"'“”‘’«»/|·•–—]+/)
    .filter((token) => /\p{L}/u.test(token))
    .filter((token) => !CURRENCIES.has(token) && !DATE_WORDS.has(token.replace(/\.$/, "")))
    .filter((token) => KEYS.has(token.replace(/\.$/, "")) || !/[\d_@]|\p{L}\.\p{L}/u.test(token));
}

/** Every visible text node's text, and every visible element's spoken labels. */
async function visibleTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const texts: string[] = [document.title];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || ["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"].includes(parent.tagName)) continue;
      if (node.textContent?.trim() && parent.checkVisibility()) texts.push(node.textContent);
    }
    for (const element of document.body.querySelectorAll("[aria-label], [placeholder], [title], img[alt]")) {
      if (!element.checkVisibility() && element.tagName !== "INPUT") continue;
      for (const name of ["aria-label", "placeholder", "title", "alt"]) {
        const value = element.getAttribute(name);
        if (value?.trim()) texts.push(value);
      }
    }
    return texts;
  });
}

/** The texts of a page that hold a word outside the brackets. */
async function unmarkedTexts(page: Page): Promise<string[]> {
  const found = (await visibleTexts(page)).filter((text) => untranslatedWords(text).length > 0);
  return [...new Set(found.map((text) => text.trim()))];
}

async function expectAllMarked(page: Page, state: string) {
  expect(await unmarkedTexts(page), `${state}: text outside ${PSEUDO_OPEN}…${PSEUDO_CLOSE}`).toEqual([]);
}

const inPseudo = (path: string) => `${path}${path.includes("?") ? "&" : "?"}locale=en-XA`;

describe("the pseudo-locale's own check", () => {
  it("passes marked text and data, and finds an English word", () => {
    expect(untranslatedWords("⟦Órdér ⟦#1002⟧ wás híjáçkéd⟧")).toEqual([]);
    expect(untranslatedWords("cr_alice (alice-20) LEAKED20 $1,234.50 USD Nov 27, 2026, 10:55 AM GMT+9")).toEqual([]);
    expect(untranslatedWords("⟦Sáví⟧ Cancel")).toEqual(["Cancel"]);
    expect(untranslatedWords("Saved. shop.myshopify.com")).toEqual(["Saved."]);
    expect(untranslatedWords("⟦Stáátús⟧ ledger.statusAny")).toEqual(["ledger.statusAny"]);
  });
});

describe("every admin page in the pseudo-locale shows only marked text", () => {
  for (const [label, shop] of [
    ["with data", SHOP],
    ["on a fresh shop", FRESH_SHOP],
  ] as const)
    it(label, { timeout: 240_000 }, async () => {
      // Every page is looked at before the test fails, so one run names every bypass.
      const found: Record<string, string[]> = {};
      for (const state of adminPageStates(shop === SHOP ? seeded : null)) {
        const hydration: string[] = [];
        const page = await openAdminPage(suite.browser, suite.adminFor(shop), inPseudo(state.path), 1280, (opened) =>
          opened.on("console", (message) => {
            if (/Hydration failed|did not match/.test(message.text())) hydration.push(message.text().slice(0, 300));
          }),
        );
        await page.locator("h1").first().waitFor();
        expect(await page.locator("html").getAttribute("lang")).toBe("en-XA");
        const texts = [...(await unmarkedTexts(page)), ...hydration];
        if (texts.length > 0) found[state.name] = texts;
        await page.context().close();
      }
      expect(found, `text outside ${PSEUDO_OPEN}…${PSEUDO_CLOSE}`).toEqual({});
    });

  it("keeps the language across navigation and after a form is sent", { timeout: 60_000 }, async () => {
    const page = await openAdminPage(suite.browser, suite.adminFor(SHOP), inPseudo("/app"));
    await page.locator("h1").first().waitFor();
    await page.locator("ui-nav-menu a, nav a").filter({ hasText: "⟦Séttíñgs⟧" }).first().click();
    await page.waitForURL(/\/app\/settings\?locale=en-XA/);
    await page.getByRole("heading", { level: 1, name: "⟦Séttíñgs⟧" }).waitFor();
    await expectAllMarked(page, "settings after navigation");
    await page
      .getByRole("button", { name: /⟦Sávé⟧/ })
      .first()
      .click();
    await page.waitForLoadState("networkidle");
    expect(page.url()).toContain("locale=en-XA");
    await expectAllMarked(page, "settings after a save");
    await page.context().close();
  });
});
