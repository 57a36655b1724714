import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, useActionData, useFetcher, useLoaderData, useNavigation } from "@remix-run/react";
import { Banner, BlockStack, Button, InlineStack, Text } from "@shopify/polaris";
import { useEffect, useRef, useState } from "react";
import { AdminPage } from "../components/AdminPage";
import { appBridge } from "../components/appBridge";
import { adminMeta } from "../components/documentTitle";
import { PageError } from "../components/PageError";
import { SettingsErrors } from "../components/SettingsErrors";
import { SettingsFields } from "../components/SettingsFields";
import { useUnsavedChanges } from "../components/useUnsavedChanges";
import { requestLocale } from "../units/shop-format";
import { t } from "../i18n";
import { settingsFormValues, type SettingsFieldName, type SettingsFormValues } from "../settings/form-values";
import { settingsAction, settingsPageFor, type SettingsAnswer } from "../settings/settings-page.server";
import { authenticate } from "../shopify.server";

// Settings. The API key is write-only: the loader sends its last four characters, the form's
// key field always starts empty, and an empty key on save keeps the stored one.

export const meta = adminMeta(() => t("settings.title"));

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  return json(await settingsPageFor(session.shop, requestLocale(request)));
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { session, admin } = await authenticate.admin(request);
  const { status, answer } = await settingsAction(session.shop, await request.formData(), admin.graphql);
  return json<SettingsAnswer>(answer, { status });
};

const SAVE_BAR_ID = "settings-save-bar";

export default function SettingsPage() {
  const { settings, keyRejectedAt } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>() as SettingsAnswer | undefined;
  const saved = actionData?.intent === "save" ? actionData : undefined;
  const navigation = useNavigation();
  const tester = useFetcher<typeof action>();
  const testData = tester.data as SettingsAnswer | undefined;
  const formRef = useRef<HTMLFormElement>(null);
  const errorBannerRef = useRef<HTMLDivElement>(null);

  const [values, setValues] = useState(() => settingsFormValues(settings));
  const set =
    <K extends SettingsFieldName>(name: K) =>
    (value: SettingsFormValues[K]) =>
      setValues((current) => ({ ...current, [name]: value }));
  const baseline = settingsFormValues(settings);
  const dirty = (Object.keys(baseline) as SettingsFieldName[]).some((name) => values[name] !== baseline[name]);

  // After a successful save the fields show what was stored (the key field empties again: the
  // key is never kept in the page) and a toast says so; a refused save moves focus to the list
  // of what to fix, so a keyboard or screen reader user starts there.
  useEffect(() => {
    if (saved?.ok) {
      setValues(settingsFormValues(saved.settings));
      appBridge().toast?.show?.(t("settings.savedToast"));
    } else if (saved) errorBannerRef.current?.focus();
  }, [saved]);

  const saving = navigation.state === "submitting" && navigation.formData?.get("intent") === "save";
  const { hasSaveBar } = useUnsavedChanges({ dirty, saving, saveBarId: SAVE_BAR_ID });

  const discard = () => setValues(settingsFormValues(settings));
  const submitForm = () => formRef.current?.requestSubmit();

  const errors: Partial<Record<string, string>> = saved && !saved.ok ? saved.errors : {};
  const last4 = saved?.ok ? saved.settings.apiKeyLast4 : settings?.apiKeyLast4;

  const runTest = () => {
    if (!formRef.current) return;
    const data = new FormData(formRef.current);
    data.set("intent", "test");
    tester.submit(data, { method: "post" });
  };

  return (
    <AdminPage title={t("settings.title")}>
      {saved && !saved.ok ? <SettingsErrors errors={errors} bannerRef={errorBannerRef} /> : null}
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
        <input type="hidden" name="autoVerify" value={values.autoVerify ? "true" : "false"} />
        <BlockStack gap="400">
          <SettingsFields
            values={values}
            set={set}
            errors={errors}
            last4={last4}
            testResult={testData?.intent === "test" ? testData.result : undefined}
            testing={tester.state !== "idle"}
            onTest={runTest}
          />
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
