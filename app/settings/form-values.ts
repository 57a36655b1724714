import { shownNumber } from "../i18n/typed-numbers";
import { formatCreatorRatesText } from "./creator-rates";
import { DEFAULT_SETTINGS } from "./defaults";
import type { PublicSettings } from "./shop-settings.server";

// The Settings form's fields as the inputs hold them (text, and a box for automatic
// verification): from the stored settings, or the defaults before any are saved.

/** The form's fields as text, the way the inputs hold them; the key field always starts empty. */
export function settingsFormValues(
  settings: Omit<PublicSettings, "credentialsRejectedAt" | "apiKeyLast4"> | null | undefined,
) {
  return {
    clickServiceUrl: settings?.clickServiceUrl ?? "",
    apiKey: "",
    tagParams: (settings?.tagParams ?? DEFAULT_SETTINGS.tagParams).join(", "),
    hijackTag: settings?.hijackTag ?? DEFAULT_SETTINGS.hijackTag,
    // Rates in the merchant's own decimal mark ("7,5" in German): they are read back as typed.
    commissionRate: shownNumber(settings?.commissionRate ?? DEFAULT_SETTINGS.commissionRate),
    orderValueBasis: (settings?.orderValueBasis ?? DEFAULT_SETTINGS.orderValueBasis) as string,
    autoVerify: settings?.autoVerify ?? DEFAULT_SETTINGS.autoVerify,
    attributionWindowDays: String(settings?.attributionWindowDays ?? DEFAULT_SETTINGS.attributionWindowDays),
    landingLookupsPerHour: String(settings?.landingLookupsPerHour ?? DEFAULT_SETTINGS.landingLookupsPerHour),
    holdDays: String(settings?.holdDays ?? DEFAULT_SETTINGS.holdDays),
    creatorRates: formatCreatorRatesText(
      Object.fromEntries(
        Object.entries(settings?.creatorRates ?? DEFAULT_SETTINGS.creatorRates).map(([id, rate]) => [
          id,
          shownNumber(rate),
        ]),
      ),
    ),
  };
}

export type SettingsFormValues = ReturnType<typeof settingsFormValues>;
export type SettingsFieldName = keyof SettingsFormValues;

/** Each field's label (a key of en.json), in the order the form shows them: the error banner lists them so. */
export const SETTINGS_FIELD_LABELS: [SettingsFieldName, string][] = [
  ["clickServiceUrl", "settings.serviceUrl"],
  ["apiKey", "settings.apiKey"],
  ["tagParams", "settings.tagParams"],
  ["hijackTag", "settings.hijackTag"],
  ["commissionRate", "settings.commissionRate"],
  ["orderValueBasis", "settings.orderValueBasis"],
  ["autoVerify", "settings.autoVerify"],
  ["attributionWindowDays", "settings.attributionWindowDays"],
  ["landingLookupsPerHour", "settings.landingLookupsPerHour"],
  ["holdDays", "settings.holdDays"],
  ["creatorRates", "settings.creatorRates"],
];

/** The input's id, which the error banner's links focus. */
export const settingsFieldId = (name: string) => `settings-field-${name}`;
