import { Form, useNavigation } from "@remix-run/react";
import { Banner, BlockStack, Button, FormLayout, InlineStack, Select, Text, TextField } from "@shopify/polaris";
import { useEffect, useState } from "react";
import type { PublicPayoutSettings } from "../payouts/payout-settings.server";
import { t } from "../i18n";
import { SectionCard } from "./SectionCard";

/**
 * The shop's PayPal account: the environment, the client id and secret (write-only: the page
 * only ever has their last four characters) and the webhook's id, with where to point it.
 */
export function PaypalAccountCard({
  paypal,
  webhookUrl,
  answer,
}: {
  paypal: PublicPayoutSettings["paypal"];
  webhookUrl: string;
  answer: { ok: true } | { ok: false; errors: Record<string, string> } | undefined;
}) {
  const navigation = useNavigation();
  const [environment, setEnvironment] = useState<string>(paypal.environment);
  const [clientId, setClientId] = useState("");
  const [secret, setSecret] = useState("");
  const [webhookId, setWebhookId] = useState(paypal.webhookId);
  const errors = answer && !answer.ok ? answer.errors : {};
  // Saved: the typed credentials leave the page; only their last four characters come back.
  useEffect(() => {
    if (!answer?.ok) return;
    setClientId("");
    setSecret("");
  }, [answer]);
  const saving = navigation.state === "submitting" && navigation.formData?.get("intent") === "paypal-account";
  return (
    <SectionCard title={t("payouts.paypal.title")}>
      <Text as="p" tone="subdued">
        {t("payouts.paypal.help")}
      </Text>
      {answer?.ok ? <Banner tone="success">{t("payouts.paypal.saved")}</Banner> : null}
      <Form method="post" data-testid="paypal-account-form">
        <input type="hidden" name="intent" value="paypal-account" />
        <FormLayout>
          <Select
            label={t("payouts.paypal.environment")}
            name="environment"
            value={environment}
            onChange={setEnvironment}
            options={[
              { label: t("payouts.paypal.sandbox"), value: "sandbox" },
              { label: t("payouts.paypal.live"), value: "live" },
            ]}
            error={errors.environment}
          />
          <TextField
            label={t("payouts.paypal.clientId")}
            name="clientId"
            value={clientId}
            onChange={setClientId}
            autoComplete="off"
            error={errors.clientId}
          />
          <TextField
            label={t("payouts.paypal.secret")}
            name="secret"
            type="password"
            value={secret}
            onChange={setSecret}
            autoComplete="off"
            error={errors.secret}
            helpText={
              paypal.saved
                ? t("payouts.paypal.storedHelp", { clientId: paypal.clientIdLast4, secret: paypal.secretLast4 })
                : undefined
            }
          />
          <TextField
            label={t("payouts.paypal.webhookId")}
            name="webhookId"
            value={webhookId}
            onChange={setWebhookId}
            autoComplete="off"
            error={errors.webhookId}
            helpText={t("payouts.paypal.webhookHelp", { url: webhookUrl })}
          />
        </FormLayout>
        <BlockStack gap="200">
          <InlineStack align="end">
            <Button submit loading={saving}>
              {t("payouts.paypal.save")}
            </Button>
          </InlineStack>
        </BlockStack>
      </Form>
    </SectionCard>
  );
}
