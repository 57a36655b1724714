import { Prisma, type PayoutSettings } from "@prisma/client";
import { z } from "zod";
import { deleteWhere, rowsOf, sql, upsertRow } from "../database/sql.server";
import { CreatorPayoutMethod, PayoutSettings as PayoutSettingsTable } from "../database/tables";
import { t } from "../i18n";
import { registerSecret } from "../platform/logger.server";
import { seal, SealError, unseal } from "../platform/sealing.server";
import type { PaypalCredentials } from "../paypal/client.server";
import { isPaypalEnvironment, paypalOrigin, type PaypalEnvironment } from "../paypal/environments.server";
import { isPayoutMethod, type PayoutMethod } from "./methods";

// A shop's payout methods and its PayPal credentials. The client id and secret are sealed
// together, as the click-service key is (decision 005): bound to the shop and to the API origin
// of the environment they were saved for, opened only to be sent there, registered with the
// logger's redaction once opened; the browser only ever sees their last four characters.

export interface PublicPayoutSettings {
  defaultMethod: PayoutMethod;
  /** Store credit and gift cards: a creator with no customer account gets one (write_customers). */
  createCustomers: boolean;
  paypal: {
    environment: PaypalEnvironment;
    saved: boolean;
    clientIdLast4: string;
    secretLast4: string;
    webhookId: string;
  };
  /** Creator id -> the method chosen for them (creators on the shop's default are absent). */
  creatorMethods: Record<string, PayoutMethod>;
}

export interface PaypalAccount {
  environment: PaypalEnvironment;
  origin: string;
  credentials: PaypalCredentials;
  webhookId: string;
}

const binding = (shop: string, environment: PaypalEnvironment, origin: string) =>
  `paypal-credentials\n${shop}\n${environment}\n${origin}`;

async function settingsRow(shop: string): Promise<PayoutSettings | null> {
  const [row] = await rowsOf<PayoutSettings>(
    sql,
    "PayoutSettings",
    Prisma.sql`SELECT * FROM ${PayoutSettingsTable} WHERE ${PayoutSettingsTable.shop} = ${shop}`,
  );
  return row ?? null;
}

export async function payoutSettings(shop: string): Promise<PublicPayoutSettings> {
  const [row, methods] = await Promise.all([
    settingsRow(shop),
    sql.rows<{ creatorId: string; method: string }>(Prisma.sql`
      SELECT ${CreatorPayoutMethod.columns("creatorId", "method")} FROM ${CreatorPayoutMethod} WHERE ${CreatorPayoutMethod.shop} = ${shop}`),
  ]);
  const environment = row && isPaypalEnvironment(row.paypalEnvironment) ? row.paypalEnvironment : "sandbox";
  return {
    defaultMethod: row && isPayoutMethod(row.defaultMethod) ? row.defaultMethod : "manual",
    createCustomers: row?.createCustomers ?? false,
    paypal: {
      environment,
      saved: row?.paypalCredentials != null,
      clientIdLast4: row?.paypalClientIdLast4 ?? "",
      secretLast4: row?.paypalSecretLast4 ?? "",
      webhookId: row?.paypalWebhookId ?? "",
    },
    creatorMethods: Object.fromEntries(
      methods.flatMap((m) => (isPayoutMethod(m.method) ? [[m.creatorId, m.method] as const] : [])),
    ),
  };
}

/**
 * The shop's PayPal account, its credentials opened for the origin they were saved for; null
 * when none is saved. Throws SealError when they cannot be opened, or were saved for another origin.
 */
export async function paypalAccount(shop: string): Promise<PaypalAccount | null> {
  const row = await settingsRow(shop);
  if (!row?.paypalCredentials || !row.paypalOrigin) return null;
  if (!isPaypalEnvironment(row.paypalEnvironment)) throw new SealError("unknown PayPal environment");
  const origin = paypalOrigin(row.paypalEnvironment);
  if (origin !== row.paypalOrigin) throw new SealError(t("payouts.paypal.otherOrigin"));
  const opened = JSON.parse(
    unseal(row.paypalCredentials, binding(shop, row.paypalEnvironment, origin)).plaintext,
  ) as PaypalCredentials;
  registerSecret(opened.secret);
  return { environment: row.paypalEnvironment, origin, credentials: opened, webhookId: row.paypalWebhookId };
}

