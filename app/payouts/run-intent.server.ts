import { randomUUID } from "node:crypto";
import { Prisma } from "@prisma/client";
import { z } from "zod";
import { creatorProfiles } from "../commissions/creator-profiles.server";
import { chosenDues, refusalOf, type ChosenDue } from "../commissions/payouts.server";
import { reserveSentPayouts } from "../commissions/sent-payouts.server";
import { isUniqueViolation } from "../database/db.server";
import { insertRows, sql, type Sql } from "../database/sql.server";
import { Payout, PayoutRun } from "../database/tables";
import { t } from "../i18n";
import { SealError } from "../platform/sealing.server";
import { enqueueNew } from "../queue/queue.server";
import { wakeWorker } from "../queue/wake.server";
import { formatMoney, type MoneyText } from "../units/money";
import { shopZone } from "../shop-profile/shop-profile.server";
import { isShopifyMethod, methodOf, type PayoutMethod } from "./methods";
import { paypalAccount, payoutSettings } from "./payout-settings.server";

// Starting a payout run from the Payouts page (PayPal, store credit or gift cards): the intent is
// written first, in one transaction: the run (for PayPal its sender_batch_id), a Payout per
// creator line (PayPal's sender_item_id; for Shopify the id its gift card's note carries) and
// their records `paying`, and the run's job. Nothing has left yet; the job sends it
// (run-job.server.ts). The form's token makes a second submit find this run.

export type SentMethod = Exclude<PayoutMethod, "manual">;

export type StartRunResult =
  { ok: true; runId: string; duplicate: boolean; lines: number } | { ok: false; errors: Record<string, string> };

const RunForm = z.object({
  idempotencyKey: z
    .string()
    .trim()
    .min(8, { error: () => t("payouts.run.reload") })
    .max(100),
  balances: z
    .array(
      z.object({
        key: z.string().max(300),
        shownMinor: z.string().regex(/^-?\d{1,30}$/, { error: () => t("payouts.run.reload") }),
      }),
    )
    .min(1, { error: () => t("payouts.run.chooseOne") })
    .max(1_000),
});

async function findRun(shop: string, idempotencyKey: string): Promise<StartRunResult | null> {
  const [run] = await sql.rows<{ id: string }>(
    Prisma.sql`SELECT ${PayoutRun.id} FROM ${PayoutRun} WHERE ${PayoutRun.shop} = ${shop} AND ${PayoutRun.idempotencyKey} = ${idempotencyKey}`,
  );
  if (!run) return null;
  const [lines] = await sql.rows<{ n: number | bigint | string }>(
    Prisma.sql`SELECT COUNT(*) AS "n" FROM ${Payout} WHERE ${Payout.shop} = ${shop} AND ${Payout.runId} = ${run.id}`,
  );
  return { ok: true, runId: run.id, duplicate: true, lines: Number(lines?.n ?? 0) };
}

export function startPaypalRun(
  shop: string,
  input: unknown,
  now: Date = new Date(),
  money: MoneyText = formatMoney,
): Promise<StartRunResult> {
  return startSentRun(shop, "paypal", input, now, money);
}

/** Where the run is paid from: PayPal's environment, or the shop's currency; else why it cannot start. */
async function source(shop: string, method: SentMethod): Promise<{ environment: string } | { refused: string }> {
  if (isShopifyMethod(method)) {
    const { currency } = await shopZone(shop);
    return currency ? { environment: `shopify:${currency}` } : { refused: t("payouts.run.currencyUnknown") };
  }
  try {
    const account = await paypalAccount(shop);
    return account ? { environment: account.environment } : { refused: t("payouts.run.noCredentials") };
  } catch (error) {
    if (error instanceof SealError) return { refused: t("payouts.run.credentialsUnreadable") };
    throw error;
  }
}

/** A run the checks let through, ready to be written: its method, key, balances and source. */
export interface PreparedRun {
  method: SentMethod;
  idempotencyKey: string;
  chosen: ChosenDue[];
  environment: string;
}

/**
 * The checks before a run is written: the run already written under this key (`found`), a refusal
 * saying why (the balances' method, currency or emails; PayPal's account), or the run to write.
 */
