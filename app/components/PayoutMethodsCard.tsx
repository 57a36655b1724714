import { Form } from "@remix-run/react";
import { Banner, BlockStack, Button, InlineStack, Select, Text } from "@shopify/polaris";
import { useState } from "react";
import type { PayoutMethod } from "../payouts/methods";
import type { PublicPayoutSettings } from "../payouts/payout-settings.server";
import type { PaypalActionResult } from "../payouts/payouts-page.server";
import { PaypalAccountCard } from "./PaypalAccountCard";
import { t } from "../i18n";
import { CreatorName } from "./CreatorName";
import { SectionCard } from "./SectionCard";

const methodOptions = () => [
  { label: t("payouts.methods.manual"), value: "manual" },
  { label: t("payouts.methods.paypal"), value: "paypal" },
];

/** One method's choice, saved on its own: the shop's default (no creator) or one creator's. */
function MethodForm({
  creatorId,
  value,
  label,
  withDefault,
}: {
  creatorId: string;
  value: string;
  label: string;
  withDefault?: string;
}) {
  const [method, setMethod] = useState(value);
  return (
    <Form method="post">
      <input type="hidden" name="intent" value="method" />
      <input type="hidden" name="creatorId" value={creatorId} />
      <InlineStack gap="200" blockAlign="end" wrap={false}>
        <Select
          label={label}
          labelHidden={Boolean(creatorId)}
          name="method"
          value={method}
          onChange={setMethod}
          options={[
            ...(withDefault
              ? [
                  {
                    label: t("payouts.methods.useDefault", { method: t(`payouts.methods.${withDefault}`) }),
                    value: "default",
                  },
                ]
              : []),
            ...methodOptions(),
          ]}
        />
        <Button submit accessibilityLabel={`${t("payouts.methods.save")}: ${label}`}>
          {t("payouts.methods.save")}
        </Button>
      </InlineStack>
    </Form>
  );
}

/** The shop's default method, and each listed creator's own (or the default). */
export function PayoutMethodsCard({
  defaultMethod,
  creatorMethods,
  creators,
  names,
  saved,
}: {
  defaultMethod: PayoutMethod;
  creatorMethods: Record<string, PayoutMethod>;
  creators: string[];
  names: Record<string, string | undefined>;
  saved: boolean;
}) {
  return (
    <SectionCard title={t("payouts.methods.title")}>
      <Text as="p" tone="subdued">
        {t("payouts.methods.help")}
      </Text>
      {saved ? <Banner tone="success">{t("payouts.methods.saved")}</Banner> : null}
      <MethodForm
        key={`default-${defaultMethod}`}
        creatorId=""
        value={defaultMethod}
        label={t("payouts.methods.default")}
      />
      {/* A list, not a table: the balances' table above is the one row per creator. */}
      <BlockStack gap="200">
        {creators.map((creatorId) => (
          <InlineStack key={creatorId} gap="300" blockAlign="center">
            <CreatorName creatorId={creatorId} name={names[creatorId]} />
            <MethodForm
              key={`method-${creatorMethods[creatorId] ?? "default"}`}
              creatorId={creatorId}
              value={creatorMethods[creatorId] ?? "default"}
              label={t("payouts.methods.creator", { creator: names[creatorId] || creatorId })}
              withDefault={defaultMethod}
            />
          </InlineStack>
        ))}
      </BlockStack>
    </SectionCard>
  );
}

/** The Payouts page's PayPal part: the methods, then the PayPal account. */
export function PaypalPart({
  settings,
  webhookUrl,
  creators,
  names,
  answer,
}: {
  settings: PublicPayoutSettings;
  webhookUrl: string;
  creators: string[];
  names: Record<string, string | undefined>;
  answer: PaypalActionResult | undefined;
}) {
  return (
    <BlockStack gap="400">
      <PayoutMethodsCard
        defaultMethod={settings.defaultMethod}
        creatorMethods={settings.creatorMethods}
        creators={creators}
        names={names}
        saved={answer?.intent === "method" && answer.ok}
      />
      <PaypalAccountCard
        paypal={settings.paypal}
        webhookUrl={webhookUrl}
        answer={answer?.intent === "paypal-account" ? answer : undefined}
      />
    </BlockStack>
  );
}
