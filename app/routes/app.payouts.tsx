import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Banner, BlockStack, Button, Checkbox, FormLayout, InlineStack, List, Text, TextField } from "@shopify/polaris";
import type { BannerHandles } from "@shopify/polaris";
import { Fragment, useEffect, useState } from "react";
import { AdminPage } from "../components/AdminPage";
import { adminMeta } from "../components/documentTitle";
import { EmptyNote } from "../components/EmptyNote";
import { PageError } from "../components/PageError";
import { useFocusOnAnswer } from "../components/useFocusOnAnswer";
import { ResponsiveTable } from "../components/ResponsiveTable";
import { SectionCard } from "../components/SectionCard";
import { listPayouts, payableBalances, recordPayout, type RecordPayoutResult } from "../commissions/payouts.server";
import { t } from "../i18n";
import { authenticate } from "../shopify.server";

// Payouts: choose approved balances, record the payment with a reference and a date. Each
// page load carries a fresh form token (the payout's idempotency key): submitting the same
// form twice finds the payout already recorded instead of paying again. Each chosen balance is
// sent with the amount shown beside it, what the merchant paid: one that changed since is
// refused, and the choices are cleared so the merchant looks again.

export const meta = adminMeta(t("payouts.title"));

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const [balances, payouts] = await Promise.all([payableBalances(session.shop), listPayouts(session.shop)]);
  return json({ balances, payouts, formToken: crypto.randomUUID(), today: new Date().toISOString().slice(0, 10) });
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const form = await request.formData();
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" ? value : "";
  };
  const result = await recordPayout(session.shop, {
    idempotencyKey: text("formToken"),
    reference: text("reference"),
    paidOn: text("paidOn"),
    balances: form
      .getAll("balance")
      .filter((key): key is string => typeof key === "string")
      .map((key) => ({ key, shownMinor: text(`shown:${key}`) })),
  });
  return json<RecordPayoutResult>(result, { status: result.ok ? 200 : 400 });
};

