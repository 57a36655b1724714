import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import {
  Form,
  useActionData,
  useBeforeUnload,
  useBlocker,
  useFetcher,
  useLoaderData,
  useNavigation,
} from "@remix-run/react";
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
import { useCallback, useEffect, useRef, useState } from "react";
import { AdminPage } from "../components/AdminPage";
import { adminMeta } from "../components/documentTitle";
import { PageError } from "../components/PageError";
import { SectionCard } from "../components/SectionCard";
import { formatShopTime, requestLocale } from "../units/shop-format";
import { shopFormat } from "../shop-profile/shop-profile.server";
import { t } from "../i18n";
import { applySettings, type ApplySettingsResult } from "../settings/apply-settings.server";
import { formatCreatorRatesText } from "../settings/creator-rates";
import { DEFAULT_SETTINGS } from "../settings/defaults";
import { getPublicSettings, type PublicSettings } from "../settings/shop-settings.server";
import { testConnection, type ConnectionResult } from "../settings/test-connection.server";
import { authenticate } from "../shopify.server";

// Settings. The API key is write-only: the loader sends its last four characters, the form's
// key field always starts empty, and an empty key on save keeps the stored one.

export const meta = adminMeta(t("settings.title"));

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const settings = await getPublicSettings(session.shop);
  const rejectedAt = settings?.credentialsRejectedAt ? new Date(settings.credentialsRejectedAt).toISOString() : null;
  const format = rejectedAt ? await shopFormat(session.shop, requestLocale(request)) : null;
  // Formatted here, in the shop's zone, so the browser hydrates the server's text.
  return json({ settings, keyRejectedAt: rejectedAt && format ? formatShopTime(rejectedAt, format) : null });
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

/** The form's fields as text, the way the inputs hold them; the key field always starts empty. */
function formValues(settings: Omit<PublicSettings, "credentialsRejectedAt" | "apiKeyLast4"> | null | undefined) {
  return {
    clickServiceUrl: settings?.clickServiceUrl ?? "",
    apiKey: "",
    tagParams: (settings?.tagParams ?? DEFAULT_SETTINGS.tagParams).join(", "),
    hijackTag: settings?.hijackTag ?? DEFAULT_SETTINGS.hijackTag,
    commissionRate: settings?.commissionRate ?? DEFAULT_SETTINGS.commissionRate,
    orderValueBasis: (settings?.orderValueBasis ?? DEFAULT_SETTINGS.orderValueBasis) as string,
    autoVerify: settings?.autoVerify ?? DEFAULT_SETTINGS.autoVerify,
    attributionWindowDays: String(settings?.attributionWindowDays ?? DEFAULT_SETTINGS.attributionWindowDays),
    landingLookupsPerHour: String(settings?.landingLookupsPerHour ?? DEFAULT_SETTINGS.landingLookupsPerHour),
    holdDays: String(settings?.holdDays ?? DEFAULT_SETTINGS.holdDays),
    creatorRates: formatCreatorRatesText(settings?.creatorRates ?? DEFAULT_SETTINGS.creatorRates),
  };
}

type FieldName = keyof ReturnType<typeof formValues>;

