import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../app/settings/defaults";
import { SettingsInput } from "../../app/settings/settings-schema";
import { parseScenario } from "../../sandbox/demo/scenario";

// DEFAULT_SETTINGS is the one source of a shop's defaults. Prisma's schema cannot import it,
// so its @default values are held to it here; the code that can import it is checked through
// what it produces.

const SCHEMAS = ["prisma/schema.prisma", "prisma/postgresql/schema.prisma"];

function shopSettingsDefaults(file: string): Record<string, string> {
  const schema = readFileSync(path.resolve(import.meta.dirname, "../..", file), "utf8");
  const model = /model ShopSettings \{([\s\S]*?)\n\}/.exec(schema)?.[1];
  if (!model) throw new Error(`${file} has no ShopSettings model`);
  const defaults: Record<string, string> = {};
  for (const [, field, value] of model.matchAll(/^\s*(\w+)\s+\w+\s+@default\((.*?)\)(?:\s|$)/gm)) {
    defaults[field!] = value!;
  }
  return defaults;
}

describe("DEFAULT_SETTINGS", () => {
  it.each(SCHEMAS)("is what %s gives a new ShopSettings row", (file) => {
    const defaults = shopSettingsDefaults(file);
    // String columns hold JSON text (tagParams, creatorRates): parsed twice.
    const value = (field: string) => JSON.parse(defaults[field]!);
    expect({
      tagParams: JSON.parse(value("tagParams")),
      hijackTag: value("hijackTag"),
      commissionRate: value("commissionRate"),
      orderValueBasis: value("orderValueBasis"),
      autoVerify: value("autoVerify"),
      attributionWindowDays: value("attributionWindowDays"),
      landingLookupsPerHour: value("landingLookupsPerHour"),
      holdDays: value("holdDays"),
      creatorRates: JSON.parse(value("creatorRates")),
    }).toEqual(DEFAULT_SETTINGS);
  });

  it("is what the settings schema fills in for fields left out", () => {
    // The landing and ledger settings are left as stored when omitted, so only these default.
    const { tagParams, hijackTag, commissionRate, orderValueBasis, autoVerify } = DEFAULT_SETTINGS;
    expect(SettingsInput.parse({ clickServiceUrl: "https://clicks.example.com" })).toEqual({
      clickServiceUrl: "https://clicks.example.com",
      tagParams,
      hijackTag,
      commissionRate,
      orderValueBasis,
      autoVerify,
    });
  });

  it("is the demo scenario's settings when a scenario gives none", () => {
    expect(parseScenario({ orders: [{ ref: "o1", subtotal: "1.00" }] }).settings).toStrictEqual({
      tagParams: DEFAULT_SETTINGS.tagParams,
      hijackTag: DEFAULT_SETTINGS.hijackTag,
      commissionRate: DEFAULT_SETTINGS.commissionRate,
      orderValueBasis: DEFAULT_SETTINGS.orderValueBasis,
    });
  });
});
