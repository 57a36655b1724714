import { describe, expect, it } from "vitest";
import { decimalMark, readLocaleDecimal, writeLocaleDecimal } from "../../app/units/locale-decimal";

// A number the merchant types, read in their locale's way as exact decimal text with a dot, and
// written back the same way; input that could mean two numbers is refused, never guessed.

describe("a typed number in the merchant's locale", () => {
  it.each([
    // German: a decimal comma, dots group thousands.
    ["de", "25,50", "25.50"],
    ["de", "1.250,50", "1250.50"],
    ["de", "1.250.000", "1250000"],
    ["de", " 7,5 ", "7.5"],
    // A dot that cannot group thousands is a decimal mark typed by habit.
    ["de", "12.5", "12.5"],
    ["de", "1,234.50", "1234.50"],
    // French and Swiss: spaces and apostrophes group, whatever the decimal mark after them.
    ["fr", "1\u202f250,50", "1250.50"],
    ["fr", "1 250,5", "1250.5"],
    ["de-CH", "1'250.50", "1250.50"],
    ["de-CH", "1’250", "1250"],
    // English: a decimal point, commas group thousands.
    ["en", "25.50", "25.50"],
    ["en", "1,250.50", "1250.50"],
    ["en", "12,5", "12.5"],
    ["ja", "1,000.5", "1000.5"],
    ["nl", "0,25", "0.25"],
    ["pt-BR", "1.000,00", "1000.00"],
    ["en", "0", "0"],
  ])("in %s, %j reads %j", (locale, typed, value) => {
    expect(readLocaleDecimal(typed, locale)).toEqual({ ok: true, value });
  });

  it.each([
    // The locale's grouping mark before three digits: a thousand, or one and a half?
    ["de", "1.500"],
    ["it", "2.250"],
    ["en", "1,500"],
    ["fr", "1.500"],
  ])("in %s, %j is ambiguous", (locale, typed) => {
    expect(readLocaleDecimal(typed, locale)).toEqual({ ok: false, reason: "ambiguous" });
  });

  it.each([
    ["de", "1,500"],
    ["en", "1.500"],
  ])("in %s, %j is the locale's own decimal mark: not ambiguous", (locale, typed) => {
    expect(readLocaleDecimal(typed, locale)).toEqual({ ok: true, value: "1.500" });
  });

  it.each([
    "",
    "abc",
    "-5",
    "1e3",
    "12,5,0",
    "1.2.3,4",
    "1,2.3.4",
    "1 2",
    "12 50",
    "1..5",
    ",5",
    "5,",
    "25 €",
    "Infinity",
  ])("%j is no number", (typed) => {
    expect(readLocaleDecimal(typed, "de")).toEqual({ ok: false, reason: "invalid" });
  });

  it("keeps every digit: no float is in the way", () => {
    expect(readLocaleDecimal("123.456.789.012,345678", "de")).toEqual({ ok: true, value: "123456789012.345678" });
  });

  it("writes back in the locale's way, ungrouped, so that it reads again as it was", () => {
    expect(decimalMark("de")).toBe(",");
    expect(decimalMark("en")).toBe(".");
    expect(writeLocaleDecimal("1250.50", "de")).toBe("1250,50");
    expect(writeLocaleDecimal("1250.50", "en")).toBe("1250.50");
    expect(writeLocaleDecimal("7.5", "fr")).toBe("7,5");
    for (const locale of ["de", "fr", "en", "ja", "pt-BR", "de-CH"])
      for (const value of ["0", "25.00", "1250.50", "7.5", "1000"])
        expect(readLocaleDecimal(writeLocaleDecimal(value, locale), locale)).toEqual({ ok: true, value });
  });
});
