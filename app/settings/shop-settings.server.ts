import { destinationProblem } from "../click-service";
import { Prisma, type ShopSettings } from "@prisma/client";
import { registerSecret } from "../platform/logger.server";
import { rowsOf, sql, updateRows, updateWhere, upsertRow, type Sql } from "../database/sql.server";
import { parseStoredCreatorRates, type CreatorRates } from "./creator-rates";
import { DEFAULT_SETTINGS } from "./defaults";
import type { OrderValueBasis } from "./order-value-basis";
import { seal, SealError, unseal } from "../platform/sealing.server";
import { serviceDestinations } from "./service-destinations.server";
import { SettingsInput, type ValidSettings } from "./settings-schema";
import { ShopSettings as ShopSettingsTable } from "../database/tables";

// The API key is sealed bound to the shop and to the origin (scheme, host, port) of the service
// URL it was saved with, and is only ever unsealed for that origin: a new service URL elsewhere
// needs the key typed again, or a stored key could be sent to any server the form names.

/** Settings as the browser may see them: the key only as its last four characters. */
export interface PublicSettings {
  clickServiceUrl: string;
  apiKeyLast4: string;
  tagParams: string[];
  hijackTag: string;
  commissionRate: string;
  orderValueBasis: OrderValueBasis;
  autoVerify: boolean;
  attributionWindowDays: number;
  landingLookupsPerHour: number;
  credentialsRejectedAt: Date | null;
  /** The commission ledger's hold, in days after the order. */
  holdDays: number;
  /** Creator id -> percent, overriding commissionRate. */
  creatorRates: CreatorRates;
}

/** Settings as the server uses them, key unsealed. Never return this from a loader. */
export interface ServerSettings extends PublicSettings {
  shop: string;
  apiKey: string;
  uninstalledAt: Date | null;
}

export type SaveResult = { ok: true; settings: PublicSettings } | { ok: false; errors: Record<string, string> };

export async function getPublicSettings(shop: string): Promise<PublicSettings | null> {
  const [row] = await settingsRows(
    Prisma.sql`SELECT * FROM ${ShopSettingsTable} WHERE ${ShopSettingsTable.shop} = ${shop}`,
  );
  return row ? toPublic(row) : null;
}

/**
 * The settings with the key unsealed for the origin of the stored service URL. Throws SealError
 * when the key cannot be opened: sealed under a key no longer configured, tampered with, or
 * saved for another origin than the stored URL's.
 */
export async function getServerSettings(shop: string, db: Sql = sql): Promise<ServerSettings | null> {
  serviceDestinations();
  // Raw: the worker reads it for every order (docs/lab/throughput-notes.md,
  // "Per-order statements on the driver (decision 016)").
  const [row] = await settingsRows(
    Prisma.sql`SELECT * FROM ${ShopSettingsTable} WHERE ${ShopSettingsTable.shop} = ${shop}`,
    db,
  );
  if (!row) return null;
  const origin = serviceOrigin(row.clickServiceUrl);
  if (origin === null || (row.apiKeyOrigin !== null && row.apiKeyOrigin !== origin))
    throw new SealError("the stored API key was saved for another service address; enter it again in Settings");
  // A key sealed before keys were bound to an origin (apiKeyOrigin null) is bound now to the
  // origin it has been sent to all along: the stored URL's.
  const legacy = row.apiKeyOrigin === null;
  const { plaintext, stale } = unseal(row.apiKeySealed, legacy ? shop : apiKeyBinding(shop, origin));
  registerSecret(plaintext);
  if (stale || legacy) {
    // Conditional: a key or URL saved meanwhile is not overwritten by this re-seal.
    await updateWhere(
      sql,
      "ShopSettings",
      Prisma.sql`${ShopSettingsTable.shop} = ${shop} AND ${ShopSettingsTable.apiKeySealed} = ${row.apiKeySealed} AND ${ShopSettingsTable.clickServiceUrl} = ${row.clickServiceUrl}`,
      { apiKeySealed: seal(plaintext, apiKeyBinding(shop, origin)), apiKeyOrigin: origin, updatedAt: new Date() },
    );
  }
  return { ...toPublic(row), shop, apiKey: plaintext, uninstalledAt: row.uninstalledAt };
}

/** scheme://host[:port] of a service URL, as the key is bound to it; null when it is no URL. */
export function serviceOrigin(url: string): string | null {
  return URL.canParse(url) ? new URL(url).origin : null;
}

/** The origin the stored key may be sent to, or null when no key is stored. */
export async function storedKeyOrigin(shop: string): Promise<string | null> {
  const [row] = await sql.rows<{ clickServiceUrl: string; apiKeyOrigin: string | null }>(
    Prisma.sql`SELECT ${ShopSettingsTable.clickServiceUrl}, ${ShopSettingsTable.apiKeyOrigin} FROM ${ShopSettingsTable} WHERE ${ShopSettingsTable.shop} = ${shop}`,
  );
  return row ? (row.apiKeyOrigin ?? serviceOrigin(row.clickServiceUrl)) : null;
}

export function keyNeededForOrigin(origin: string): string {
  return `enter the API key again: the stored key is only sent to ${origin}, where it was saved`;
}

function apiKeyBinding(shop: string, origin: string): string {
  return `click-service-api-key\n${shop}\n${origin}`;
}

