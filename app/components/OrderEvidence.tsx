import { Badge, Banner, BlockStack, Card, InlineStack, Link, List, Text } from "@shopify/polaris";
import type { OrderDetail } from "../dashboard/order-detail.server";
import { t, worded } from "../i18n";
import { CreatorName } from "./CreatorName";
import { DetailRow } from "./DetailRow";
import { EmptyNote } from "./EmptyNote";
import { CommissionStatusBadge, OutcomeBadge } from "./OutcomeBadge";
import { SectionCard } from "./SectionCard";

// The order page's story and evidence, in the order a merchant asks: what happened and what it
// meant for the money, whether the cart was tampered with, the commission, the verdict, what
// arrived with the order, what each witness saw, and the shopper's journey.

/** A time as the page shows it: the shop's zone, formatted by the loader. */
type Time = (iso: string | null | undefined) => string;
type CreatorNames = Record<string, string | undefined>;

const none = () => t("common.none");

/** The opening card: the outcome, the one sentence, when the order was placed, and a way to it in Shopify. */
export function OrderStoryCard({ order, time }: { order: OrderDetail; time: Time }) {
  return (
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
  );
}

/** What the cart's attributes claimed against the server's records, and the clicks that competed. */
export function TamperWarning({ tamper, time }: { tamper: NonNullable<OrderDetail["tamper"]>; time: Time }) {
  return (
    <Banner tone="warning" title={t("order.tamperedTitle")}>
      <Text as="p">
        {t("order.tamperedBody", {
          clickId: tamper.cartClickId ?? t("common.none"),
          tag: tamper.cartTag ?? t("common.none"),
        })}
      </Text>
      <List type="bullet">
        {tamper.findings.map((finding) => (
          <List.Item key={finding}>{finding}</List.Item>
        ))}
        {(tamper.competingClicks ?? []).map((competing) => (
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
  );
}

export function CommissionCard({
  commission: c,
  creatorNames,
  time,
}: {
  commission: OrderDetail["commission"];
  creatorNames: CreatorNames;
  time: Time;
}) {
  return (
    <SectionCard title={t("order.commission")}>
      {c ? (
        <>
          <DetailRow label={t("order.amount")}>{c.amountText}</DetailRow>
          <DetailRow label={t("order.creator")}>
            <CreatorName creatorId={c.creatorId} name={creatorNames[c.creatorId]} />
          </DetailRow>
          <DetailRow label={t("order.rate")}>{t("order.rateOf", { rate: c.rate, value: c.orderValueText })}</DetailRow>
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
  );
}

export function VerdictCard({
  order,
  creatorNames,
  time,
}: {
  order: OrderDetail;
  creatorNames: CreatorNames;
  time: Time;
}) {
  return (
    <SectionCard title={t("order.verdict")}>
      <DetailRow label={t("order.expectedTag")}>{order.verdict.expectedTag ?? none()}</DetailRow>
      <DetailRow label={t("order.arrivedTag")}>{order.arrived.arrivedTag ?? t("order.tagMissing")}</DetailRow>
      <DetailRow label={t("order.creator")}>
        {order.verdict.creatorId ? (
          <CreatorName creatorId={order.verdict.creatorId} name={creatorNames[order.verdict.creatorId]} />
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
  );
}

function sourceLabel(source: string | null): string {
  if (source === "app_proxy") return t("order.sourceProxy");
  if (source === "pixel") return t("order.sourcePixel");
  if (source === "cart_attributes") return t("order.sourceNote");
  if (source === "landing_site") return t("order.sourceLanding");
  return t("order.sourceNone");
}

export function ArrivedCard({ order, time }: { order: OrderDetail; time: Time }) {
  const validUntil = order.click.validUntil
    ? order.click.expiredBeforeOrder
      ? t("order.clickExpiredBeforeOrder", { time: time(order.click.validUntil) })
      : time(order.click.validUntil)
    : order.arrived.clickId
      ? t("order.clickTimeUnknown")
      : none();
  return (
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
  );
}

function clicksSeen(clickIds: string[]): string {
  return clickIds.length === 0 ? t("order.witnessNothing") : clickIds.join(", ");
}

function clickAndTag(seen: { clickId: string | null; tag: string | null }): string {
  if (seen.clickId === null && seen.tag === null) return t("order.witnessNothing");
  return t("order.witnessClickTag", { clickId: seen.clickId ?? t("common.none"), tag: seen.tag ?? t("common.none") });
}

export function WitnessesCard({ witnesses }: { witnesses: OrderDetail["witnesses"] }) {
  return (
    <SectionCard title={t("order.witnesses")}>
      <Text as="p" tone="subdued">
        {t("order.witnessesHelp")}
      </Text>
      {witnesses ? (
        <BlockStack gap="200">
          <DetailRow label={t("order.witnessLanding")}>{clicksSeen(witnesses.landing)}</DetailRow>
          <DetailRow label={t("order.witnessPixel")}>{clicksSeen(witnesses.pixel)}</DetailRow>
          <DetailRow label={t("order.witnessPixelCheckout")}>
            {witnesses.pixelCheckout ? clickAndTag(witnesses.pixelCheckout) : t("order.witnessNotReported")}
          </DetailRow>
          <DetailRow label={t("order.witnessCart")}>{clickAndTag(witnesses.cartAttributes)}</DetailRow>
          <DetailRow label={t("order.witnessLandingSite")}>
            {clicksSeen(witnesses.landingSite ? [witnesses.landingSite] : [])}
          </DetailRow>
        </BlockStack>
      ) : (
        <EmptyNote>{t("order.witnessesUnknown")}</EmptyNote>
      )}
    </SectionCard>
  );
}

export function JourneyCard({ order, time }: { order: OrderDetail; time: Time }) {
  function clickState(click: OrderDetail["journey"]["clicks"][number]) {
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
  // Only the witness that did bring the click is named: "the embed was off" beside a click the
  // embed wrote into the cart would contradict the capture line above it.
  const journeyEmpty =
    order.arrived.captureSource === "cart_attributes"
      ? t("order.journeyEmptyCart")
      : order.arrived.captureSource === "landing_site"
        ? t("order.journeyEmptyLandingSite")
        : t("order.journeyEmpty");
  return (
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
  );
}
