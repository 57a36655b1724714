import prisma from "../db.server";
import { registerSecret } from "../logger.server";
import type { OrderValueBasis } from "./order-value-basis";
import { seal, unseal } from "./sealing.server";
import { SettingsInput, type ValidSettings } from "./settings-schema";

/** Settings as the browser may see them: the key only as its last four characters. */
export interface PublicSettings {
  clickServiceUrl: string;
  apiKeyLast4: string;
  tagParams: string[];
  hijackTag: string;
  commissionRate: string;
  orderValueBasis: OrderValueBasis;
  autoVerify: boolean;
  credentialsRejectedAt: Date | null;
}

/** Settings as the server uses them, key unsealed. Never return this from a loader. */
export interface ServerSettings extends PublicSettings {
  shop: string;
  apiKey: string;
  uninstalledAt: Date | null;
}

export type SaveResult = { ok: true; settings: PublicSettings } | { ok: false; errors: Record<string, string> };

export async function getPublicSettings(shop: string): Promise<PublicSettings | null> {
  const row = await prisma.shopSettings.findUnique({ where: { shop } });
  return row ? toPublic(row) : null;
}

export async function getServerSettings(shop: string): Promise<ServerSettings | null> {
  const row = await prisma.shopSettings.findUnique({ where: { shop } });
  if (!row) return null;
  const { plaintext, stale } = unseal(row.apiKeySealed, shop);
  registerSecret(plaintext);
  if (stale) await prisma.shopSettings.update({ where: { shop }, data: { apiKeySealed: seal(plaintext, shop) } });
  return { ...toPublic(row), shop, apiKey: plaintext, uninstalledAt: row.uninstalledAt };
}

export async function saveSettings(shop: string, input: unknown): Promise<SaveResult> {
  const parsed = SettingsInput.safeParse(input);
  const existing = await prisma.shopSettings.findUnique({ where: { shop }, select: { shop: true } });
  const errors: Record<string, string> = {};
  if (!parsed.success) {
    for (const issue of parsed.error.issues) errors[String(issue.path[0] ?? "form")] ??= issue.message;
  } else if (!parsed.data.apiKey && !existing) {
    errors.apiKey = "enter the API key the Click Verification Service gave you";
  }
  if (!parsed.success || Object.keys(errors).length > 0) return { ok: false, errors };

  const valid: ValidSettings = parsed.data;
  const fields = {
    clickServiceUrl: valid.clickServiceUrl,
    tagParams: JSON.stringify(valid.tagParams),
    hijackTag: valid.hijackTag,
    commissionRate: valid.commissionRate,
    orderValueBasis: valid.orderValueBasis,
    autoVerify: valid.autoVerify,
  };
  let row;
  if (valid.apiKey) {
    registerSecret(valid.apiKey);
    const key = {
      apiKeySealed: seal(valid.apiKey, shop),
      apiKeyLast4: valid.apiKey.slice(-4),
      credentialsRejectedAt: null,
    };
    row = await prisma.shopSettings.upsert({
      where: { shop },
      create: { shop, ...fields, ...key },
      update: { ...fields, ...key },
    });
  } else {
    row = await prisma.shopSettings.update({ where: { shop }, data: fields });
  }
  return { ok: true, settings: toPublic(row) };
}

export async function flagCredentialsRejected(shop: string, at: Date): Promise<void> {
  await prisma.shopSettings.updateMany({
    where: { shop, credentialsRejectedAt: null },
    data: { credentialsRejectedAt: at },
  });
}

function toPublic(row: {
  clickServiceUrl: string;
  apiKeyLast4: string;
  tagParams: string;
  hijackTag: string;
  commissionRate: string;
  orderValueBasis: string;
  autoVerify: boolean;
  credentialsRejectedAt: Date | null;
}): PublicSettings {
  return {
    clickServiceUrl: row.clickServiceUrl,
    apiKeyLast4: row.apiKeyLast4,
    tagParams: parseTagParams(row.tagParams),
    hijackTag: row.hijackTag,
    commissionRate: row.commissionRate,
    orderValueBasis: row.orderValueBasis as OrderValueBasis,
    autoVerify: row.autoVerify,
    credentialsRejectedAt: row.credentialsRejectedAt,
  };
}

function parseTagParams(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    if (Array.isArray(value) && value.every((v) => typeof v === "string") && value.length > 0) return value;
  } catch {
    // fall through to the default
  }
  return ["tag"];
}