/** Each field's label, in the order the form shows them: the error banner lists them so. */
const FIELD_LABELS: [FieldName, string][] = [
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

const fieldId = (name: string) => `settings-field-${name}`;

const SAVE_BAR_ID = "settings-save-bar";

/**
 * App Bridge as the page finds it. Older App Bridge versions (and admin surfaces without a save
 * bar or toasts) lack these, so every use is optional and the page keeps its own Save button,
 * banners and the browser's own leave prompt.
 */
function appBridge(): { saveBar?: Partial<typeof shopify.saveBar>; toast?: Partial<typeof shopify.toast> } {
  if (typeof window === "undefined") return {};
  return (window as { shopify?: Partial<typeof shopify> }).shopify ?? {};
}

export default function SettingsPage() {
  const { settings, keyRejectedAt } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>() as ActionData | undefined;
  const saved = actionData?.intent === "save" ? actionData : undefined;
  const navigation = useNavigation();
  const tester = useFetcher<typeof action>();
  const testData = tester.data as ActionData | undefined;
  const formRef = useRef<HTMLFormElement>(null);
  const errorBannerRef = useRef<HTMLDivElement>(null);

  const [values, setValues] = useState(() => formValues(settings));
  const set =
    <K extends FieldName>(name: K) =>
    (value: ReturnType<typeof formValues>[K]) =>
      setValues((current) => ({ ...current, [name]: value }));
  const {
    clickServiceUrl: serviceUrl,
    apiKey,
    tagParams,
    hijackTag,
    commissionRate: rate,
    orderValueBasis: basis,
    autoVerify,
    attributionWindowDays: windowDays,
    landingLookupsPerHour: lookupsPerHour,
    holdDays,
    creatorRates,
  } = values;
  const baseline = formValues(settings);
  const dirty = (Object.keys(baseline) as FieldName[]).some((name) => values[name] !== baseline[name]);

  // Known after hydration only: the server cannot tell which App Bridge the admin runs.
  const [hasSaveBar, setHasSaveBar] = useState(false);
  useEffect(() => setHasSaveBar(typeof appBridge().saveBar?.show === "function"), []);

  // After a successful save the fields show what was stored (the key field empties again: the
  // key is never kept in the page) and a toast says so; a refused save moves focus to the list
  // of what to fix, so a keyboard or screen reader user starts there.
  useEffect(() => {
    if (saved?.ok) {
      setValues(formValues(saved.settings));
      appBridge().toast?.show?.(t("settings.savedToast"));
    } else if (saved) errorBannerRef.current?.focus();
  }, [saved]);

  useEffect(() => {
    if (!hasSaveBar) return;
    const saveBar = appBridge().saveBar;
    void (dirty ? saveBar?.show?.(SAVE_BAR_ID) : saveBar?.hide?.(SAVE_BAR_ID));
  }, [dirty, hasSaveBar]);

  const saving = navigation.state === "submitting" && navigation.formData?.get("intent") === "save";
  // Leaving the page inside the app with unsaved changes asks first: App Bridge's own
  // confirmation where it has one, the browser's otherwise.
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => dirty && !saving && currentLocation.pathname !== nextLocation.pathname,
  );
  useEffect(() => {
    if (blocker.state !== "blocked") return;
    const leaveConfirmation = appBridge().saveBar?.leaveConfirmation;
    if (typeof leaveConfirmation === "function") void leaveConfirmation().then(() => blocker.proceed());
    else if (window.confirm(t("settings.leaveConfirm"))) blocker.proceed();
    else blocker.reset();
  }, [blocker]);
  useBeforeUnload(
    useCallback(
      (event: BeforeUnloadEvent) => {
        if (dirty && !hasSaveBar) event.preventDefault();
      },
      [dirty, hasSaveBar],
    ),
  );

  const discard = () => setValues(formValues(settings));
  const submitForm = () => formRef.current?.requestSubmit();

  const errors: Partial<Record<string, string>> = saved && !saved.ok ? saved.errors : {};
  const wrongFields = FIELD_LABELS.filter(([name]) => errors[name]);
  // An error about no single field (should the server ever send one) is listed without a link.
  const otherErrors = Object.entries(errors).filter(([name]) => !FIELD_LABELS.some(([known]) => known === name));
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
      {saved && !saved.ok ? (
        <div ref={errorBannerRef} tabIndex={-1} data-testid="settings-errors">
          <Banner tone="critical" title={t("settings.fixErrors")}>
            <BlockStack gap="100">
              <Text as="p">{t("settings.fixErrorsIntro")}</Text>
              <ul>
                {wrongFields.map(([name, label]) => (
                  <li key={name}>
                    <a
                      href={`#${fieldId(name)}`}
                      onClick={(event) => {
                        event.preventDefault();
                        document.getElementById(fieldId(name))?.focus();
                      }}
                    >
                      {t(label)}
                    </a>
                    {`: ${errors[name]}`}
                  </li>
                ))}
                {otherErrors.map(([name, message]) => (
                  <li key={name}>{message}</li>
                ))}
              </ul>
            </BlockStack>
          </Banner>
        </div>
      ) : null}
      {hasSaveBar ? (
        <ui-save-bar id={SAVE_BAR_ID}>
          {/* App Bridge reads the save bar's buttons by their HTML attributes, variant among them. */}
          {/* eslint-disable-next-line react/no-unknown-property */}
          <button variant="primary" onClick={submitForm} loading={saving ? "" : undefined}>
            {t("settings.save")}
          </button>
          <button onClick={discard}>{t("settings.discard")}</button>
        </ui-save-bar>
      ) : null}
      {saved?.ok && (saved.requeued > 0 || typeof appBridge().toast?.show !== "function") ? (
        <Banner tone="success" title={t("settings.saved")}>
          {saved.requeued > 0 ? <Text as="p">{t("settings.savedRequeued", { count: saved.requeued })}</Text> : null}
        </Banner>
      ) : null}
      {saved?.ok && !saved.storefront.ok ? (
        <Banner tone="warning" title={t("settings.storefrontWarningTitle")}>
          <Text as="p">{t("settings.storefrontWarningBody", { message: saved.storefront.message })}</Text>
        </Banner>
      ) : null}
      {settings?.credentialsRejectedAt && !saved?.ok ? (
        <Banner tone="critical" title={t("settings.keyRejectedTitle")}>
          <Text as="p">{t("settings.keyRejectedBody", { time: keyRejectedAt ?? "—" })}</Text>
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
                value={apiKey}
                onChange={set("apiKey")}
                id={fieldId("apiKey")}
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
                onChange={set("tagParams")}
                id={fieldId("tagParams")}
                autoComplete="off"
                helpText={t("settings.tagParamsHelp")}
                error={errors.tagParams}
              />
              <TextField
                label={t("settings.hijackTag")}
                name="hijackTag"
                value={hijackTag}
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
                value={rate}
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
                value={basis}
                onChange={set("orderValueBasis")}
                id={fieldId("orderValueBasis")}
                error={errors.orderValueBasis}
              />
              <Checkbox
                label={t("settings.autoVerify")}
                helpText={t("settings.autoVerifyHelp")}
                checked={autoVerify}
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
                  value={windowDays}
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
                  value={lookupsPerHour}
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
                value={holdDays}
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
                value={creatorRates}
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
