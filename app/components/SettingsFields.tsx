import { Button, Checkbox, FormLayout, InlineStack, Select, Text, TextField } from "@shopify/polaris";
import { t } from "../i18n";
import { settingsFieldId as fieldId, type SettingsFormValues } from "../settings/form-values";
import type { ConnectionResult } from "../settings/test-connection.server";
import { SectionCard } from "./SectionCard";

// The Settings form's sections: the Click Verification Service (with Test connection), tracking,
// commission, the landing record and the ledger. Each field carries its error from a refused
// save beside it; the page holds the values.

const BASIS_OPTIONS = [
  { label: t("settings.basisAfter"), value: "subtotal_after_discounts" },
  { label: t("settings.basisBefore"), value: "subtotal_before_discounts" },
  { label: t("settings.basisTotal"), value: "total_price" },
];

function connectionMessage(result: ConnectionResult): { tone: "success" | "critical" | "warning"; text: string } {
  switch (result.status) {
    case "connected":
      return { tone: "success", text: t("settings.testConnected") };
    case "rejected":
      return { tone: "critical", text: t("settings.testRejected") };
    case "unreachable":
      return { tone: "warning", text: t("settings.testUnreachable", { message: result.message }) };
    case "invalid":
      return { tone: "warning", text: t("settings.testInvalidUrl", { message: result.message }) };
    case "incomplete":
      if (result.field === "clickServiceUrl") return { tone: "warning", text: t("settings.testIncompleteUrl") };
      if (result.reason === "new-origin") return { tone: "warning", text: t("settings.testKeyNewOrigin") };
      if (result.reason === "unreadable") return { tone: "warning", text: t("settings.testKeyUnreadable") };
      return { tone: "warning", text: t("settings.testIncompleteKey") };
  }
}

/** Test connection's answer about the key, shown under the key field as well. */
function keyFieldMessage(result: ConnectionResult | undefined): string | undefined {
  if (result?.status !== "incomplete" || result.field !== "apiKey" || !result.reason) return undefined;
  return connectionMessage(result).text;
}

