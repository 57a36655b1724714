import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, useActionData, useFetcher, useLoaderData, useNavigation } from "@remix-run/react";
import {
  Banner,
  BlockStack,
  Button,
  Checkbox,
  FormLayout,
  InlineStack,
  Select,
  Text,
  TextField,
} from "@shopify/polaris";
import type { BannerHandles } from "@shopify/polaris";
import { useEffect, useRef, useState } from "react";
import { AdminPage } from "../components/AdminPage";
import { adminMeta } from "../components/documentTitle";
import { PageError } from "../components/PageError";
import { useFocusOnAnswer } from "../components/useFocusOnAnswer";
import { SectionCard } from "../components/SectionCard";
import { formatTime } from "../units/times";
import { t } from "../i18n";
import { applySettings, type ApplySettingsResult } from "../settings/apply-settings.server";
import { formatCreatorRatesText } from "../settings/creator-rates";
import { DEFAULT_SETTINGS } from "../settings/defaults";
import { getPublicSettings } from "../settings/shop-settings.server";
import { testConnection, type ConnectionResult } from "../settings/test-connection.server";
import { authenticate } from "../shopify.server";

// Settings. The API key is write-only: the loader sends its last four characters, the form's
// key field always starts empty, and an empty key on save keeps the stored one.

export const meta = adminMeta(t("settings.title"));

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  return json({ settings: await getPublicSettings(session.shop) });
};

type ActionData = ({ intent: "save" } & ApplySettingsResult) | { intent: "test"; result: ConnectionResult };

export const action = async ({ request }: ActionFunctionArgs) => {
  const { session, admin } = await authenticate.admin(request);
  const form = await request.formData();
  if (form.get("intent") === "test") {
    const result = await testConnection(session.shop, {
      clickServiceUrl: String(form.get("clickServiceUrl") ?? ""),
      apiKey: String(form.get("apiKey") ?? ""),
    });
    return json<ActionData>({ intent: "test", result });
  }
  const result = await applySettings(session.shop, form, admin.graphql);
  return json<ActionData>({ intent: "save", ...result }, { status: result.ok ? 200 : 400 });
};

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

