import {
  Button,
  Checkbox,
  FormLayout,
  InlineStack,
  Select,
  Text,
  TextField,
  type TextFieldProps,
} from "@shopify/polaris";
import { t } from "../i18n";
import { settingsFieldId as fieldId, type SettingsFormValues } from "../settings/form-values";
import type { ConnectionResult } from "../settings/test-connection.server";
import { SectionCard } from "./SectionCard";

// The Settings form's sections: the Click Verification Service (with Test connection), tracking,
// commission, the landing record and the ledger. Each field carries its error from a refused
// save beside it; the page holds the values.

// A function, not a constant: the labels are read in the page's language, not at module load.
const basisOptions = () => [
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

/** What binds a field to the form: its value, its change handler and its error, all by its name. */
interface FormBinding {
  values: SettingsFormValues;
  set<K extends keyof SettingsFormValues>(name: K): (value: SettingsFormValues[K]) => void;
  errors: Partial<Record<string, string>>;
}

type TextFieldName = {
  [K in keyof SettingsFormValues]: SettingsFormValues[K] extends string ? K : never;
}[keyof SettingsFormValues];

/** A text field of the form, bound by its name; the browser completes none unless asked. */
function FormTextField({
  form,
  name,
  autoComplete = "off",
  ...props
}: { form: FormBinding; name: TextFieldName; autoComplete?: string } & Omit<
  TextFieldProps,
  "name" | "value" | "onChange" | "id" | "error" | "autoComplete"
>) {
  return (
    <TextField
      {...props}
      name={name}
      value={form.values[name]}
      onChange={form.set(name)}
      id={fieldId(name)}
      autoComplete={autoComplete}
      error={form.errors[name]}
    />
  );
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
  const form: FormBinding = { values, set, errors };
  const connection = testResult ? connectionMessage(testResult) : null;
  const keyTestMessage = keyFieldMessage(testResult);
  return (
    <>
      <SectionCard title={t("settings.serviceSection")} gap="300">
        <FormLayout>
          <FormTextField
            form={form}
            name="clickServiceUrl"
            label={t("settings.serviceUrl")}
            autoComplete="url"
            helpText={t("settings.serviceUrlHelp")}
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
          <FormTextField
            form={form}
            name="tagParams"
            label={t("settings.tagParams")}
            helpText={t("settings.tagParamsHelp")}
          />
          <FormTextField
            form={form}
            name="hijackTag"
            label={t("settings.hijackTag")}
            helpText={t("settings.hijackTagHelp")}
          />
        </FormLayout>
      </SectionCard>
      <SectionCard title={t("settings.commissionSection")} gap="300">
        <FormLayout>
          <FormTextField
            form={form}
            name="commissionRate"
            label={t("settings.commissionRate")}
            suffix="%"
            inputMode="decimal"
          />
          <Select
            label={t("settings.orderValueBasis")}
            name="orderValueBasis"
            options={basisOptions()}
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
            <FormTextField
              form={form}
              name="attributionWindowDays"
              label={t("settings.attributionWindowDays")}
              helpText={t("settings.attributionWindowDaysHelp")}
              suffix={t("settings.days")}
              inputMode="numeric"
            />
            <FormTextField
              form={form}
              name="landingLookupsPerHour"
              label={t("settings.landingLookupsPerHour")}
              helpText={t("settings.landingLookupsPerHourHelp")}
              inputMode="numeric"
            />
          </FormLayout.Group>
        </FormLayout>
      </SectionCard>
      <SectionCard title={t("settings.ledgerSection")} gap="300">
        <FormLayout>
          <FormTextField
            form={form}
            name="holdDays"
            label={t("settings.holdDays")}
            suffix={t("settings.holdDaysSuffix")}
            inputMode="numeric"
            helpText={t("settings.holdDaysHelp")}
          />
          <FormTextField
            form={form}
            name="creatorRates"
            label={t("settings.creatorRates")}
            multiline={4}
            placeholder="cr_alice = 12.5"
            helpText={t("settings.creatorRatesHelp")}
          />
        </FormLayout>
      </SectionCard>
    </>
  );
}
