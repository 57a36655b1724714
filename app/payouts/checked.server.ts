import { Prisma, type Payout, type PayoutRun } from "@prisma/client";
import { z } from "zod";
import { bounceSentPayout, settleSentPayout } from "../commissions/sent-payouts.server";
import { rowsOf, sql, updateWhere } from "../database/sql.server";
import { Payout as PayoutTable, PayoutRun as PayoutRunTable } from "../database/tables";
import { t } from "../i18n";
import { logger } from "../platform/logger.server";
import { LINE_STATUS } from "./shopify-steps";

// A sent payout whose provider's records could not settle it waits for the merchant: its run is
// parked ("check", PayPal's answer lost past asking again) or its line is CHECK (Shopify's records
// hold two candidates, or could not be read whole). Its records stay `paying`, out of every
// payout, until the merchant looks it up in PayPal or Shopify and says what they found: paid
// (with the id they found there), and its records are paid; or not paid, and they are payable
// again. Written once, in one transaction, only while the payout still waits: a late word from
// the provider that settled it first wins, and the merchant is told so.

/** The status a payout the merchant found paid carries in place of the provider's. */
export const CONFIRMED_STATUS = "CONFIRMED";
/** The status a payout the merchant found unpaid carries. */
export const NOT_FOUND_STATUS = "NOT_FOUND";

export type CheckedResult =
  | { intent: "checked"; ok: true; payoutId: string; found: "paid" | "unpaid" }
  | { intent: "checked"; ok: false; status: 400 | 404 | 409; errors: Record<string, string> };

const CheckedForm = z.discriminatedUnion("found", [
  z.object({
    payoutId: z.string().trim().min(1).max(100),
    found: z.literal("paid"),
    providerId: z
      .string()
      .trim()
      .min(1, { error: () => t("payouts.checked.providerIdMissing") })
      .max(200, { error: () => t("payouts.checked.providerIdMissing") })
      .regex(/^[\x21-\x7e]+$/, { error: () => t("payouts.checked.providerIdMissing") }),
  }),
  z.object({ payoutId: z.string().trim().min(1).max(100), found: z.literal("unpaid") }),
]);

/** Whether a payout waits for the merchant's word: sent, neither paid nor bounced, and parked. */
export function waitsForMerchant(
  payout: Pick<Payout, "method" | "voidedAt" | "settledAt" | "providerStatus">,
  run: Pick<PayoutRun, "state"> | null,
) {
  if (payout.method === "manual" || payout.voidedAt || payout.settledAt) return false;
  return payout.providerStatus === LINE_STATUS.check || run?.state === "check";
}

/** The merchant's word on a payout waiting for them; `staffId` from the session token. */
export async function resolveChecked(
  shop: string,
  input: unknown,
  staffId: string | null,
  now: Date = new Date(),
): Promise<CheckedResult> {
  const parsed = CheckedForm.safeParse(input);
  if (!parsed.success)
    return {
      intent: "checked",
      ok: false,
      status: 400,
      errors: { checked: parsed.error.issues[0]?.message ?? t("payouts.checked.invalid") },
    };
  const form = parsed.data;
  return sql.transaction(async (tx): Promise<CheckedResult> => {
    const [payout] = await rowsOf<Payout>(
      tx,
      "Payout",
      Prisma.sql`SELECT * FROM ${PayoutTable} WHERE ${PayoutTable.shop} = ${shop} AND ${PayoutTable.id} = ${form.payoutId}`,
    );
    if (!payout)
      return { intent: "checked", ok: false, status: 404, errors: { checked: t("payouts.checked.unknown") } };
    const [run] = payout.runId
      ? await rowsOf<PayoutRun>(
          tx,
          "PayoutRun",
          Prisma.sql`SELECT * FROM ${PayoutRunTable} WHERE ${PayoutRunTable.shop} = ${shop} AND ${PayoutRunTable.id} = ${payout.runId}`,
        )
      : [];
    if (!waitsForMerchant(payout, run ?? null))
      return { intent: "checked", ok: false, status: 409, errors: { checked: t("payouts.checked.notWaiting") } };
    const moved =
      form.found === "paid"
        ? await settleSentPayout(tx, shop, payout.id, { status: CONFIRMED_STATUS, itemId: form.providerId }, now)
        : await bounceSentPayout(
            tx,
            shop,
            payout.id,
            { status: NOT_FOUND_STATUS, itemId: payout.providerItemId, reason: t("payouts.checked.unpaidReason") },
            now,
          );
    if (!moved)
      return { intent: "checked", ok: false, status: 409, errors: { checked: t("payouts.checked.notWaiting") } };
    await updateWhere(tx, "Payout", Prisma.sql`${PayoutTable.shop} = ${shop} AND ${PayoutTable.id} = ${payout.id}`, {
      checkedBy: staffId,
      ...(form.found === "unpaid" && { voidedBy: staffId }),
    });
    // The run ends once none of its lines waits: its job has nothing left to ask.
    if (run) {
      const [left] = await tx.rows<{ n: number | bigint | string }>(
        Prisma.sql`SELECT COUNT(*) AS "n" FROM ${PayoutTable} WHERE ${PayoutTable.shop} = ${shop} AND ${PayoutTable.runId} = ${run.id}
          AND ${PayoutTable.voidedAt} IS NULL AND ${PayoutTable.settledAt} IS NULL`,
      );
      if (Number(left?.n ?? 0) === 0)
        await updateWhere(
          tx,
          "PayoutRun",
          Prisma.sql`${PayoutRunTable.shop} = ${shop} AND ${PayoutRunTable.id} = ${run.id} AND ${PayoutRunTable.state} = 'check'`,
          { state: "settled", settledAt: now, updatedAt: now },
        );
    }
    logger.info("payouts.checked", "the merchant settled a payout that waited for them", {
      shop,
      payoutId: payout.id,
      found: form.found,
    });
    return { intent: "checked", ok: true, payoutId: payout.id, found: form.found };
  });
}

/** Of these payouts, the ids waiting for the merchant's word, for the Payouts page's history. */
export async function waitingPayoutIds(shop: string, payoutIds: string[]): Promise<string[]> {
  if (payoutIds.length === 0) return [];
  const rows = await sql.rows<{
    id: string;
    method: string;
    voidedAt: unknown;
    settledAt: unknown;
    providerStatus: string | null;
    state: string | null;
  }>(
    Prisma.sql`
      SELECT p.${PayoutTable.id}, p.${PayoutTable.method}, p.${PayoutTable.voidedAt}, p.${PayoutTable.settledAt},
        p.${PayoutTable.providerStatus}, r.${PayoutRunTable.state}
      FROM ${PayoutTable} p LEFT JOIN ${PayoutRunTable} r ON r.${PayoutRunTable.id} = p.${PayoutTable.runId}
      WHERE p.${PayoutTable.shop} = ${shop} AND p.${PayoutTable.id} IN (${Prisma.join(payoutIds)})`,
  );
  return rows
    .filter((row) =>
      waitsForMerchant(
        {
          method: row.method,
          voidedAt: row.voidedAt as Date | null,
          settledAt: row.settledAt as Date | null,
          providerStatus: row.providerStatus,
        },
        row.state === null ? null : { state: row.state },
      ),
    )
    .map((row) => row.id);
}
