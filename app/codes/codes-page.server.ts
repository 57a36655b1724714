import type { AdminGraphql } from "../shopify-admin/admin-client.server";
import { parseCodeFilter, type CodeFilter } from "./code-filter";
import { codeTotals, CODES_LIMIT, type CodeTotals } from "./code-totals.server";
import { MAX_CODE, switchOffCode, type SwitchOffResult } from "./switch-off.server";
import { t } from "../i18n";
import { shopFormat } from "../shop-profile/shop-profile.server";
import { DEFAULT_LOCALE, formatShopDay, localeMoney, timesIn, UTC, type ShopFormat } from "../units/shop-format";

// The Codes page's server side: what the loader shows and what the switch-off action does.

// No code holds a control character (NUL among them, which PostgreSQL cannot store).
const PRINTABLE = /^\P{Cc}*$/u;

export interface CodesPage {
  filter: CodeFilter;
  /** seenText: the first and last day a code was seen hijacked, the shop's days; null when never. */
  rows: (CodeTotals & { seenText: string | null })[];
  limit: number;
  /** Every time on the page in the shop's zone, by its ISO text (timesIn). */
  times: Record<string, string>;
}

export async function codesPage(
  shop: string,
  params: URLSearchParams,
  format: ShopFormat = { locale: DEFAULT_LOCALE, timeZone: UTC },
  now: Date = new Date(),
): Promise<CodesPage> {
  const filter = parseCodeFilter(params);
  const totals = await codeTotals(shop, filter, now, CODES_LIMIT, localeMoney(format.locale));
  const rows = totals.map((row) => ({
    ...row,
    seenText:
      row.firstHijackedAt && row.lastHijackedAt
        ? t("codes.seenRange", {
            first: formatShopDay(row.firstHijackedAt, format),
            last: formatShopDay(row.lastHijackedAt, format),
          })
        : null,
  }));
  return {
    filter,
    rows,
    limit: CODES_LIMIT,
    times: timesIn(
      rows.map((row) => row.deactivation?.at ?? null),
      format,
    ),
  };
}

/** The Codes page for a merchant: the shop's days and zone, amounts in their locale. */
export async function codesPageFor(shop: string, params: URLSearchParams, locale: string): Promise<CodesPage> {
  return codesPage(shop, params, await shopFormat(shop, locale));
}

export type CodesAction = SwitchOffResult | { ok: false; code: string; reason: "invalid"; message: string };

/** The form's `code`, checked before anything reaches Shopify: a bad one is a 400, not a call. */
export async function codesAction(input: {
  graphql: AdminGraphql;
  shop: string;
  form: FormData;
  userId: string | null;
}): Promise<{ status: number; result: CodesAction }> {
  const raw = input.form.get("code");
  const code = typeof raw === "string" ? raw.trim() : "";
  if (input.form.get("intent") !== "switch-off" || !code || code.length > MAX_CODE || !PRINTABLE.test(code))
    return { status: 400, result: { ok: false, code: "", reason: "invalid", message: "no valid code to switch off" } };
  const result = await switchOffCode({ graphql: input.graphql, shop: input.shop, code, userId: input.userId });
  // Shopify's answer, whatever it is, is an outcome the page shows (and for "scopes", acts on).
  return { status: 200, result };
}
