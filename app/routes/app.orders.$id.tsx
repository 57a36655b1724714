import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Badge, Banner, BlockStack, Button, Card, InlineStack, Link, List, Text } from "@shopify/polaris";
import type { BannerHandles } from "@shopify/polaris";
import { AdminPage } from "../components/AdminPage";
import { adminMeta } from "../components/documentTitle";
import { CreatorName } from "../components/CreatorName";
import { DetailRow } from "../components/DetailRow";
import { useFocusOnAnswer } from "../components/useFocusOnAnswer";
import { EmptyNote } from "../components/EmptyNote";
import { CommissionStatusBadge, OutcomeBadge } from "../components/OutcomeBadge";
import { PageError } from "../components/PageError";
import { SectionCard } from "../components/SectionCard";
import { formatCurrency, requestLocale, shownTime } from "../units/shop-format";
import { ContestCard, type ContestAnswer } from "../components/ContestCard";
import { decideContest } from "../commissions/review.server";
import { getOrderDetailFor } from "../dashboard/order-detail.server";
import { hasMessage, t } from "../i18n";
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

const none = () => t("common.none");

function sourceLabel(source: string | null): string {
  if (source === "app_proxy") return t("order.sourceProxy");
  if (source === "pixel") return t("order.sourcePixel");
  if (source === "cart_attributes") return t("order.sourceNote");
  if (source === "landing_site") return t("order.sourceLanding");
  return t("order.sourceNone");
}

function clicksSeen(clickIds: string[]): string {
  return clickIds.length === 0 ? t("order.witnessNothing") : clickIds.join(", ");
}

function clickAndTag(seen: { clickId: string | null; tag: string | null }): string {
  if (seen.clickId === null && seen.tag === null) return t("order.witnessNothing");
  return t("order.witnessClickTag", { clickId: seen.clickId ?? t("common.none"), tag: seen.tag ?? t("common.none") });
}

function retryMessage(result: ManualRetryResult): { tone: "success" | "warning"; text: string } {
  if (result.ok) return { tone: "success", text: t("order.retryQueued") };
  if (result.reason === "not-found") return { tone: "warning", text: t("order.retryNotFound") };
  if (result.reason === "click-expired") return { tone: "warning", text: t("order.retryExpired") };
  return { tone: "warning", text: t("order.retryNotRetryable") };
}

