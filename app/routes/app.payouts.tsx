import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation, useSubmit } from "@remix-run/react";
import {
  Badge,
  Banner,
  BlockStack,
  Button,
  Checkbox,
  FormLayout,
  InlineStack,
  List,
  Modal,
  Text,
  TextField,
} from "@shopify/polaris";
import { Fragment, useEffect, useRef, useState } from "react";
import type { BannerHandles } from "@shopify/polaris";
import { AdminPage } from "../components/AdminPage";
import { adminMeta } from "../components/documentTitle";
import { ResponsiveTable } from "../components/ResponsiveTable";
import { useFocusOnAnswer } from "../components/useFocusOnAnswer";
import { CreatorName } from "../components/CreatorName";
import { EmptyNote } from "../components/EmptyNote";
import { PageError } from "../components/PageError";
import { SectionCard } from "../components/SectionCard";
import { useDownload } from "../components/useDownload";
import { payoutsAction, payoutsPageFor, type PayoutsActionResult } from "../commissions/payouts-page.server";
import { t } from "../i18n";
import { staffIdOf } from "../sessions/staff-member";
import { authenticate } from "../shopify.server";
import { formatCalendarDay, formatMinorCurrency, requestLocale, shownTime } from "../units/shop-format";

// Payouts: choose approved balances of one currency, review them in a confirmation that names
// every creator and amount, and record the payment with a reference and a date. Each page load
// carries a fresh form token (the payout's idempotency key): submitting the same form twice
// finds the payout already recorded instead of paying again. Each chosen balance is sent with
// the amount shown beside it, what the merchant paid: one that changed since is refused, and
// every refusal clears the choices so nothing the merchant has not looked at again is paid.
// A recorded payout can be voided (with a reason), never edited.

export const meta = adminMeta(t("payouts.title"));

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  return json(await payoutsPageFor(session.shop, requestLocale(request)));
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const context = await authenticate.admin(request);
  const staffId = staffIdOf(context);
  const result = await payoutsAction(context.session.shop, await request.formData(), staffId, requestLocale(request));
  return json<PayoutsActionResult>(result, { status: result.ok ? 200 : 400 });
};

interface Balance {
  key: string;
  creatorId: string;
  currency: string;
  balance: string;
  balanceMinor: string;
  records: number;
}

/** What is chosen, per currency, summed exactly from the minor units the page was given. */
function totalsOf(chosen: Balance[], locale: string): { currency: string; total: string }[] {
  const sums = new Map<string, bigint>();
  for (const b of chosen) sums.set(b.currency, (sums.get(b.currency) ?? 0n) + BigInt(b.balanceMinor));
  return [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([currency, minor]) => ({ currency, total: formatMinorCurrency(minor, currency, locale) }));
}

