import { Form, useSubmit } from "@remix-run/react";
import { useAppBridge } from "@shopify/app-bridge-react";
import { Banner, BlockStack, Button, Checkbox, InlineStack, Select, Text } from "@shopify/polaris";
import { useState, type FormEvent } from "react";
import { isShopifyMethod, PAYOUT_METHODS, scopesFor, type PayoutMethod } from "../payouts/methods";
import type { PublicPayoutSettings } from "../payouts/payout-settings.server";
import type { PaypalActionResult } from "../payouts/payouts-page.server";
import { PaypalAccountCard } from "./PaypalAccountCard";
import { t } from "../i18n";
import { CreatorName } from "./CreatorName";
import { SectionCard } from "./SectionCard";

const methodOptions = () => PAYOUT_METHODS.map((value) => ({ label: t(`payouts.methods.${value}`), value }));

type Asking = "idle" | "asking" | "declined";

/**
 * Store credit and gift cards need optional scopes (app/payouts/methods.ts): turning one on asks
 * for them through App Bridge first, as the Codes page does, and saves only once they are granted.
 */
function useScopesFirst(method: string, createCustomers: boolean) {
  const shopify = useAppBridge();
  const submit = useSubmit();
  const [asking, setAsking] = useState<Asking>("idle");
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    const resolved = method === "default" ? null : (method as PayoutMethod);
    if (!resolved || !isShopifyMethod(resolved)) return;
    event.preventDefault();
    const form = event.currentTarget;
    const needed = scopesFor(resolved, createCustomers);
    const has = (granted: string[]) => needed.every((scope) => granted.includes(scope));
    setAsking("asking");
    try {
      let granted = has((await shopify.scopes.query()).granted);
      if (!granted) {
        const answer = await shopify.scopes.request(needed);
        granted = answer.result === "granted-all" && has(answer.detail.granted);
      }
      setAsking(granted ? "idle" : "declined");
      if (granted) submit(form, { method: "post" });
    } catch {
      setAsking("declined");
    }
  };
  return { asking, onSubmit };
}

/** One method's choice, saved on its own: the shop's default (no creator) or one creator's. */
function MethodForm({
  creatorId,
  value,
  label,
  withDefault,
  createCustomers: createInitially,
  ownsCreate = false,
}: {
  creatorId: string;
  value: string;
  label: string;
  withDefault?: string;
  /** Whether a creator with no customer account gets one (then write_customers is asked for too). */
  createCustomers: boolean;
  /** The shop's default form: it also sets createCustomers. */
  ownsCreate?: boolean;
}) {
  const [method, setMethod] = useState(value);
  const [createCustomers, setCreateCustomers] = useState(createInitially);
  const { asking, onSubmit } = useScopesFirst(method, createCustomers);
  const methodName = t(`payouts.methods.${method === "default" ? (withDefault ?? "manual") : method}`);
  return (
    <Form method="post" onSubmit={onSubmit}>
      <input type="hidden" name="intent" value="method" />
      <input type="hidden" name="creatorId" value={creatorId} />
      {ownsCreate ? <input type="hidden" name="createCustomers" value={createCustomers ? "on" : "off"} /> : null}
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
        <Button submit loading={asking === "asking"} accessibilityLabel={`${t("payouts.methods.save")}: ${label}`}>
          {t("payouts.methods.save")}
        </Button>
      </InlineStack>
      {!ownsCreate ? null : (
        <Checkbox
          label={t("payouts.methods.createCustomers")}
          helpText={t("payouts.methods.createCustomersHelp")}
          checked={createCustomers}
          onChange={setCreateCustomers}
        />
      )}
      {isShopifyMethod(method) && asking !== "declined" ? (
        <Text as="p" tone="subdued">
          {t("payouts.methods.scopesBody", { method: methodName, what: t(`payouts.methods.scopesWhat.${method}`) })}
        </Text>
      ) : null}
      {asking === "declined" ? (
        <Banner tone="warning" title={t("payouts.methods.scopesTitle")}>
          {t("payouts.methods.scopesDeclined", { method: methodName })}
        </Banner>
      ) : null}
    </Form>
  );
}

/** The shop's default method, and each listed creator's own (or the default). */
export function PayoutMethodsCard({
  defaultMethod,
  createCustomers,
  creatorMethods,
  creators,
  names,
  saved,
}: {
  defaultMethod: PayoutMethod;
  createCustomers: boolean;
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
        key={`default-${defaultMethod}-${createCustomers}`}
        creatorId=""
        value={defaultMethod}
        label={t("payouts.methods.default")}
        createCustomers={createCustomers}
        ownsCreate
      />
      {/* A list, not a table: the balances' table above is the one row per creator. */}
      <BlockStack gap="200">
        {creators.map((creatorId) => (
          <InlineStack key={creatorId} gap="300" blockAlign="center">
            <CreatorName creatorId={creatorId} name={names[creatorId]} />
            <MethodForm
              key={`method-${creatorMethods[creatorId] ?? "default"}-${createCustomers}`}
              creatorId={creatorId}
              value={creatorMethods[creatorId] ?? "default"}
              label={t("payouts.methods.creator", { creator: names[creatorId] || creatorId })}
              withDefault={defaultMethod}
              createCustomers={createCustomers}
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
        createCustomers={settings.createCustomers}
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
