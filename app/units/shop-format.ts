import { formatMinor } from "./money";
import { memoCache } from "./memo";
import { minorDigits } from "./minor-units";

// How the admin writes times and money for a merchant: in the shop's time zone (Shopify's
// Shop.ianaTimezone, app/shop-profile) and the merchant's locale, as Shopify's own admin does.
// Pages format on the server, in their loader's module, so the browser hydrates the very text
// the server wrote: two ICU builds need not agree on every space.
//
// Money never goes through a float: the integer part is formatted as a BigInt (exact in every
// runtime) and the fraction digits are placed after it, as written, with the locale's separator.

export const UTC = "UTC";
export const DEFAULT_LOCALE = "en-US";

export interface ShopFormat {
  locale: string;
  timeZone: string;
}

export function isTimeZone(zone: unknown): zone is string {
  if (typeof zone !== "string" || zone === "" || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** A BCP 47 tag Intl accepts, from what a request offers; anything else is en-US. */
export function safeLocale(tag: string | null | undefined): string {
  if (!tag || tag.length > 35) return DEFAULT_LOCALE;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical && Intl.NumberFormat.supportedLocalesOf(canonical).length > 0 ? canonical : DEFAULT_LOCALE;
  } catch {
    return DEFAULT_LOCALE;
  }
}

/** The merchant's locale: Shopify admin's `locale` parameter, else the browser's first language. */
export function requestLocale(request: Request): string {
  const fromAdmin = new URL(request.url).searchParams.get("locale");
  if (fromAdmin) return safeLocale(fromAdmin);
  const first = request.headers.get("accept-language")?.split(",")[0]?.split(";")[0]?.trim();
  return safeLocale(first);
}

// Locale × zone × kind: a handful per shop.
const cached = memoCache<Intl.DateTimeFormat>();

function toDate(value: string | Date | null | undefined): Date | null {
  if (!value) return null;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** "Nov 27, 2026, 10:55 AM GMT+9": minutes, with the zone named, so no reader mistakes it for theirs. */
export function formatShopTime(value: string | Date | null | undefined, format: ShopFormat): string {
  const date = toDate(value);
  if (!date) return "—";
  return cached(
    `t|${format.locale}|${format.timeZone}`,
    () =>
      new Intl.DateTimeFormat(format.locale, {
        year: "numeric",
        month: "short",
        day: "numeric",
        hour: "numeric",
        minute: "2-digit",
        timeZone: format.timeZone,
        timeZoneName: "short",
      }),
  ).format(date);
}

/** "10:55 AM": a time beside a date already shown. */
export function formatShopClock(value: string | Date | null | undefined, format: ShopFormat): string {
  const date = toDate(value);
  if (!date) return "—";
  return cached(
    `c|${format.locale}|${format.timeZone}`,
    () => new Intl.DateTimeFormat(format.locale, { hour: "numeric", minute: "2-digit", timeZone: format.timeZone }),
  ).format(date);
}

/** "Nov 27, 2026": the shop's calendar day. */
export function formatShopDay(value: string | Date | null | undefined, format: ShopFormat): string {
  const date = toDate(value);
  if (!date) return "—";
  return cached(
    `d|${format.locale}|${format.timeZone}`,
    () =>
      new Intl.DateTimeFormat(format.locale, {
        year: "numeric",
        month: "short",
        day: "numeric",
        timeZone: format.timeZone,
      }),
  ).format(date);
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * An exact decimal amount as the merchant's locale writes it with its currency:
 * ("1234.5", "USD", "en-US") -> "$1,234.50"; ("1234.5", "EUR", "de-DE") -> "1.234,50 €".
 * Text that is not a decimal comes back as it is, with its currency code.
 */
export function formatCurrency(amount: string, currency: string, locale: string): string {
  const match = DECIMAL.exec(amount.trim());
  const numberFormat = currencyFormat(locale, currency);
  if (!numberFormat || !match) return `${amount} ${currency}`;
  const [, sign = "", whole = "0", written = ""] = match;
  const fraction = written.padEnd(minorDigits(currency), "0");
  const negative = sign === "-" && /[1-9]/.test(whole + fraction);
  const integer = BigInt(whole);
  // -0 has no BigInt: format -1 for the sign's place and write the zero in.
  const parts = numberFormat.formatToParts(negative ? (integer === 0n ? -1n : -integer) : integer);
  const lastInteger = parts.map((part) => part.type).lastIndexOf("integer");
  const separator = decimalSeparator(locale);
  return parts
    .map((part, index) => {
      const value = negative && integer === 0n && part.type === "integer" ? "0" : part.value;
      return index === lastInteger && fraction ? `${value}${separator}${fraction}` : value;
    })
    .join("");
}

/** Integer minor units (an exact SQL SUM) as formatCurrency writes them. */
export function formatMinorCurrency(minor: bigint | string, currency: string, locale: string): string {
  return formatCurrency(formatMinor(minor, currency).replace(/,/g, ""), currency, locale);
}

/** formatMinorCurrency bound to a locale: what a page's server module hands the sums it writes. */
export function localeMoney(locale: string): (minor: bigint | string, currency: string) => string {
  return (minor, currency) => formatMinorCurrency(minor, currency, locale);
}

/**
 * A calendar date the merchant chose ("2026-11-20", a payout's paid-on day) in their locale. It is
 * a day, not a moment: written as that day in UTC so no zone moves it to the day before.
 */
export function formatCalendarDay(day: string, locale: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(day) ? formatShopDay(`${day}T00:00:00Z`, { locale, timeZone: UTC }) : day;
}

/** Today's date in the shop's zone as a date input writes it (YYYY-MM-DD). */
export function shopToday(timeZone: string, now: Date = new Date()): string {
  // en-CA writes dates as YYYY-MM-DD.
  return cached(
    `y|${timeZone}`,
    () => new Intl.DateTimeFormat("en-CA", { year: "numeric", month: "2-digit", day: "2-digit", timeZone }),
  ).format(now);
}

const currencyFormats = memoCache<Intl.NumberFormat | null>();

/**
 * The locale's currency format for whole units, built once per locale and currency: a page
 * writes dozens of amounts, and building one costs tens of microseconds. Null when Intl refuses
 * the currency code (it comes from order data).
 */
function currencyFormat(locale: string, currency: string): Intl.NumberFormat | null {
  return currencyFormats(`${locale}|${currency}`, () => {
    try {
      return new Intl.NumberFormat(locale, {
        style: "currency",
        currency,
        minimumFractionDigits: 0,
        maximumFractionDigits: 0,
      });
    } catch {
      return null;
    }
  });
}

// locale-decimal.ts reads typed numbers with the same mark; each module works it out itself, as
// the browser loads the one without the other (the money on every page, typed numbers on two).
const decimalMarks = memoCache<string>();

function decimalSeparator(locale: string): string {
  return decimalMarks(
    locale,
    () => new Intl.NumberFormat(locale).formatToParts(1.5).find((part) => part.type === "decimal")?.value ?? ".",
  );
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * Every ISO time in the page's data, formatted once here: the browser then hydrates the text
 * the server wrote, whatever its own time zone data says.
 */
export function timesIn(data: unknown, format: ShopFormat): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (value: unknown): void => {
    if (typeof value === "string") {
      if (ISO_TIME.test(value) && !(value in out)) out[value] = formatShopTime(value, format);
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") Object.values(value).forEach(walk);
  };
  walk(data);
  return out;
}

/** A time from a timesIn map ("—" for none), for components that render what the loader formatted. */
export function shownTime(times: Record<string, string>, iso: string | null | undefined): string {
  return iso ? (times[iso] ?? "—") : "—";
}

/** The zone's offset from UTC at that moment, in minutes (Asia/Tokyo: 540; New York in winter: -300). */
export function zoneOffsetMinutes(timeZone: string, at: Date): number {
  const parts = cached(
    `o|${timeZone}`,
    () =>
      new Intl.DateTimeFormat("en-US", {
        timeZone,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
      }),
  ).formatToParts(at);
  const field = (type: string) => Number(parts.find((part) => part.type === type)?.value ?? 0);
  const wall = Date.UTC(field("year"), field("month") - 1, field("day"), field("hour"), field("minute"));
  const minute = Math.floor(at.getTime() / 60_000) * 60_000;
  return Math.round((wall - minute) / 60_000);
}
