import { insertRows, sql } from "../database/sql.server";
import { logger } from "../platform/logger.server";
import { requestAdmin, type AdminGraphql } from "../shopify-admin/admin-client.server";
import { CODE_DISCOUNT_BY_CODE, DISCOUNT_CODE_DEACTIVATE } from "../shopify-admin/documents";

// Switching a leaked code off in Shopify: find the code discount the code belongs to, then
// deactivate it, then record who did it and when. Both calls need the optional discount scopes;
// without them Shopify answers ACCESS_DENIED, which comes back as "scopes" so the page can ask
// for them instead of showing an error. Nothing here runs inside a transaction (decision 025):
// the record is written after Shopify has answered.

export type SwitchOffResult =
  | { ok: true; code: string; title: string | null; at: string }
  | { ok: false; code: string; reason: "scopes" | "not-found" | "refused" | "unavailable"; message: string };

/** Longest code Shopify takes. */
export const MAX_CODE = 255;

export async function switchOffCode(input: {
  graphql: AdminGraphql;
  shop: string;
  code: string;
  userId: string | null;
  now?: Date;
}): Promise<SwitchOffResult> {
  const { graphql, shop, code } = input;
  const failed = (reason: "scopes" | "not-found" | "refused" | "unavailable", message: string): SwitchOffResult => ({
    ok: false,
    code,
    reason,
    message,
  });
  const found = await requestAdmin(graphql, CODE_DISCOUNT_BY_CODE, { code }, { maxAttempts: 2 });
  if (!found.ok) return failed(found.message.startsWith("access denied") ? "scopes" : "unavailable", found.message);
  const node = found.data.codeDiscountNodeByCode;
  if (!node) return failed("not-found", `no discount in Shopify has the code ${code}`);
  const title = "title" in node.codeDiscount ? (node.codeDiscount.title ?? null) : null;

  const done = await requestAdmin(graphql, DISCOUNT_CODE_DEACTIVATE, { id: node.id }, { maxAttempts: 2 });
  if (!done.ok) return failed(done.message.startsWith("access denied") ? "scopes" : "unavailable", done.message);
  const errors = done.data.discountCodeDeactivate?.userErrors ?? [];
  if (errors.length > 0) return failed("refused", errors.map((e) => e.message).join("; "));

  const at = input.now ?? new Date();
  await insertRows(sql, "CodeDeactivation", [{ shop, code, discountId: node.id, userId: input.userId, createdAt: at }]);
  logger.info("codes.switched_off", "discount code switched off", { shop, code, discountId: node.id });
  return { ok: true, code, title, at: at.toISOString() };
}
