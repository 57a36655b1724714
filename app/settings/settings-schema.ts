import Decimal from "decimal.js";
import { z } from "zod";
import { MAX_CREATOR_ID, MAX_CREATOR_RATES } from "./creator-rates";
import { DEFAULT_SETTINGS } from "./defaults";
import { ORDER_VALUE_BASES } from "./order-value-basis";

/** The shortest API key accepted: below it, the last 4 shown on the page would be most of it. */
export const MIN_API_KEY_LENGTH = 8;

// What a merchant may save, checked the same way whether it comes from the settings form,
// the demo or a test. Messages are shown inline next to the field they name.

// Control characters belong in no tag and no URL; NUL among them cannot even be stored in
// PostgreSQL. (A form cannot carry half a surrogate pair: form encoding replaces it.)
const PRINTABLE = /^\P{Cc}*$/u;

const ParamName = z
  .string()
  .trim()
  .min(1)
  .max(64, "parameter names are at most 64 characters")
  .regex(/^[A-Za-z0-9_.-]+$/, "parameter names use letters, digits, '_', '-' or '.'")
  .refine((name) => name !== "lb_click", "lb_click carries the click id, not a tag");

const RATE_FORMAT = "enter a percentage such as 10 or 7.5";
const RATE_RANGE = "the rate is a percentage from 0 to 100";
const Rate = z
  .string()
  .trim()
  .regex(/^\d{1,3}(\.\d{1,4})?$/, RATE_FORMAT)
  .refine((rate) => /^\d+(\.\d+)?$/.test(rate) && new Decimal(rate).lte(100), RATE_RANGE);

// The commission ledger's settings. Omitted, each keeps what is stored (the database's
// default for a new shop: 30 days, no per-creator rates).
const HOLD_DAYS = "the hold is a whole number of days from 0 to 365";
const ledgerSettings = {
  holdDays: z.number({ error: HOLD_DAYS }).int(HOLD_DAYS).min(0, HOLD_DAYS).max(365, HOLD_DAYS).optional(),
  // Not z.record: it builds its result by assignment, which drops a creator named "__proto__".
  creatorRates: z
    .custom<Record<string, string>>(
      (value) =>
        typeof value === "object" &&
        value !== null &&
        !Array.isArray(value) &&
        Object.values(value).every((rate) => typeof rate === "string"),
      "creator rates are lines of a creator id and a rate",
    )
    .superRefine((rates, ctx) => {
      const entries = Object.entries(rates);
      if (entries.length > MAX_CREATOR_RATES)
        ctx.addIssue({ code: "custom", message: `at most ${MAX_CREATOR_RATES} creator rates` });
      for (const [id, rate] of entries) {
        const problem =
          !id.trim() || id.length > MAX_CREATOR_ID
            ? `each line starts with a creator id of 1 to ${MAX_CREATOR_ID} characters`
            : !PRINTABLE.test(id)
              ? "a creator id cannot contain control characters"
              : !Rate.safeParse(rate).success
                ? `${id}: ${/^\d{1,3}(\.\d{1,4})?$/.test(rate.trim()) ? RATE_RANGE : RATE_FORMAT}`
                : null;
        if (problem) {
          ctx.addIssue({ code: "custom", message: problem });
          return;
        }
      }
    })
    .transform((rates) => Object.fromEntries(Object.entries(rates).map(([id, rate]) => [id.trim(), rate.trim()])))
    .optional(),
};

export const SettingsInput = z.object({
  clickServiceUrl: z
    .string()
    .trim()
    // Browsers and proxies commonly stop at about 2,000 characters; no service URL needs more.
    .max(2_048, "the URL is at most 2,048 characters")
    .url("enter the service's base URL, such as https://clicks.example.com")
    // zod 4 runs refinements even after .url() failed, so each guards its own parse.
    .refine(
      // Stryker disable next-line Regex: a URL's protocol is its scheme and one colon, so nothing follows the colon to anchor against
      (url) => URL.canParse(url) && /^https?:$/.test(new URL(url).protocol),
      "the URL must start with https:// or http://",
    )
    .regex(PRINTABLE, "the URL cannot contain control characters")
    // The client never sends credentials in the URL, so such a URL could only fail later.
    .refine(
      (url) => !URL.canParse(url) || (!new URL(url).username && !new URL(url).password),
      "the URL must not contain a user name or password; the API key goes in its own field",
    )
    .transform((url) => url.replace(/\/+$/, "")),
  /**
   * Omitted or empty keeps the stored key: the browser never gets it back to resubmit. At least
   * 8 characters: the page shows the last 4, and the logs redact keys of 6 or more.
   */
  apiKey: z
    .string()
    .trim()
    .max(512, "the API key is too long")
    .regex(/^[\x21-\x7e]*$/, "the API key contains spaces or characters an HTTP header cannot carry")
    .refine((key) => key === "" || key.length >= MIN_API_KEY_LENGTH, "the API key is too short to be a service key")
    .optional(),
  tagParams: z
    .array(ParamName)
    .min(1, "list at least one affiliate tag parameter")
    .max(10, "at most 10 tag parameters")
    .default([...DEFAULT_SETTINGS.tagParams])
    .transform((names) => [...new Set(names)]),
  hijackTag: z
    .string()
    .trim()
    .min(1, "enter the tag to add to hijacked orders")
    .max(40, "Shopify tags are at most 40 characters")
    .refine((tag) => !tag.includes(","), "a tag cannot contain a comma")
    .regex(PRINTABLE, "a tag cannot contain control characters")
    .default(DEFAULT_SETTINGS.hijackTag),
  commissionRate: Rate.default(DEFAULT_SETTINGS.commissionRate),
  orderValueBasis: z.enum(ORDER_VALUE_BASES).default(DEFAULT_SETTINGS.orderValueBasis),
  autoVerify: z.boolean().default(DEFAULT_SETTINGS.autoVerify),
  // The landing record (the app proxy's touches): how long a landing attributes an order, and
  // how many new clicks an hour the shop's storefront may have looked up. Omitted keeps what is
  // stored (the columns' defaults for a new shop).
  attributionWindowDays: z.coerce
    .number({ error: "enter a number of days from 1 to 365" })
    .int("enter a whole number of days")
    .min(1, "the window is at least 1 day")
    .max(365, "the window is at most 365 days")
    .optional(),
  landingLookupsPerHour: z.coerce
    .number({ error: "enter a number of lookups from 10 to 100000" })
    .int("enter a whole number of lookups")
    .min(10, "allow at least 10 lookups an hour")
    .max(100_000, "at most 100000 lookups an hour")
    .optional(),
  ...ledgerSettings,
});

export type SettingsInput = z.input<typeof SettingsInput>;
export type ValidSettings = z.output<typeof SettingsInput>;