export function SettingsFields({
  values,
  set,
  errors,
  last4,
  testResult,
  testing,
  onTest,
}: {
  values: SettingsFormValues;
  /** The change handler of one field. */
  set<K extends keyof SettingsFormValues>(name: K): (value: SettingsFormValues[K]) => void;
  errors: Partial<Record<string, string>>;
  /** The stored key's last four characters, when a key is stored. */
  last4: string | undefined;
  /** Test connection's answer, once it has one. */
  testResult: ConnectionResult | undefined;
  testing: boolean;
  onTest(): void;
}) {
  const connection = testResult ? connectionMessage(testResult) : null;
  const keyTestMessage = keyFieldMessage(testResult);
  return (
    <>
      <SectionCard title={t("settings.serviceSection")} gap="300">
        <FormLayout>
          <TextField
            label={t("settings.serviceUrl")}
            name="clickServiceUrl"
            value={values.clickServiceUrl}
            onChange={set("clickServiceUrl")}
            id={fieldId("clickServiceUrl")}
            autoComplete="url"
            helpText={t("settings.serviceUrlHelp")}
            error={errors.clickServiceUrl}
          />
          <TextField
            label={t("settings.apiKey")}
            name="apiKey"
            type="password"
            value={values.apiKey}
            onChange={set("apiKey")}
            id={fieldId("apiKey")}
            autoComplete="off"
            helpText={last4 ? t("settings.apiKeyHelpStored", { masked: `••••${last4}` }) : t("settings.apiKeyHelpNew")}
            error={errors.apiKey ?? keyTestMessage}
          />
          <InlineStack gap="300" blockAlign="center">
            <Button onClick={onTest} loading={testing}>
              {t("settings.testConnection")}
            </Button>
            {connection ? (
              <div role="status" data-testid="connection-result">
                <Text as="span" tone={connection.tone === "success" ? "success" : "critical"}>
                  {connection.text}
                </Text>
              </div>
            ) : null}
          </InlineStack>
        </FormLayout>
      </SectionCard>
      <SectionCard title={t("settings.trackingSection")} gap="300">
        <FormLayout>
          <TextField
            label={t("settings.tagParams")}
            name="tagParams"
            value={values.tagParams}
            onChange={set("tagParams")}
            id={fieldId("tagParams")}
            autoComplete="off"
            helpText={t("settings.tagParamsHelp")}
            error={errors.tagParams}
          />
          <TextField
            label={t("settings.hijackTag")}
            name="hijackTag"
            value={values.hijackTag}
            onChange={set("hijackTag")}
            id={fieldId("hijackTag")}
            autoComplete="off"
            helpText={t("settings.hijackTagHelp")}
            error={errors.hijackTag}
          />
        </FormLayout>
      </SectionCard>
      <SectionCard title={t("settings.commissionSection")} gap="300">
        <FormLayout>
          <TextField
            label={t("settings.commissionRate")}
            name="commissionRate"
            value={values.commissionRate}
            onChange={set("commissionRate")}
            id={fieldId("commissionRate")}
            suffix="%"
            inputMode="decimal"
            autoComplete="off"
            error={errors.commissionRate}
          />
          <Select
            label={t("settings.orderValueBasis")}
            name="orderValueBasis"
            options={BASIS_OPTIONS}
            value={values.orderValueBasis}
            onChange={set("orderValueBasis")}
            id={fieldId("orderValueBasis")}
            error={errors.orderValueBasis}
          />
          <Checkbox
            label={t("settings.autoVerify")}
            helpText={t("settings.autoVerifyHelp")}
            checked={values.autoVerify}
            onChange={set("autoVerify")}
            id={fieldId("autoVerify")}
            error={errors.autoVerify}
          />
        </FormLayout>
      </SectionCard>
      <SectionCard title={t("settings.landingSection")} gap="300">
        <Text as="p" tone="subdued">
          {t("settings.landingHelp")}
        </Text>
        <FormLayout>
          <FormLayout.Group>
            <TextField
              label={t("settings.attributionWindowDays")}
              helpText={t("settings.attributionWindowDaysHelp")}
              name="attributionWindowDays"
              value={values.attributionWindowDays}
              onChange={set("attributionWindowDays")}
              id={fieldId("attributionWindowDays")}
              suffix={t("settings.days")}
              inputMode="numeric"
              autoComplete="off"
              error={errors.attributionWindowDays}
            />
            <TextField
              label={t("settings.landingLookupsPerHour")}
              helpText={t("settings.landingLookupsPerHourHelp")}
              name="landingLookupsPerHour"
              value={values.landingLookupsPerHour}
              onChange={set("landingLookupsPerHour")}
              id={fieldId("landingLookupsPerHour")}
              inputMode="numeric"
              autoComplete="off"
              error={errors.landingLookupsPerHour}
            />
          </FormLayout.Group>
        </FormLayout>
      </SectionCard>
      <SectionCard title={t("settings.ledgerSection")} gap="300">
        <FormLayout>
          <TextField
            label={t("settings.holdDays")}
            name="holdDays"
            value={values.holdDays}
            onChange={set("holdDays")}
            id={fieldId("holdDays")}
            suffix={t("settings.holdDaysSuffix")}
            inputMode="numeric"
            autoComplete="off"
            helpText={t("settings.holdDaysHelp")}
            error={errors.holdDays}
          />
          <TextField
            label={t("settings.creatorRates")}
            name="creatorRates"
            value={values.creatorRates}
            onChange={set("creatorRates")}
            id={fieldId("creatorRates")}
            multiline={4}
            autoComplete="off"
            placeholder="cr_alice = 12.5"
            helpText={t("settings.creatorRatesHelp")}
            error={errors.creatorRates}
          />
        </FormLayout>
      </SectionCard>
    </>
  );
}
