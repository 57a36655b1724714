import { typedNumber } from "../i18n/typed-numbers";
import { logger } from "../platform/logger.server";
import { writeStorefrontConfig, type AdminGraphql } from "../shopify-admin/orders.server";
import { connectWebPixel } from "../shopify-admin/web-pixel.server";
import { sql } from "../database/sql.server";
import { unpark } from "../queue/queue.server";
import { wakeWorker } from "../queue/wake.server";
import { parseCreatorRatesText, type CreatorRates } from "./creator-rates";
import { saveSettings, type PublicSettings } from "./shop-settings.server";
import { DEFAULT_SETTINGS } from "./defaults";

// What "Save" on the settings page does, in order: validate and save (nothing is saved when a
// field is wrong), give orders parked for a rejected key another go when a new key arrived,
// then publish the tag parameter names to the storefront. The storefront push is a side
// effect the save does not depend on: its failure is reported, not rolled back.

export type ApplySettingsResult =
  | { ok: false; errors: Record<string, string> }
  | { ok: true; settings: PublicSettings; requeued: number; storefront: { ok: true } | { ok: false; message: string } };

/** The settings form as the schema expects it. Empty key = keep the stored key. */
export function settingsInputFromForm(form: FormData) {
  const text = (name: string) => formText(form, name);
  const tagParams = (text("tagParams") ?? "")
    .split(/[\s,]+/)
    .map((name) => name.trim())
    .filter(Boolean);
  const apiKey = text("apiKey")?.trim();
  return {
    clickServiceUrl: text("clickServiceUrl") ?? "",
    ...(apiKey ? { apiKey } : {}),
    tagParams,
    hijackTag: text("hijackTag") ?? "",
    commissionRate: typedRate(text("commissionRate") ?? ""),
    orderValueBasis: text("orderValueBasis") ?? DEFAULT_SETTINGS.orderValueBasis,
    autoVerify: ["true", "on", "1"].includes(text("autoVerify") ?? ""),
    // Absent (a form without the landing section) keeps what is stored; blank is an error to show.
    attributionWindowDays: text("attributionWindowDays")?.trim(),
    landingLookupsPerHour: text("landingLookupsPerHour")?.trim(),
    ...ledgerFields(text("holdDays"), text("creatorRates")),
  };
}

/** The ledger's fields; a field the form did not send keeps what is stored. */
function ledgerFields(holdDays: string | undefined, creatorRates: string | undefined) {
  return {
    ...(holdDays !== undefined && { holdDays: /^\s*\d{1,4}\s*$/.test(holdDays) ? Number(holdDays) : Number.NaN }),
    ...(creatorRates !== undefined && { creatorRates: typedRates(parseCreatorRatesText(creatorRates)) }),
  };
}

/** A text field of the form, undefined when it was not sent. */
function formText(form: FormData, name: string): string | undefined {
  const value = form.get(name);
  return typeof value === "string" ? value : undefined;
}

/** A rate as the merchant's locale writes it ("7,5 %" in German), its percent sign allowed. */
function readRate(typed: string) {
  return typedNumber(typed.replace(/\s*%$/, ""));
}

/** A rate as decimal text; as typed when no number. */
function typedRate(typed: string): string {
  const read = readRate(typed);
  return read.ok ? read.value : typed.trim();
}

function typedRates(rates: CreatorRates): CreatorRates {
  const read: CreatorRates = Object.create(null) as CreatorRates;
  for (const [id, rate] of Object.entries(rates)) read[id] = typedRate(rate);
  return read;
}

/** The rate fields whose number could be read two ways ("1.500"), with a message naming both. */
function ambiguousRates(form: FormData): Record<string, string> {
  const rate = readRate(formText(form, "commissionRate") ?? "");
  if (!rate.ok) return { commissionRate: rate.message };
  for (const [id, text] of Object.entries(parseCreatorRatesText(formText(form, "creatorRates") ?? ""))) {
    const read = typedNumber(text);
    if (!read.ok) return { creatorRates: `${id}: ${read.message}` };
  }
  return {};
}

export async function applySettings(
  shop: string,
  form: FormData,
  graphql: AdminGraphql,
  now: Date = new Date(),
): Promise<ApplySettingsResult> {
  const ambiguous = ambiguousRates(form);
  if (Object.keys(ambiguous).length > 0) return { ok: false, errors: ambiguous };
  const input = settingsInputFromForm(form);
  const saved = await saveSettings(shop, input);
  if (!saved.ok) return { ok: false, errors: saved.errors };

  let requeued = 0;
  if (input.apiKey) {
    // Orders parked because the service rejected the old key go again.
    requeued = await sql.transaction(async (tx) => {
      await unpark(tx, shop, "lookup-click", now);
      return unpark(tx, shop, "verify-order", now);
    });
    if (requeued > 0) wakeWorker();
  }

  let storefront: { ok: true } | { ok: false; message: string };
  try {
    const result = await writeStorefrontConfig(
      graphql,
      { tagParams: saved.settings.tagParams },
      { maxAttempts: 2, maxWaitMs: 2_000 },
    );
    storefront = result.ok ? { ok: true } : { ok: false, message: result.message };
  } catch (error) {
    storefront = { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  if (!storefront.ok)
    logger.warn("settings.storefront_config_not_published", "storefront config not published", {
      shop,
      reason: storefront.message,
    });
  // The pixel reads the same tag parameters from its own settings.
  try {
    const pixel = await connectWebPixel(graphql, saved.settings.tagParams, { maxAttempts: 2, maxWaitMs: 2_000 });
    if (!pixel.connected)
      logger.warn("settings.pixel_settings_not_saved", "web pixel settings not saved", { shop, reason: pixel.message });
  } catch (error) {
    logger.warn("settings.pixel_settings_not_saved", "web pixel settings not saved", {
      shop,
      reason: error instanceof Error ? error.message : String(error),
    });
  }
  return { ok: true, settings: saved.settings, requeued, storefront };
}