export async function prepareSentRun(
  shop: string,
  method: SentMethod,
  input: unknown,
): Promise<{ found: StartRunResult } | { refused: Record<string, string> } | { run: PreparedRun }> {
  // The same form sent again finds its run, whatever else it carries.
  const key = RunForm.shape.idempotencyKey.safeParse((input as { idempotencyKey?: unknown } | null)?.idempotencyKey);
  const earlier = key.success ? await findRun(shop, key.data) : null;
  if (earlier) return { found: earlier };
  const parsed = RunForm.safeParse(input);
  if (!parsed.success) return { refused: { balances: parsed.error.issues[0]!.message } };
  const chosen = chosenDues(parsed.data.balances);
  const from = await source(shop, method);
  if ("refused" in from) return { refused: { balances: from.refused } };
  const settings = await payoutSettings(shop);
  const otherMethod = chosen.filter(
    (c) => methodOf(c.creatorId, settings.creatorMethods, settings.defaultMethod) !== method,
  );
  if (otherMethod.length > 0)
    return {
      refused: {
        balances: t("payouts.run.otherMethod", {
          creators: otherMethod.map((c) => c.creatorId).join(", "),
          method: t(`payouts.methods.${method}`),
        }),
      },
    };
  // Store credit and gift cards are in the shop's currency: another currency is never converted.
  const shopCurrency = from.environment.startsWith("shopify:") ? from.environment.slice("shopify:".length) : null;
  const otherCurrency = shopCurrency ? chosen.filter((c) => c.currency !== shopCurrency) : [];
  if (otherCurrency.length > 0)
    return {
      refused: {
        balances: t("payouts.run.otherCurrency", {
          creators: otherCurrency.map((c) => `${c.creatorId} (${c.currency})`).join(", "),
          currency: shopCurrency!,
        }),
      },
    };
  const profiles = await creatorProfiles(
    shop,
    chosen.map((c) => c.creatorId),
  );
  const noEmail = chosen.filter((c) => !profiles.get(c.creatorId)?.email);
  if (noEmail.length > 0)
    return {
      refused: { balances: t("payouts.run.noEmail", { creators: noEmail.map((c) => c.creatorId).join(", ") }) },
    };
  return { run: { method, idempotencyKey: parsed.data.idempotencyKey, chosen, environment: from.environment } };
}

/**
 * Writes a prepared run's intent in the caller's transaction: the run, a Payout per line with its
 * records `paying`, and its job. Throws the ledger's refusals (refusalOf) and a unique violation
 * when another submit wrote the same key first.
 */
export async function writeSentRun(tx: Sql, shop: string, prepared: PreparedRun, now: Date, money: MoneyText) {
  const runId = randomUUID();
  const { method, idempotencyKey } = prepared;
  await insertRows(tx, "PayoutRun", [
    {
      id: runId,
      shop,
      method,
      idempotencyKey,
      senderBatchId: runId,
      environment: prepared.environment,
      state: "intent",
      createdAt: now,
      updatedAt: now,
    },
  ]);
  const lines = await reserveSentPayouts(
    tx,
    shop,
    { id: runId, method, reference: runId, idempotencyKey },
    prepared.chosen,
    now,
    money,
  );
  await enqueueNew(tx, [{ shop, kind: "payout-run", subject: runId, runAt: now }], now);
  return { runId, lines: lines.length };
}

export async function startSentRun(
  shop: string,
  method: SentMethod,
  input: unknown,
  now: Date = new Date(),
  money: MoneyText = formatMoney,
): Promise<StartRunResult> {
  const prepared = await prepareSentRun(shop, method, input);
  if ("found" in prepared) return prepared.found;
  if ("refused" in prepared) return { ok: false, errors: prepared.refused };
  try {
    const written = await sql.transaction((tx) => writeSentRun(tx, shop, prepared.run, now, money));
    wakeWorker();
    return { ok: true, runId: written.runId, duplicate: false, lines: written.lines };
  } catch (error) {
    const refused = refusalOf(error);
    if (refused) return { ok: false, errors: refused };
    if (isUniqueViolation(error)) {
      const recorded = await findRun(shop, prepared.run.idempotencyKey);
      if (recorded) return recorded;
    }
    throw error;
  }
}
