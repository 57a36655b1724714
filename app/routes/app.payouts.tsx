import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation, useSubmit } from "@remix-run/react";
import { BlockStack, type BannerHandles } from "@shopify/polaris";
import { useEffect, useRef, useState } from "react";
import { AdminPage } from "../components/AdminPage";
import { adminMeta } from "../components/documentTitle";
import { useFocusOnAnswer } from "../components/useFocusOnAnswer";
import { PageError } from "../components/PageError";
import { PayableBalancesCard } from "../components/PayableBalancesCard";
import { CheckedAnswer, PayoutAnswer, PaypalRunAnswer } from "../components/PayoutAnswer";
import { PayoutConfirmModal } from "../components/PayoutConfirmModal";
import { PayoutHistoryCard } from "../components/PayoutHistoryCard";
import { SectionCard } from "../components/SectionCard";
import { chosenTotals } from "../commissions/chosen-totals";
import { PaypalPart } from "../components/PayoutMethodsCard";
import { answerParts, type PayoutsRouteAnswer } from "../payouts/page-answers";
import { payoutsRouteAction, payoutsRouteData } from "../payouts/payouts-route.server";
import { PayoutScheduleCard } from "../components/PayoutScheduleCard";
import { ChosenBalanceInputs, RecordPayoutFields } from "../components/RecordPayoutFields";
import { SentRunButtons } from "../components/SentRunButtons";
import { t } from "../i18n";
import { staffIdOf } from "../sessions/staff-member";
import { authenticate } from "../shopify.server";
import { requestLocale } from "../units/shop-format";

// Payouts: choose approved balances of one currency, review them in a confirmation that names
// every creator and amount, and record the payment with a reference and a date. Each page load
// carries a fresh form token (the payout's idempotency key): submitting the same form twice
// finds the payout already recorded instead of paying again. Each chosen balance is sent with
// the amount shown beside it, what the merchant paid: one that changed since is refused, and
// every refusal clears the choices so nothing the merchant has not looked at again is paid.
// A recorded payout can be voided, never edited. PayPal, store credit and gift cards have the app
// send them instead (app/payouts): the provider's status shows on each, and a bounce makes its
// balance payable again.
// The schedule card sets when the app pays by itself, and previews its next run.

export const meta = adminMeta(() => t("payouts.title"));

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  return json(await payoutsRouteData(session.shop, requestLocale(request)));
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const context = await authenticate.admin(request);
  const form = await request.formData();
  const result = await payoutsRouteAction(context.session.shop, form, staffIdOf(context), requestLocale(request));
  return json<PayoutsRouteAnswer>(result, {
    status: result.ok ? 200 : result.intent === "checked" ? result.status : 400,
  });
};

export default function PayoutsPage() {
  const {
    balances,
    payouts,
    formToken,
    today,
    names,
    times,
    locale,
    payoutSettings,
    webhookUrl,
    shopCurrency,
    schedule,
    waiting,
  } = useLoaderData<typeof loader>();
  const answered = useActionData<typeof action>() as PayoutsRouteAnswer | undefined;
  const { ledger: result, schedule: scheduleResult, paypal: paypalResult, checked } = answerParts(answered);
  const runResult =
    paypalResult?.intent === "paypal-run" || paypalResult?.intent === "shopify-run" ? paypalResult : undefined;
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
  const errors = recordResult && !recordResult.ok ? recordResult.errors : {};
  const answer = useFocusOnAnswer<BannerHandles>(answered);

  // A recorded payout empties the form; its balances are gone from the reloaded list. Any
  // refusal clears the choices too: a balance left chosen would otherwise ride silently into
  // the next submit, though the merchant has not looked at it again.
  useEffect(() => {
    if (!recordResult && !runResult) return;
    setConfirming(false);
    setChosen([]);
    if (recordResult?.ok) setReference("");
  }, [recordResult, runResult]);

  const chosenBalances = balances.filter((b) => chosen.includes(b.key));
  const totals = chosenTotals(chosenBalances, locale);
  const mixed = totals.length > 1;

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
      <PayoutAnswer result={result} answerRef={answer} />
      <PaypalRunAnswer result={runResult} answerRef={answer} />
      <CheckedAnswer result={checked} answerRef={answer} />

      <Form method="post" ref={formRef} data-testid="payout-form">
        <input type="hidden" name="intent" value="record" />
        <input type="hidden" name="formToken" value={formToken} />
        <ChosenBalanceInputs chosen={chosenBalances} />
        <BlockStack gap="400">
          <PayableBalancesCard
            balances={balances}
            names={names}
            chosen={chosen}
            onToggle={toggle}
            totals={totals}
            times={times}
          />
          <SectionCard title={t("payouts.submit")}>
            <RecordPayoutFields
              reference={reference}
              onReference={setReference}
              paidOn={paidOn}
              onPaidOn={setPaidOn}
              errors={{ reference: errors.reference ?? referenceHint, paidOn: errors.paidOn }}
              canReview={chosen.length > 0 && !mixed}
              onReview={review}
            />
            <SentRunButtons
              disabled={chosen.length === 0 || mixed || submitting}
              form={formRef}
              balances={balances}
              names={names}
              methods={payoutSettings}
              shopCurrency={shopCurrency}
            />
          </SectionCard>
        </BlockStack>
      </Form>

      {/* Mounted only while open: a closing Modal takes the focus back from the answer's banner. */}
      {confirming ? (
        <PayoutConfirmModal
          chosen={chosenBalances}
          names={names}
          total={totals[0]?.total ?? ""}
          reference={reference}
          paidOn={paidOn}
          locale={locale}
          submitting={submitting}
          onRecord={record}
          onClose={() => setConfirming(false)}
        />
      ) : null}

      <PayoutScheduleCard
        key={JSON.stringify(schedule.schedule)}
        part={schedule}
        names={names}
        answer={scheduleResult}
      />
      <PayoutHistoryCard payouts={payouts} times={times} waiting={waiting} />
      <PaypalPart
        settings={payoutSettings}
        webhookUrl={webhookUrl}
        creators={[...new Set(balances.map((b) => b.creatorId))]}
        names={names}
        answer={paypalResult}
      />
    </AdminPage>
  );
}

export function ErrorBoundary() {
  return <PageError />;
}