export default function SettingsPage() {
  const { settings } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>() as ActionData | undefined;
  const saved = actionData?.intent === "save" ? actionData : undefined;
  const navigation = useNavigation();
  const tester = useFetcher<typeof action>();
  const testData = tester.data as ActionData | undefined;
  const formRef = useRef<HTMLFormElement>(null);

  const [serviceUrl, setServiceUrl] = useState(settings?.clickServiceUrl ?? "");
  const [apiKey, setApiKey] = useState("");
  const [tagParams, setTagParams] = useState((settings?.tagParams ?? DEFAULT_SETTINGS.tagParams).join(", "));
  const [hijackTag, setHijackTag] = useState(settings?.hijackTag ?? DEFAULT_SETTINGS.hijackTag);
  const [rate, setRate] = useState(settings?.commissionRate ?? DEFAULT_SETTINGS.commissionRate);
  const [basis, setBasis] = useState<string>(settings?.orderValueBasis ?? DEFAULT_SETTINGS.orderValueBasis);
  const [autoVerify, setAutoVerify] = useState(settings?.autoVerify ?? DEFAULT_SETTINGS.autoVerify);
  const [windowDays, setWindowDays] = useState(
    String(settings?.attributionWindowDays ?? DEFAULT_SETTINGS.attributionWindowDays),
  );
  const [lookupsPerHour, setLookupsPerHour] = useState(
    String(settings?.landingLookupsPerHour ?? DEFAULT_SETTINGS.landingLookupsPerHour),
  );
  // The commission ledger's hold and per-creator rates.
  const [holdDays, setHoldDays] = useState(String(settings?.holdDays ?? DEFAULT_SETTINGS.holdDays));
  const [creatorRates, setCreatorRates] = useState(
    formatCreatorRatesText(settings?.creatorRates ?? DEFAULT_SETTINGS.creatorRates),
  );

  // After a successful save the key field empties again: the key is never kept in the page.
  useEffect(() => {
    if (saved?.ok) setApiKey("");
  }, [saved]);

  const answer = useFocusOnAnswer<BannerHandles>(saved);
  const errors = saved && !saved.ok ? saved.errors : {};
  const saving = navigation.state === "submitting" && navigation.formData?.get("intent") === "save";
  const testing = tester.state !== "idle";
  const connection = testData?.intent === "test" ? connectionMessage(testData.result) : null;
  const keyTestMessage = testData?.intent === "test" ? keyFieldMessage(testData.result) : undefined;
  const last4 = saved?.ok ? saved.settings.apiKeyLast4 : settings?.apiKeyLast4;

  const runTest = () => {
    if (!formRef.current) return;
    const data = new FormData(formRef.current);
    data.set("intent", "test");
    tester.submit(data, { method: "post" });
  };

  return (
    <AdminPage title={t("settings.title")}>
      {saved?.ok ? (
        <Banner ref={answer} tone="success" title={t("settings.saved")}>
          {saved.requeued > 0 ? <Text as="p">{t("settings.savedRequeued", { count: saved.requeued })}</Text> : null}
        </Banner>
      ) : null}
      {saved?.ok && !saved.storefront.ok ? (
        <Banner tone="warning" title={t("settings.storefrontWarningTitle")}>
          <Text as="p">{t("settings.storefrontWarningBody", { message: saved.storefront.message })}</Text>
        </Banner>
      ) : null}
      {saved && !saved.ok ? <Banner ref={answer} tone="critical" title={t("settings.fixErrors")} /> : null}
      {settings?.credentialsRejectedAt && !saved?.ok ? (
        <Banner tone="critical" title={t("settings.keyRejectedTitle")}>
          <Text as="p">
            {t("settings.keyRejectedBody", { time: formatTime(String(settings.credentialsRejectedAt)) })}
          </Text>
        </Banner>
      ) : null}

      <Form method="post" ref={formRef} data-testid="settings-form">
        <input type="hidden" name="intent" value="save" />
        <input type="hidden" name="autoVerify" value={autoVerify ? "true" : "false"} />
        <BlockStack gap="400">
          <SectionCard title={t("settings.serviceSection")} gap="300">
            <FormLayout>
              <TextField
                label={t("settings.serviceUrl")}
                name="clickServiceUrl"
                value={serviceUrl}
                onChange={setServiceUrl}
                autoComplete="url"
                helpText={t("settings.serviceUrlHelp")}
                error={errors.clickServiceUrl}
              />
              <TextField
                label={t("settings.apiKey")}
                name="apiKey"
                type="password"
                value={apiKey}
                onChange={setApiKey}
                autoComplete="off"
                helpText={
                  last4 ? t("settings.apiKeyHelpStored", { masked: `••••${last4}` }) : t("settings.apiKeyHelpNew")
                }
                error={errors.apiKey ?? keyTestMessage}
              />
              <InlineStack gap="300" blockAlign="center">
                <Button onClick={runTest} loading={testing}>
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
                value={tagParams}
                onChange={setTagParams}
                autoComplete="off"
                helpText={t("settings.tagParamsHelp")}
                error={errors.tagParams}
              />
              <TextField
                label={t("settings.hijackTag")}
                name="hijackTag"
                value={hijackTag}
                onChange={setHijackTag}
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
                value={rate}
                onChange={setRate}
                suffix="%"
                inputMode="decimal"
                autoComplete="off"
                error={errors.commissionRate}
              />
              <Select
                label={t("settings.orderValueBasis")}
                name="orderValueBasis"
                options={BASIS_OPTIONS}
                value={basis}
                onChange={setBasis}
                error={errors.orderValueBasis}
              />
              <Checkbox
                label={t("settings.autoVerify")}
                helpText={t("settings.autoVerifyHelp")}
                checked={autoVerify}
                onChange={setAutoVerify}
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
                  value={windowDays}
                  onChange={setWindowDays}
                  suffix={t("settings.days")}
                  inputMode="numeric"
                  autoComplete="off"
                  error={errors.attributionWindowDays}
                />
                <TextField
                  label={t("settings.landingLookupsPerHour")}
                  helpText={t("settings.landingLookupsPerHourHelp")}
                  name="landingLookupsPerHour"
                  value={lookupsPerHour}
                  onChange={setLookupsPerHour}
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
                value={holdDays}
                onChange={setHoldDays}
                suffix={t("settings.holdDaysSuffix")}
                inputMode="numeric"
                autoComplete="off"
                helpText={t("settings.holdDaysHelp")}
                error={errors.holdDays}
              />
              <TextField
                label={t("settings.creatorRates")}
                name="creatorRates"
                value={creatorRates}
                onChange={setCreatorRates}
                multiline={4}
                autoComplete="off"
                placeholder="cr_alice = 12.5"
                helpText={t("settings.creatorRatesHelp")}
                error={errors.creatorRates}
              />
            </FormLayout>
          </SectionCard>
          <InlineStack align="end">
            <Button submit variant="primary" loading={saving}>
              {t("settings.save")}
            </Button>
          </InlineStack>
        </BlockStack>
      </Form>
    </AdminPage>
  );
}

export function ErrorBoundary() {
  return <PageError />;
}