const Token = z
  .string()
  .trim()
  .max(200, { error: () => t("payouts.paypal.tooLong") })
  .regex(/^[\x21-\x7e]*$/, { error: () => t("payouts.paypal.badCharacters") });

const PaypalForm = z.object({
  environment: z.string().refine(isPaypalEnvironment, { error: () => t("payouts.paypal.environmentMissing") }),
  clientId: Token,
  secret: Token,
  webhookId: Token,
});

export type SavePayoutSettingsResult = { ok: true } | { ok: false; errors: Record<string, string> };

/**
 * Saves the PayPal account. A blank client id and secret keep the stored ones, but only for the
 * environment they were saved for: another environment's origin needs them typed again.
 */
export async function savePaypalAccount(
  shop: string,
  input: unknown,
  now = new Date(),
): Promise<SavePayoutSettingsResult> {
  const parsed = PaypalForm.safeParse(input);
  if (!parsed.success) {
    const errors: Record<string, string> = {};
    for (const issue of parsed.error.issues) errors[String(issue.path[0] ?? "form")] ??= issue.message;
    return { ok: false, errors };
  }
  const { clientId, secret, webhookId } = parsed.data;
  const environment = parsed.data.environment as PaypalEnvironment;
  const origin = paypalOrigin(environment);
  const row = await settingsRow(shop);
  const keep = !clientId && !secret;
  if (keep && (!row?.paypalCredentials || row.paypalOrigin !== origin || row.paypalEnvironment !== environment))
    return { ok: false, errors: { secret: t("payouts.paypal.credentialsNeeded") } };
  if (!keep && (!clientId || !secret))
    return { ok: false, errors: { [clientId ? "secret" : "clientId"]: t("payouts.paypal.bothNeeded") } };
  if (!keep) registerSecret(secret);
  const sealed = keep
    ? {}
    : {
        paypalCredentials: seal(JSON.stringify({ clientId, secret }), binding(shop, environment, origin)),
        paypalOrigin: origin,
        paypalClientIdLast4: clientId.slice(-4),
        paypalSecretLast4: secret.slice(-4),
      };
  const data = { paypalEnvironment: environment, paypalWebhookId: webhookId, ...sealed, updatedAt: now };
  await upsertRow(sql, "PayoutSettings", ["shop"], { shop, ...data }, Object.keys(data) as (keyof typeof data)[]);
  return { ok: true };
}

/**
 * The shop's default method, or one creator's ("default": back to the shop's). With the shop's
 * default, `createCustomers` ("on"/"off", absent: unchanged) says whether store credit and gift
 * cards create a customer account for a creator who has none.
 */
export async function saveMethod(
  shop: string,
  input: { creatorId: string; method: string; createCustomers?: string },
  now = new Date(),
): Promise<SavePayoutSettingsResult> {
  const creatorId = input.creatorId.trim();
  if (creatorId.length > 200) return { ok: false, errors: { method: t("payouts.methods.unknownCreator") } };
  if (!isPayoutMethod(input.method) && !(creatorId && input.method === "default"))
    return { ok: false, errors: { method: t("payouts.methods.unknown") } };
  if (!creatorId) {
    const create = input.createCustomers === "on" || input.createCustomers === "off";
    const row = { shop, defaultMethod: input.method, createCustomers: input.createCustomers === "on", updatedAt: now };
    const columns = create
      ? (["defaultMethod", "createCustomers", "updatedAt"] as const)
      : (["defaultMethod", "updatedAt"] as const);
    await upsertRow(sql, "PayoutSettings", ["shop"], row, [...columns]);
    return { ok: true };
  }
  const mine = Prisma.sql`${CreatorPayoutMethod.shop} = ${shop} AND ${CreatorPayoutMethod.creatorId} = ${creatorId}`;
  if (input.method === "default") await deleteWhere(sql, "CreatorPayoutMethod", mine);
  else
    await upsertRow(
      sql,
      "CreatorPayoutMethod",
      ["shop", "creatorId"],
      { shop, creatorId, method: input.method, updatedAt: now },
      ["method", "updatedAt"],
    );
  return { ok: true };
}
