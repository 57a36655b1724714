import { Banner, BlockStack, Text, type BannerHandles } from "@shopify/polaris";
import type { Ref } from "react";
import type { PayoutsActionResult } from "../commissions/payouts-page.server";
import type { CheckedResult } from "../payouts/checked.server";
import type { StartRunResult } from "../payouts/run-intent.server";
import { t } from "../i18n";

/**
 * What the Payouts page says after a submit: the payout recorded (or found already recorded),
 * what was refused and that the choices were cleared, a void done or refused. `answerRef` takes
 * the focus to it.
 */
export function PayoutAnswer({
  result,
  answerRef,
}: {
  result: PayoutsActionResult | undefined;
  answerRef: Ref<BannerHandles>;
}) {
  const recordResult = result?.intent === "record" ? result : undefined;
  const voidResult = result?.intent === "void" ? result : undefined;
  const errors = recordResult && !recordResult.ok ? recordResult.errors : {};
  return (
    <>
      {recordResult?.ok ? (
        <Banner ref={answerRef} tone={recordResult.duplicate ? "info" : "success"}>
          {recordResult.duplicate ? t("payouts.duplicate") : t("payouts.recorded", { count: recordResult.lines })}
        </Banner>
      ) : null}
      {recordResult && !recordResult.ok ? (
        <Banner
          ref={answerRef}
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
        <Banner ref={answerRef} tone="success">
          {t("payouts.voidDone", { count: voidResult.records })}
        </Banner>
      ) : null}
      {voidResult && !voidResult.ok ? (
        <Banner ref={answerRef} tone="critical" title={t("payouts.voidFailed")}>
          <Text as="p">{voidResult.errors.void ?? voidResult.errors.reason ?? voidResult.errors.payoutId}</Text>
        </Banner>
      ) : null}
    </>
  );
}

/** What the page says after "Send with PayPal": the run started (or found started), or why not. */
export function PaypalRunAnswer({
  result,
  answerRef,
}: {
  result: (StartRunResult & { method?: string }) | undefined;
  answerRef: Ref<BannerHandles>;
}) {
  if (!result) return null;
  const started = result.method
    ? (count: number) =>
        t("payouts.shopify.started", { count, method: t(`payouts.methods.${result.method ?? "paypal"}`) })
    : (count: number) => t("payouts.run.started", { count });
  if (result.ok)
    return (
      <Banner ref={answerRef} tone={result.duplicate ? "info" : "success"}>
        {result.duplicate ? t("payouts.run.duplicate") : started(result.lines)}
      </Banner>
    );
  return (
    <Banner ref={answerRef} tone="critical" title={t("payouts.notRecorded")}>
      <BlockStack gap="100">
        <Text as="p">{result.errors.balances}</Text>
        <Text as="p">{t("payouts.choicesCleared")}</Text>
      </BlockStack>
    </Banner>
  );
}

/** What the page says after the merchant's word on a payout that waited for them. */
export function CheckedAnswer({
  result,
  answerRef,
}: {
  result: CheckedResult | undefined;
  answerRef: Ref<BannerHandles>;
}) {
  if (!result) return null;
  if (result.ok)
    return (
      <Banner ref={answerRef} tone="success">
        {t(result.found === "paid" ? "payouts.checked.donePaid" : "payouts.checked.doneUnpaid")}
      </Banner>
    );
  return (
    <Banner ref={answerRef} tone="critical" title={t("payouts.checked.failed")}>
      <Text as="p">{result.errors.checked}</Text>
    </Banner>
  );
}
