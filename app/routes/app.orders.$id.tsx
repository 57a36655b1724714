import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Banner, Button, Card, InlineStack, Text } from "@shopify/polaris";
import type { BannerHandles } from "@shopify/polaris";
import { AdminPage } from "../components/AdminPage";
import { adminMeta } from "../components/documentTitle";
import { useFocusOnAnswer } from "../components/useFocusOnAnswer";
import { OutcomeBadge } from "../components/OutcomeBadge";
import {
  ArrivedCard,
  CommissionCard,
  JourneyCard,
  OrderStoryCard,
  TamperWarning,
  VerdictCard,
  WitnessesCard,
} from "../components/OrderEvidence";
import { AuditTrailCard, LedgerEntriesCard, OrderEventsCard } from "../components/OrderHistory";
import { HeldCreatorBanners, OrderClaimsCard } from "../components/OrderCreators";
import { PageError } from "../components/PageError";
import { formatCurrency, requestLocale, shownTime } from "../units/shop-format";
import { ContestCard, type ContestAnswer } from "../components/ContestCard";
import { decideContest } from "../commissions/review.server";
import { getOrderDetailFor } from "../dashboard/order-detail.server";
import { localePath, t } from "../i18n";
import { staffIdOf } from "../sessions/staff-member";
import { authenticate } from "../shopify.server";
import { retryVerificationNow, type ManualRetryResult } from "../verification/manual-retry.server";

// One order, in the order a merchant asks: what happened and what it meant for the money (one
// sentence), then the evidence, then the audit trail; "Retry now" for orders that ended
// without a verdict while their click is still valid. Times are the shop's, formatted by the loader.

export const meta = adminMeta(({ data }) => {
  const order = (data as { order?: { orderName: string | null; orderId: string } } | undefined)?.order;
  return order ? t("order.title", { name: order.orderName ?? `#${order.orderId}` }) : t("meta.order");
});

export const loader = async ({ request, params }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const order = await getOrderDetailFor(session.shop, params.id ?? "", requestLocale(request));
  if (!order) throw json({ message: "not found" }, { status: 404 });
  return json({ order });
};

export const action = async ({ request, params }: ActionFunctionArgs) => {
  const context = await authenticate.admin(request);
  const shop = context.session.shop;
  const form = await request.formData();
  if (form.get("intent") === "decide-contest") {
    const clickId = form.get("clickId");
    if (typeof clickId !== "string" || clickId === "")
      return json<ContestAnswer>({ intent: "decide-contest", ok: false, error: "bad-request" }, { status: 400 });
    const staffId = staffIdOf(context);
    const result = await decideContest(shop, params.id ?? "", {
      clickId: clickId === "none" ? null : clickId,
      by: staffId,
    });
    if (!result.ok)
      return json<ContestAnswer>(
        { intent: "decide-contest", ok: false, error: result.error },
        { status: result.error === "not-found" ? 404 : 409 },
      );
    const amountText = formatCurrency(result.amount, result.currency, requestLocale(request));
    return json<ContestAnswer>({ intent: "decide-contest", ok: true, status: result.status, amountText });
  }
  const result = await retryVerificationNow(shop, params.id ?? "");
  return json<ManualRetryResult>(result, { status: result.ok ? 200 : result.reason === "not-found" ? 404 : 409 });
};

function retryMessage(result: ManualRetryResult): { tone: "success" | "warning"; text: string } {
  if (result.ok) return { tone: "success", text: t("order.retryQueued") };
  if (result.reason === "not-found") return { tone: "warning", text: t("order.retryNotFound") };
  if (result.reason === "click-expired") return { tone: "warning", text: t("order.retryExpired") };
  return { tone: "warning", text: t("order.retryNotRetryable") };
}

export default function OrderPage() {
  const { order } = useLoaderData<typeof loader>();
  const answered = useActionData<typeof action>() as ManualRetryResult | ContestAnswer | undefined;
  const contestAnswer = answered && "intent" in answered ? answered : undefined;
  const retried = answered && !("intent" in answered) ? answered : undefined;
  const navigation = useNavigation();
  const submitting = navigation.state === "submitting";
  const retrying = submitting && navigation.formData?.get("intent") !== "decide-contest";
  const message = retried ? retryMessage(retried) : null;
  const answer = useFocusOnAnswer<BannerHandles>(retried);
  const contestAnswerRef = useFocusOnAnswer<BannerHandles>(contestAnswer);
  const time = (iso: string | null | undefined) => shownTime(order.times, iso);

  return (
    <AdminPage
      backAction={{ content: t("common.back"), url: localePath("/app") }}
      title={t("order.title", { name: order.orderName ?? `#${order.orderId}` })}
      titleMetadata={<OutcomeBadge outcome={order.outcome} />}
      secondaryActions={[{ content: t("order.openInShopify"), url: order.adminOrderUrl, target: "_top" }]}
    >
      {message ? (
        <Banner ref={answer} tone={message.tone}>
          {message.text}
        </Banner>
      ) : null}

      <HeldCreatorBanners creators={order.creators} names={order.creatorNames} />
      <OrderStoryCard order={order} time={time} />

      {order.contest ? (
        <ContestCard
          contest={order.contest}
          creatorNames={order.creatorNames}
          time={time}
          answer={contestAnswer}
          answerRef={contestAnswerRef}
          submitting={submitting && navigation.formData?.get("intent") === "decide-contest"}
        />
      ) : null}

      {order.tamper ? <TamperWarning tamper={order.tamper} time={time} /> : null}
      {order.canRetry && !retried?.ok ? (
        <Card>
          <InlineStack align="space-between" blockAlign="center">
            <Text as="p">{t("order.retryHelp")}</Text>
            <Form method="post">
              <Button submit variant="primary" loading={retrying}>
                {t("order.retry")}
              </Button>
            </Form>
          </InlineStack>
        </Card>
      ) : null}

      <CommissionCard commission={order.commission} creatorNames={order.creatorNames} time={time} />
      <VerdictCard order={order} creatorNames={order.creatorNames} time={time} />
      <ArrivedCard order={order} time={time} />
      <OrderClaimsCard creators={order.creators} names={order.creatorNames} />
      <WitnessesCard witnesses={order.witnesses} />
      <JourneyCard order={order} time={time} />
      <AuditTrailCard order={order} time={time} />
      {order.commission ? <LedgerEntriesCard entries={order.commission.entries} time={time} /> : null}
      {order.events.length > 0 ? <OrderEventsCard events={order.events} time={time} /> : null}
    </AdminPage>
  );
}

export function ErrorBoundary() {
  return <PageError />;
}
