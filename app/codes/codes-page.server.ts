import type { AdminGraphql } from "../shopify-admin/admin-client.server";
import { parseCodeFilter, type CodeFilter } from "./code-filter";
import { codeTotals, CODES_LIMIT, type CodeTotals } from "./code-totals.server";
import { MAX_CODE, switchOffCode, type SwitchOffResult } from "./switch-off.server";

// The Codes page's server side: what the loader shows and what the switch-off action does.

// No code holds a control character (NUL among them, which PostgreSQL cannot store).
const PRINTABLE = /^\P{Cc}*$/u;

export interface CodesPage {
  filter: CodeFilter;
  rows: CodeTotals[];
  limit: number;
}

export async function codesPage(shop: string, params: URLSearchParams): Promise<CodesPage> {
  const filter = parseCodeFilter(params);
  return { filter, rows: await codeTotals(shop, filter), limit: CODES_LIMIT };
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