export default function PayoutsPage() {
  const { balances, payouts, formToken, today, names, times, locale } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as PayoutsActionResult | undefined;
  const navigation = useNavigation();
  const submit = useSubmit();
  const formRef = useRef<HTMLFormElement>(null);
  const submitting = navigation.state === "submitting";
  const [chosen, setChosen] = useState<string[]>([]);
  const [reference, setReference] = useState("");
  const [paidOn, setPaidOn] = useState(today);
  const [confirming, setConfirming] = useState(false);
  const [referenceHint, setReferenceHint] = useState<string | undefined>();
  const recordResult = result?.intent === "record" ? result : undefined;
  const voidResult = result?.intent === "void" ? result : undefined;
  const errors = recordResult && !recordResult.ok ? recordResult.errors : {};
  const answer = useFocusOnAnswer<BannerHandles>(result);

  // A recorded payout empties the form; its balances are gone from the reloaded list. Any
  // refusal clears the choices too: a balance left chosen would otherwise ride silently into
  // the next submit, though the merchant has not looked at it again.
  useEffect(() => {
    if (!recordResult) return;
    setConfirming(false);
    setChosen([]);
    if (recordResult.ok) setReference("");
  }, [recordResult]);

  const chosenBalances = balances.filter((b) => chosen.includes(b.key));
  const totals = totalsOf(chosenBalances, locale);
  const mixed = totals.length > 1;
  const recordCount = chosenBalances.reduce((sum, b) => sum + b.records, 0);

  const toggle = (key: string, on: boolean) =>
    setChosen((keys) => (on ? [...new Set([...keys, key])] : keys.filter((k) => k !== key)));

  const review = () => {
    if (!reference.trim()) {
      setReferenceHint(t("payouts.referenceMissing"));
      return;
    }
    setReferenceHint(undefined);
    setConfirming(true);
  };
  // The dialog closes as the payout is sent, so the answer's banner can take the focus when it
  // comes (a dialog closing after it would take the focus back to the page's body).
  const record = () => {
    setConfirming(false);
    if (formRef.current) submit(formRef.current, { method: "post" });
  };

  return (
    <AdminPage title={t("payouts.title")}>
      {recordResult?.ok ? (
        <Banner ref={answer} tone={recordResult.duplicate ? "info" : "success"}>
          {recordResult.duplicate ? t("payouts.duplicate") : t("payouts.recorded", { count: recordResult.lines })}
        </Banner>
      ) : null}
      {recordResult && !recordResult.ok ? (
        <Banner
          ref={answer}
          tone="critical"
          title={t(errors.reference || errors.paidOn ? "payouts.fixErrors" : "payouts.notRecorded")}
        >
          <BlockStack gap="100">
            {errors.balances ? <Text as="p">{errors.balances}</Text> : null}
            <Text as="p">{t("payouts.choicesCleared")}</Text>
          </BlockStack>
        </Banner>
      ) : null}
      {voidResult?.ok ? (
        <Banner ref={answer} tone="success">
          {t("payouts.voidDone", { count: voidResult.records })}
        </Banner>
      ) : null}
      {voidResult && !voidResult.ok ? (
        <Banner ref={answer} tone="critical" title={t("payouts.voidFailed")}>
          <Text as="p">{voidResult.errors.void ?? voidResult.errors.reason ?? voidResult.errors.payoutId}</Text>
        </Banner>
      ) : null}

      <Form method="post" ref={formRef} data-testid="payout-form">
        <input type="hidden" name="intent" value="record" />
        <input type="hidden" name="formToken" value={formToken} />
        {chosenBalances.map((b) => (
          <Fragment key={b.key}>
            <input type="hidden" name="balance" value={b.key} />
            <input type="hidden" name={`shown:${b.key}`} value={b.balanceMinor} />
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
                  <CreatorName key="creator" creatorId={b.creatorId} name={names[b.creatorId]} />,
                  b.approved,
                  b.owed,
                  b.balance,
                  b.records,
                ])}
              />
            )}
            <div role="status" data-testid="selected-total">
              {totals.length === 0 ? (
                <Text as="p" tone="subdued">
                  {t("payouts.selectedNone")}
                </Text>
              ) : (
                <BlockStack gap="100">
                  <Text as="p" variant="headingSm">
                    {t("payouts.selectedCount", { count: chosenBalances.length })}
                  </Text>
                  {totals.map((total) => (
                    <Text as="p" key={total.currency}>
                      {t("payouts.selectedTotal", { total: total.total })}
                    </Text>
                  ))}
                </BlockStack>
              )}
            </div>
            {mixed ? (
              <Banner tone="warning">
                {t("payouts.mixedWarning", { currencies: totals.map((total) => total.currency).join(", ") })}
              </Banner>
            ) : null}
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
                error={errors.reference ?? referenceHint}
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
              <Button variant="primary" onClick={review} disabled={chosen.length === 0 || mixed}>
                {t("payouts.review")}
              </Button>
            </InlineStack>
          </SectionCard>
        </BlockStack>
      </Form>

      {/* Mounted only while open: a closing Modal takes the focus back from the answer's banner. */}
      {confirming ? (
        <Modal
          open={confirming}
          onClose={() => setConfirming(false)}
          title={t("payouts.confirmTitle")}
          primaryAction={{ content: t("payouts.confirmSubmit"), onAction: record, loading: submitting }}
          secondaryActions={[{ content: t("payouts.confirmCancel"), onAction: () => setConfirming(false) }]}
        >
          <Modal.Section>
            <BlockStack gap="300">
              <Text as="p">
                {t("payouts.confirmIntro", {
                  total: totals[0]?.total ?? "",
                  reference: reference.trim(),
                  date: formatCalendarDay(paidOn, locale),
                })}
              </Text>
              <List>
                {chosenBalances.map((b) => (
                  <List.Item key={b.key}>
                    {t("payouts.confirmLine", {
                      creator: names[b.creatorId] ? `${names[b.creatorId]} (${b.creatorId})` : b.creatorId,
                      amount: b.balance,
                      count: b.records,
                    })}
                  </List.Item>
                ))}
              </List>
              <Text as="p" fontWeight="semibold">
                {t("payouts.confirmWarning", { count: recordCount })}
              </Text>
            </BlockStack>
          </Modal.Section>
        </Modal>
      ) : null}

      <SectionCard title={t("payouts.history")}>
        {payouts.length === 0 ? (
          <EmptyNote>{t("payouts.historyEmpty")}</EmptyNote>
        ) : (
          payouts.map((payout) => (
            <BlockStack key={payout.id} gap="100">
              <InlineStack align="space-between" blockAlign="center">
                <InlineStack gap="200" blockAlign="center">
                  <Text as="h3" variant="headingSm">
                    {t("payouts.historyRow", { date: payout.paidOnText, reference: payout.reference })}
                  </Text>
                  {payout.voided ? <Badge tone="critical">{t("payouts.voided")}</Badge> : null}
                </InlineStack>
                <InlineStack gap="200">
                  <PayoutCsvButton payoutId={payout.id} />
                  {payout.voided ? null : (
                    <VoidPayoutButton payoutId={payout.id} reference={payout.reference} paidOn={payout.paidOnText} />
                  )}
                </InlineStack>
              </InlineStack>
              {payout.voided ? (
                <Text as="p" tone="critical">
                  {t("payouts.voidedRow", {
                    time: shownTime(times, payout.voided.at),
                    by: payout.voided.by ?? t("payouts.voidedByUnknown"),
                    reason: payout.voided.reason,
                  })}
                </Text>
              ) : null}
              <List>
                {payout.lines.map((line) => (
                  <List.Item key={`${line.creatorId}-${line.currency}`}>
                    <CreatorName creatorId={line.creatorId} name={line.creatorName} />
                    {": "}
                    {t("payouts.lineAmount", { amount: line.amount, count: line.records })}
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

/** Void asks why, in a confirmation that says what voiding does; it cannot be undone. */
function VoidPayoutButton({ payoutId, reference, paidOn }: { payoutId: string; reference: string; paidOn: string }) {
  const submit = useSubmit();
  const navigation = useNavigation();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const [hint, setHint] = useState<string | undefined>();
  const voiding = navigation.state === "submitting" && navigation.formData?.get("payoutId") === payoutId;
  const confirm = () => {
    if (!reason.trim()) {
      setHint(t("payouts.voidReasonMissing"));
      return;
    }
    submit({ intent: "void", payoutId, reason }, { method: "post" });
    setOpen(false);
  };
  return (
    <>
      <Button tone="critical" variant="secondary" onClick={() => setOpen(true)} loading={voiding}>
        {t("payouts.void")}
      </Button>
      {open ? (
        <Modal
          open={open}
          onClose={() => setOpen(false)}
          title={t("payouts.voidTitle", { reference, date: paidOn })}
          primaryAction={{ content: t("payouts.voidSubmit"), destructive: true, onAction: confirm }}
          secondaryActions={[{ content: t("payouts.voidCancel"), onAction: () => setOpen(false) }]}
        >
          <Modal.Section>
            <BlockStack gap="300">
              <Text as="p">{t("payouts.voidBody")}</Text>
              <TextField
                label={t("payouts.voidReason")}
                value={reason}
                onChange={setReason}
                autoComplete="off"
                multiline={2}
                helpText={t("payouts.voidReasonHelp")}
                error={hint}
              />
            </BlockStack>
          </Modal.Section>
        </Modal>
      ) : null}
    </>
  );
}

/** The CSV through fetch, which App Bridge gives the session token (a plain link would not carry it). */
function PayoutCsvButton({ payoutId }: { payoutId: string }) {
  const { downloading, download } = useDownload("payout.csv");
  return (
    <Button onClick={() => void download(`/app/payouts/${payoutId}/export`)} loading={downloading}>
      {t("payouts.export")}
    </Button>
  );
}

export function ErrorBoundary() {
  return <PageError />;
}