/** A key of en.json when it exists, else the raw value (a step or result added later still shows). */
function worded(prefix: string, value: string): string {
  return hasMessage(`${prefix}.${value}`) ? t(`${prefix}.${value}`) : value;
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
  const c = order.commission;
  const time = (iso: string | null | undefined) => shownTime(order.times, iso);

  function clickState(click: {
    state: string;
    expectedTag: string | null;
    creatorId: string | null;
    lookedUpAt: string | null;
  }) {
    if (click.state === "known") {
      return t("order.clickStateKnown", {
        time: time(click.lookedUpAt),
        expectedTag: click.expectedTag ?? none(),
        creatorId: click.creatorId ?? none(),
      });
    }
    if (click.state === "unknown") return t("order.clickStateUnknown");
    if (click.state === "failed") return t("order.clickStateFailed");
    return t("order.clickStatePending");
  }

  const validUntil = order.click.validUntil
    ? order.click.expiredBeforeOrder
      ? t("order.clickExpiredBeforeOrder", { time: time(order.click.validUntil) })
      : time(order.click.validUntil)
    : order.arrived.clickId
      ? t("order.clickTimeUnknown")
      : none();
  // Only the witness that did bring the click is named: "the embed was off" beside a click the
  // embed wrote into the cart would contradict the capture line above it.
  const journeyEmpty =
    order.arrived.captureSource === "cart_attributes"
      ? t("order.journeyEmptyCart")
      : order.arrived.captureSource === "landing_site"
        ? t("order.journeyEmptyLandingSite")
        : t("order.journeyEmpty");

  return (
    <AdminPage
      backAction={{ content: t("common.back"), url: "/app" }}
      title={t("order.title", { name: order.orderName ?? `#${order.orderId}` })}
      titleMetadata={<OutcomeBadge outcome={order.outcome} />}
      secondaryActions={[{ content: t("order.openInShopify"), url: order.adminOrderUrl, target: "_top" }]}
    >
      {message ? (
        <Banner ref={answer} tone={message.tone}>
          {message.text}
        </Banner>
      ) : null}

      <Card>
        <BlockStack gap="300">
          <InlineStack gap="200" blockAlign="center">
            <OutcomeBadge outcome={order.outcome} />
            {order.outcome === null ? <Badge tone="info">{worded("state", order.state)}</Badge> : null}
          </InlineStack>
          <Text as="p" variant="headingLg" id="order-story">
            {order.story.sentence}
          </Text>
          <Text as="p" tone="subdued" id="order-placed">
            {t("order.placedAt", { time: time(order.orderCreatedAt) })}
            {order.timeZone.known ? "" : ` ${t("common.zoneFallback")}`}
          </Text>
          <InlineStack>
            <Link url={order.adminOrderUrl} target="_top">
              {t("order.openInShopify")}
            </Link>
          </InlineStack>
        </BlockStack>
      </Card>

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

      {order.tamper ? (
        <Banner tone="warning" title={t("order.tamperedTitle")}>
          <Text as="p">
            {t("order.tamperedBody", {
              clickId: order.tamper.cartClickId ?? t("common.none"),
              tag: order.tamper.cartTag ?? t("common.none"),
            })}
          </Text>
          <List type="bullet">
            {order.tamper.findings.map((finding) => (
              <List.Item key={finding}>{finding}</List.Item>
            ))}
            {(order.tamper.competingClicks ?? []).map((competing) => (
              <List.Item key={`competing-${competing.clickId}`}>
                {t("order.competingClick", {
                  clickId: competing.clickId,
                  witness: t(`order.witnessName.${competing.witness}`),
                  time: time(competing.firstSeenAt),
                  why: competing.why === "unrecorded" ? t("order.competingUnrecorded") : t("order.competingLater"),
                })}
              </List.Item>
            ))}
          </List>
        </Banner>
      ) : null}
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

      <SectionCard title={t("order.commission")}>
        {c ? (
          <>
            <DetailRow label={t("order.amount")}>{c.amountText}</DetailRow>
            <DetailRow label={t("order.creator")}>
              <CreatorName creatorId={c.creatorId} name={order.creatorNames[c.creatorId]} />
            </DetailRow>
            <DetailRow label={t("order.rate")}>
              {t("order.rateOf", { rate: c.rate, value: c.orderValueText })}
            </DetailRow>
            <DetailRow label={t("order.commissionStatus")}>
              <CommissionStatusBadge status={c.status} />
            </DetailRow>
            <DetailRow label={t("order.redirected")}>{c.redirected ? t("common.yes") : t("common.no")}</DetailRow>
            <DetailRow label={t("order.holdUntil")}>{time(c.holdUntil)}</DetailRow>
          </>
        ) : (
          <EmptyNote>{t("order.commissionNone")}</EmptyNote>
        )}
      </SectionCard>

      <SectionCard title={t("order.verdict")}>
        <DetailRow label={t("order.expectedTag")}>{order.verdict.expectedTag ?? none()}</DetailRow>
        <DetailRow label={t("order.arrivedTag")}>{order.arrived.arrivedTag ?? t("order.tagMissing")}</DetailRow>
        <DetailRow label={t("order.creator")}>
          {order.verdict.creatorId ? (
            <CreatorName creatorId={order.verdict.creatorId} name={order.creatorNames[order.verdict.creatorId]} />
          ) : (
            none()
          )}
        </DetailRow>
        <DetailRow label={t("order.verdictSource")}>
          {order.verdict.source === "landing"
            ? t("order.verdictSourceLanding")
            : order.verdict.source === "service"
              ? t("order.verdictSourceService")
              : none()}
        </DetailRow>
        {order.verdict.reportConfirmed !== null ? (
          <DetailRow label={t("order.report")}>
            {order.verdict.reportConfirmed ? t("order.reportConfirmed") : t("order.reportUnconfirmed")}
          </DetailRow>
        ) : null}
        <DetailRow label={t("order.tagWritten")}>
          {order.tagging.taggedAt
            ? t("order.taggedWith", { tag: order.tagging.hijackTag ?? none(), time: time(order.tagging.taggedAt) })
            : t("order.notTagged")}
        </DetailRow>
        <DetailRow label={t("order.discountCodes")}>
          {order.discountCodes.length === 0
            ? none()
            : order.discountCodes.map((d) => t("order.discountCode", { code: d.code, amount: d.amount })).join(", ")}
        </DetailRow>
      </SectionCard>

      <SectionCard title={t("order.arrived")}>
        <DetailRow label={t("order.captureSource")}>{sourceLabel(order.arrived.captureSource)}</DetailRow>
        <DetailRow label={t("order.clickId")}>{order.arrived.clickId ?? none()}</DetailRow>
        <DetailRow label={t("order.clickedAt")}>
          {order.click.clickedAt
            ? time(order.click.clickedAt)
            : order.arrived.clickId
              ? t("order.clickTimeUnknownShort")
              : none()}
        </DetailRow>
        <DetailRow label={t("order.deadlineAt")}>
          <span id="click-valid-until">{validUntil}</span>
        </DetailRow>
        <DetailRow label={t("order.tagHistory")}>
          {order.arrived.tagHistory.length === 0
            ? t("order.tagHistoryEmpty")
            : order.arrived.tagHistory.map((h) => `${h.tag} (${time(h.at || null)})`).join(" → ")}
        </DetailRow>
      </SectionCard>

      <SectionCard title={t("order.witnesses")}>
        <Text as="p" tone="subdued">
          {t("order.witnessesHelp")}
        </Text>
        {order.witnesses ? (
          <BlockStack gap="200">
            <DetailRow label={t("order.witnessLanding")}>{clicksSeen(order.witnesses.landing)}</DetailRow>
            <DetailRow label={t("order.witnessPixel")}>{clicksSeen(order.witnesses.pixel)}</DetailRow>
            <DetailRow label={t("order.witnessPixelCheckout")}>
              {order.witnesses.pixelCheckout
                ? clickAndTag(order.witnesses.pixelCheckout)
                : t("order.witnessNotReported")}
            </DetailRow>
            <DetailRow label={t("order.witnessCart")}>{clickAndTag(order.witnesses.cartAttributes)}</DetailRow>
            <DetailRow label={t("order.witnessLandingSite")}>
              {clicksSeen(order.witnesses.landingSite ? [order.witnesses.landingSite] : [])}
            </DetailRow>
          </BlockStack>
        ) : (
          <EmptyNote>{t("order.witnessesUnknown")}</EmptyNote>
        )}
      </SectionCard>

      <SectionCard title={t("order.journey")}>
        <Text as="p" tone="subdued">
          {t("order.journeyHelp")}
        </Text>
        {order.journey.touches.length === 0 ? (
          <EmptyNote>{journeyEmpty}</EmptyNote>
        ) : (
          <List type="bullet">
            {order.journey.touches.map((touch) => (
              <List.Item key={`${touch.seenAt}-${touch.clickId}-${touch.tag}`}>
                {t("order.journeyTouch", {
                  time: time(touch.seenAt),
                  clickId: touch.clickId,
                  tag: touch.tag ?? t("dashboard.strippedTag"),
                })}
              </List.Item>
            ))}
            {order.journey.clicks.map((click) => (
              <List.Item key={click.clickId}>
                {t("order.journeyClick", { clickId: click.clickId, state: clickState(click) })}
              </List.Item>
            ))}
          </List>
        )}
      </SectionCard>

      <SectionCard title={t("order.auditTrail")}>
        {order.reason ? <DetailRow label={t("order.reason")}>{order.reason}</DetailRow> : null}
        {order.attempts.length === 0 ? (
          <EmptyNote>{t("order.attemptsEmpty")}</EmptyNote>
        ) : (
          <List type="bullet">
            {order.attempts.map((a) => (
              <List.Item key={`${a.number}-${a.step}-${a.startedAt}`}>
                {t("order.attemptRow", {
                  time: time(a.startedAt),
                  step: worded("order.attemptStep", a.step),
                  result: worded("order.attemptResult", a.result),
                })}
                {a.error ? (
                  <details>
                    <summary>{t("order.technicalDetail")}</summary>
                    <Text as="span" tone="subdued" breakWord>
                      {a.error}
                    </Text>
                  </details>
                ) : null}
              </List.Item>
            ))}
          </List>
        )}
        {order.lastError ? (
          <details>
            <summary>{t("order.lastError")}</summary>
            <Text as="span" tone="subdued" breakWord>
              {order.lastError}
            </Text>
          </details>
        ) : null}
      </SectionCard>

      {c ? (
        <SectionCard title={t("order.entries")}>
          {c.entries.length === 0 ? (
            <EmptyNote>{t("order.entriesEmpty")}</EmptyNote>
          ) : (
            <List>
              {c.entries.map((e, index) => (
                <List.Item key={`${e.kind}-${e.createdAt}-${index}`}>
                  {t("order.entryRow", {
                    kind: worded("order.entryKind", e.kind),
                    amount: e.amountText,
                    time: time(e.createdAt),
                  })}
                </List.Item>
              ))}
            </List>
          )}
        </SectionCard>
      ) : null}

      {order.events.length > 0 ? (
        <SectionCard title={t("order.events")}>
          <List>
            {order.events.map((e, index) => (
              <List.Item key={`${e.kind}-${e.receivedAt}-${index}`}>
                {t("order.eventRow", {
                  kind: worded("order.eventKind", e.kind),
                  time: time(e.receivedAt),
                  result: e.result ?? t("order.eventWaiting"),
                })}
              </List.Item>
            ))}
          </List>
        </SectionCard>
      ) : null}
    </AdminPage>
  );
}

export function ErrorBoundary() {
  return <PageError />;
}