export async function saveSettings(shop: string, input: unknown): Promise<SaveResult> {
  const parsed = SettingsInput.safeParse(input);
  const keyOrigin = await storedKeyOrigin(shop);
  const errors: Record<string, string> = {};
  if (!parsed.success) {
    for (const issue of parsed.error.issues) errors[String(issue.path[0] ?? "form")] ??= issue.message;
  } else {
    const url = new URL(parsed.data.clickServiceUrl);
    const refused = destinationProblem(url, serviceDestinations());
    if (refused) errors.clickServiceUrl = refused;
    if (!parsed.data.apiKey && keyOrigin === null)
      errors.apiKey = "enter the API key the Click Verification Service gave you";
    else if (!parsed.data.apiKey && keyOrigin !== null && keyOrigin !== url.origin)
      errors.apiKey = keyNeededForOrigin(keyOrigin);
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
    ...(valid.attributionWindowDays !== undefined && { attributionWindowDays: valid.attributionWindowDays }),
    ...(valid.landingLookupsPerHour !== undefined && { landingLookupsPerHour: valid.landingLookupsPerHour }),
    ...(valid.holdDays !== undefined && { holdDays: valid.holdDays }),
    ...(valid.creatorRates !== undefined && { creatorRates: JSON.stringify(valid.creatorRates) }),
  };
  const now = new Date();
  let row;
  if (valid.apiKey) {
    registerSecret(valid.apiKey);
    const origin = new URL(valid.clickServiceUrl).origin;
    const key = {
      apiKeySealed: seal(valid.apiKey, apiKeyBinding(shop, origin)),
      apiKeyOrigin: origin,
      apiKeyLast4: valid.apiKey.slice(-4),
      credentialsRejectedAt: null,
    };
    const data = { ...fields, ...key };
    // Columns left out keep what is stored, or take the table's defaults on a new row.
    row = await upsertRow<ShopSettings, "ShopSettings">(
      sql,
      "ShopSettings",
      ["shop"],
      { shop, ...data, createdAt: now, updatedAt: now },
      [...(Object.keys(data) as (keyof typeof data)[]), "updatedAt"],
    );
  } else {
    [row] = await updateRows<ShopSettings>(sql, "ShopSettings", Prisma.sql`${ShopSettingsTable.shop} = ${shop}`, {
      ...fields,
      updatedAt: now,
    });
    // Only a shop with a stored key gets here: its row went between the two statements (shop/redact).
    if (!row) throw new Error(`no settings to update for ${shop}`);
  }
  return { ok: true, settings: toPublic(row) };
}

/** `db`: the order's fenced transaction, when the flag goes with the order's own write. */
export async function flagCredentialsRejected(shop: string, at: Date, db: Sql = sql): Promise<void> {
  await updateWhere(
    db,
    "ShopSettings",
    Prisma.sql`${ShopSettingsTable.shop} = ${shop} AND ${ShopSettingsTable.credentialsRejectedAt} IS NULL`,
    {
      credentialsRejectedAt: at,
      updatedAt: new Date(),
    },
  );
}

async function settingsRows(query: Prisma.Sql, db: Sql = sql): Promise<ShopSettings[]> {
  return await rowsOf<ShopSettings>(db, "ShopSettings", query);
}

function toPublic(row: {
  clickServiceUrl: string;
  apiKeyLast4: string;
  tagParams: string;
  hijackTag: string;
  commissionRate: string;
  orderValueBasis: string;
  autoVerify: boolean;
  attributionWindowDays: number;
  landingLookupsPerHour: number;
  credentialsRejectedAt: Date | null;
  holdDays: number;
  creatorRates: string;
}): PublicSettings {
  return {
    clickServiceUrl: row.clickServiceUrl,
    apiKeyLast4: row.apiKeyLast4,
    tagParams: parseTagParams(row.tagParams),
    hijackTag: row.hijackTag,
    commissionRate: row.commissionRate,
    orderValueBasis: row.orderValueBasis as OrderValueBasis,
    autoVerify: row.autoVerify,
    attributionWindowDays: row.attributionWindowDays,
    landingLookupsPerHour: row.landingLookupsPerHour,
    credentialsRejectedAt: row.credentialsRejectedAt,
    holdDays: row.holdDays,
    creatorRates: parseStoredCreatorRates(row.creatorRates),
  };
}

function parseTagParams(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    if (Array.isArray(value) && value.every((v) => typeof v === "string") && value.length > 0) return value;
  } catch {
    // fall through to the default
  }
  return [...DEFAULT_SETTINGS.tagParams];
}

/** The shop's commission rates (no key unsealed), read in the caller's transaction; null: no settings saved. */
export async function shopRates(
  tx: Sql,
  shop: string,
): Promise<{ commissionRate: string; creatorRates: CreatorRates } | null> {
  const [row] = await tx.rows<{ commissionRate: string; creatorRates: string }>(Prisma.sql`
    SELECT ${ShopSettingsTable.columns("commissionRate", "creatorRates")} FROM ${ShopSettingsTable}
    WHERE ${ShopSettingsTable.shop} = ${shop}`);
  return row ? { commissionRate: row.commissionRate, creatorRates: parseStoredCreatorRates(row.creatorRates) } : null;
}