export default function PayoutsPage() {
  const { balances, payouts, formToken, today } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as RecordPayoutResult | undefined;
  const navigation = useNavigation();
  const submitting = navigation.state === "submitting";
  const [chosen, setChosen] = useState<string[]>([]);
  const [reference, setReference] = useState("");
  const [paidOn, setPaidOn] = useState(today);
  const errors = result && !result.ok ? result.errors : {};

  // A recorded payout empties the form; its balances are gone from the reloaded list. Balances
  // that changed (or are gone) are chosen again only after the merchant has looked at them.
  useEffect(() => {
    if (result?.ok) {
      setChosen([]);
      setReference("");
    } else if (result?.errors.balances) setChosen([]);
  }, [result]);
  const shownOf = (key: string) => balances.find((b) => b.key === key)?.balanceMinor ?? "";

  const answer = useFocusOnAnswer<BannerHandles>(result);

  const toggle = (key: string, on: boolean) =>
    setChosen((keys) => (on ? [...new Set([...keys, key])] : keys.filter((k) => k !== key)));

  return (
    <AdminPage title={t("payouts.title")}>
      {result?.ok ? (
        <Banner ref={answer} tone={result.duplicate ? "info" : "success"}>
          {result.duplicate ? t("payouts.duplicate") : t("payouts.recorded", { count: result.lines })}
        </Banner>
      ) : null}
      {result && !result.ok ? (
        <Banner
          ref={answer}
          tone="critical"
          title={t(errors.reference || errors.paidOn ? "payouts.fixErrors" : "payouts.notRecorded")}
        >
          {errors.balances ? <Text as="p">{errors.balances}</Text> : null}
        </Banner>
      ) : null}

      <Form method="post" data-testid="payout-form">
        <input type="hidden" name="formToken" value={formToken} />
        {chosen.map((key) => (
          <Fragment key={key}>
            <input type="hidden" name="balance" value={key} />
            <input type="hidden" name={`shown:${key}`} value={shownOf(key)} />
          </Fragment>
        ))}
        <BlockStack gap="400">
          <SectionCard title={t("payouts.balances")}>
            <Text as="p" tone="subdued">
              {t("payouts.balancesHelp")}
            </Text>
            {balances.length === 0 ? (
              <EmptyNote>{t("payouts.balancesEmpty")}</EmptyNote>
            ) : (
              <ResponsiveTable
                titleColumn={1}
                columnContentTypes={["text", "text", "numeric", "numeric", "numeric", "numeric"]}
                headings={[
                  t("payouts.columnPay"),
                  t("payouts.columnCreator"),
                  t("payouts.columnApproved"),
                  t("payouts.columnOwed"),
                  t("payouts.columnBalance"),
                  t("payouts.columnRecords"),
                ]}
                rows={balances.map((b) => [
                  b.payable ? (
                    <Checkbox
                      key="pay"
                      label={t("payouts.choose", { creator: b.creatorId, balance: b.balance })}
                      labelHidden
                      checked={chosen.includes(b.key)}
                      onChange={(on) => toggle(b.key, on)}
                    />
                  ) : (
                    <Text key="pay" as="span" tone="subdued">
                      {t("payouts.notPayable")}
                    </Text>
                  ),
                  b.creatorId,
                  b.approved,
                  b.owed,
                  b.balance,
                  b.records,
                ])}
              />
            )}
          </SectionCard>
          <SectionCard title={t("payouts.submit")}>
            <FormLayout>
              <TextField
                label={t("payouts.reference")}
                name="reference"
                value={reference}
                onChange={setReference}
                autoComplete="off"
                helpText={t("payouts.referenceHelp")}
                error={errors.reference}
              />
              <TextField
                label={t("payouts.paidOn")}
                name="paidOn"
                type="date"
                value={paidOn}
                onChange={setPaidOn}
                autoComplete="off"
                error={errors.paidOn}
              />
            </FormLayout>
            <InlineStack align="end">
              <Button submit variant="primary" loading={submitting} disabled={chosen.length === 0}>
                {t("payouts.submit")}
              </Button>
            </InlineStack>
          </SectionCard>
        </BlockStack>
      </Form>

      <SectionCard title={t("payouts.history")}>
        {payouts.length === 0 ? (
          <EmptyNote>{t("payouts.historyEmpty")}</EmptyNote>
        ) : (
          payouts.map((payout) => (
            <BlockStack key={payout.id} gap="100">
              <InlineStack align="space-between" blockAlign="center">
                <Text as="h3" variant="headingSm">
                  {t("payouts.historyRow", { date: payout.paidOn, reference: payout.reference })}
                </Text>
                <PayoutCsvButton payoutId={payout.id} />
              </InlineStack>
              <List>
                {payout.lines.map((line) => (
                  <List.Item key={`${line.creatorId}-${line.currency}`}>
                    {t("payouts.lineRow", { creator: line.creatorId, amount: line.amount, count: line.records })}
                  </List.Item>
                ))}
              </List>
            </BlockStack>
          ))
        )}
      </SectionCard>
    </AdminPage>
  );
}

/** The CSV through fetch, which App Bridge gives the session token (a plain link would not carry it). */
function PayoutCsvButton({ payoutId }: { payoutId: string }) {
  const [loading, setLoading] = useState(false);
  const download = async () => {
    setLoading(true);
    try {
      const response = await fetch(`/app/payouts/${payoutId}/export`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const href = URL.createObjectURL(await response.blob());
      const anchor = document.createElement("a");
      anchor.href = href;
      anchor.download =
        /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "")?.[1] ?? "payout.csv";
      anchor.click();
      URL.revokeObjectURL(href);
    } finally {
      setLoading(false);
    }
  };
  return (
    <Button onClick={() => void download()} loading={loading}>
      {t("payouts.export")}
    </Button>
  );
}

export function ErrorBoundary() {
  return <PageError />;
}
