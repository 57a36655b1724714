import { describe, expect, it } from "vitest";
import {
  formatCalendarDay,
  formatCurrency,
  formatMinorCurrency,
  localeMoney,
  formatShopDay,
  formatShopTime,
  isTimeZone,
  requestLocale,
  safeLocale,
  shopToday,
  shownTime,
  timesIn,
  zoneOffsetMinutes,
} from "../../app/units/shop-format";

// The admin's formatting: the shop's zone, the merchant's locale, and money that never passes
// through a float.

describe("formatCurrency", () => {
  it("writes an amount as the locale does, with its currency", () => {
    expect(formatCurrency("1234.5", "USD", "en-US")).toBe("$1,234.50");
    expect(formatCurrency("1234.5", "EUR", "de-DE")).toBe("1.234,50\u00a0€");
    expect(formatCurrency("-12.30", "EUR", "fr-FR")).toBe("-12,30\u00a0€");
    expect(formatCurrency("2000", "JPY", "ja-JP")).toBe("￥2,000");
    expect(formatCurrency("1.234", "KWD", "en-US")).toBe("KWD\u00a01.234");
    expect(formatCurrency("0", "USD", "en-US")).toBe("$0.00");
  });

  it("keeps every digit of amounts past 2^53, where a float would round", () => {
    expect(formatCurrency("90071992547409.93", "USD", "en-US")).toBe("$90,071,992,547,409.93");
    expect(formatCurrency("123456789012345678901.01", "USD", "en-US")).toBe("$123,456,789,012,345,678,901.01");
    expect(formatMinorCurrency(9007199254740993n, "USD", "en-US")).toBe("$90,071,992,547,409.93");
    expect(formatMinorCurrency("-5", "USD", "en-US")).toBe("-$0.05");
    expect(formatMinorCurrency(1500n, "JPY", "en-US")).toBe("¥1,500");
  });

  it("writes the fraction as stored, padded to the currency's digits, never rounded", () => {
    expect(formatCurrency("10.5", "USD", "en-US")).toBe("$10.50");
    expect(formatCurrency("10.005", "USD", "en-US")).toBe("$10.005");
    expect(formatCurrency("-0.00", "USD", "en-US")).toBe("$0.00");
  });

  it("gives back text that is no amount, or an unknown currency, as it is", () => {
    expect(formatCurrency("1e3", "USD", "en-US")).toBe("1e3 USD");
    expect(formatCurrency("12.00", "NOT A CODE", "en-US")).toBe("12.00 NOT A CODE");
  });
});

describe("times in the shop's zone", () => {
  const at = "2026-11-27T01:55:00.000Z";
  // ICU builds differ on the space before AM (narrow no-break or plain): compare the words.
  const plain = (text: string) => text.replace(/[\u202f\u00a0]/g, " ");

  it("names the zone, so no reader takes the time for theirs", () => {
    expect(plain(formatShopTime(at, { locale: "en-US", timeZone: "Asia/Tokyo" }))).toBe("Nov 27, 2026, 10:55 AM GMT+9");
    expect(plain(formatShopTime(at, { locale: "en-US", timeZone: "America/New_York" }))).toBe(
      "Nov 26, 2026, 8:55 PM EST",
    );
    expect(plain(formatShopTime(at, { locale: "en-US", timeZone: "UTC" }))).toBe("Nov 27, 2026, 1:55 AM UTC");
    expect(formatShopDay(at, { locale: "en-US", timeZone: "America/New_York" })).toBe("Nov 26, 2026");
    expect(formatShopTime(null, { locale: "en-US", timeZone: "UTC" })).toBe("—");
    expect(formatShopTime("not a time", { locale: "en-US", timeZone: "UTC" })).toBe("—");
  });

  it("knows each zone's offset at the moment, daylight saving included", () => {
    expect(zoneOffsetMinutes("Asia/Tokyo", new Date(at))).toBe(540);
    expect(zoneOffsetMinutes("America/New_York", new Date("2026-01-15T12:00:00Z"))).toBe(-300);
    expect(zoneOffsetMinutes("America/New_York", new Date("2026-07-15T12:00:00Z"))).toBe(-240);
    expect(zoneOffsetMinutes("Asia/Kolkata", new Date(at))).toBe(330);
    expect(zoneOffsetMinutes("UTC", new Date(at))).toBe(0);
  });

  it("formats every ISO time of a page's data once, by its text", () => {
    const times = timesIn(
      { a: at, list: [{ b: "2026-11-27T02:00:00Z" }], note: "2026-11-27", n: 3 },
      { locale: "en-US", timeZone: "Asia/Tokyo" },
    );
    expect(Object.fromEntries(Object.entries(times).map(([iso, text]) => [iso, plain(text)]))).toEqual({
      [at]: "Nov 27, 2026, 10:55 AM GMT+9",
      "2026-11-27T02:00:00Z": "Nov 27, 2026, 11:00 AM GMT+9",
    });
    expect(shownTime(times, at)).toBe(times[at]);
    expect(shownTime(times, null)).toBe("—");
  });
});

describe("zone and locale from outside", () => {
  it("accepts only zones Intl knows", () => {
    expect(isTimeZone("Europe/Paris")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(isTimeZone("")).toBe(false);
    expect(isTimeZone(42)).toBe(false);
  });

  it("reads the admin's locale parameter, else the browser's language, else en-US", () => {
    const request = (query: string, language?: string) =>
      new Request(`https://app.test/app${query}`, { headers: language ? { "accept-language": language } : {} });
    expect(requestLocale(request("?locale=de-DE", "fr-FR"))).toBe("de-DE");
    expect(requestLocale(request("", "fr-FR,fr;q=0.9,en;q=0.8"))).toBe("fr-FR");
    expect(requestLocale(request(""))).toBe("en-US");
    expect(requestLocale(request("?locale=%3Cscript%3E"))).toBe("en-US");
    expect(safeLocale("x".repeat(100))).toBe("en-US");
  });
});

describe("days the merchant chose, and the shop's today", () => {
  it("writes a chosen day in the locale without a zone moving it", () => {
    // A payout paid on the 21st stays the 21st for a merchant west of UTC, where that
    // midnight UTC is still the 20th.
    expect(formatCalendarDay("2026-11-21", "en-US")).toBe("Nov 21, 2026");
    expect(formatShopDay("2026-11-21T00:00:00Z", { locale: "en-US", timeZone: "America/Los_Angeles" })).toBe(
      "Nov 20, 2026",
    );
    expect(formatCalendarDay("not a day", "en-US")).toBe("not a day");
  });

  it("gives the shop's date, which is not UTC's on either side of midnight", () => {
    const at = new Date("2026-11-26T20:30:00Z");
    expect(shopToday("Asia/Tokyo", at)).toBe("2026-11-27");
    expect(shopToday("UTC", at)).toBe("2026-11-26");
    expect(shopToday("America/Los_Angeles", new Date("2026-11-27T03:00:00Z"))).toBe("2026-11-26");
  });

  it("binds integer minor units to a locale, exactly", () => {
    expect(localeMoney("de-DE")(900719925474099312n, "EUR")).toBe("9.007.199.254.740.993,12\u00a0€");
    expect(localeMoney("en-US")("-700", "USD")).toBe("-$7.00");
  });
});
