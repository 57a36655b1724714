import Decimal from "decimal.js";
import { z } from "zod";
import { DEFAULT_SETTINGS } from "./defaults";
import { ORDER_VALUE_BASES } from "./order-value-basis";

// What a merchant may save, checked the same way whether it comes from the settings form,
// the demo or a test. Messages are shown inline next to the field they name.

const ParamName = z
  .string()
  .trim()
  .min(1)
  .max(64, "parameter names are at most 64 characters")
  .regex(/^[A-Za-z0-9_.-]+$/, "parameter names use letters, digits, '_', '-' or '.'")
  .refine((name) => name !== "lb_click", "lb_click carries the click id, not a tag");

export const SettingsInput = z.object({
  clickServiceUrl: z
    .string()
    .trim()
    // Browsers and proxies commonly stop at about 2,000 characters; no service URL needs more.
    .max(2_048, "the URL is at most 2,048 characters")
    .url("enter the service's base URL, such as https://clicks.example.com")
    // zod 4 runs refinements even after .url() failed, so each guards its own parse.
    .refine(
      (url) => URL.canParse(url) && /^https?:$/.test(new URL(url).protocol),
      "the URL must start with https:// or http://",
    )
    // The client never sends credentials in the URL, so such a URL could only fail later.
    .refine(
      (url) => !URL.canParse(url) || (!new URL(url).username && !new URL(url).password),
      "the URL must not contain a user name or password; the API key goes in its own field",
    )
    .transform((url) => url.replace(/\/+$/, "")),
  /** Omitted or empty keeps the stored key: the browser never gets it back to resubmit. */
  apiKey: z
    .string()
    .trim()
    .max(512, "the API key is too long")
    .regex(/^[\x21-\x7e]*$/, "the API key contains spaces or characters an HTTP header cannot carry")
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
    .default(DEFAULT_SETTINGS.hijackTag),
  commissionRate: z
    .string()
    .trim()
    .regex(/^\d{1,3}(\.\d{1,4})?$/, "enter a percentage such as 10 or 7.5")
    .refine(
      (rate) => /^\d+(\.\d+)?$/.test(rate) && new Decimal(rate).lte(100),
      "the rate is a percentage from 0 to 100",
    )
    .default(DEFAULT_SETTINGS.commissionRate),
  orderValueBasis: z.enum(ORDER_VALUE_BASES).default(DEFAULT_SETTINGS.orderValueBasis),
  autoVerify: z.boolean().default(DEFAULT_SETTINGS.autoVerify),
});

export type SettingsInput = z.input<typeof SettingsInput>;
export type ValidSettings = z.output<typeof SettingsInput>;
