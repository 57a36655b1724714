import { Link as RemixLink } from "@remix-run/react";
import { BlockStack, Box, Card, InlineGrid, InlineStack, Text } from "@shopify/polaris";
import type { ReactNode } from "react";
import { localePath, t } from "../i18n";
import type { CreatorAttention } from "../dashboard/creator-attention.server";
import { OUTCOMES, type Outcome } from "../verification/outcomes";
import { ReviewByCreator, SuspectedCreators } from "./CreatorAttention";
import { CommissionStatusBadge, OutcomeBadge } from "./OutcomeBadge";

// The dashboard's first two cards and its counts: what the app recovered, what needs the
// merchant, and the period's orders by outcome with the empty ones folded away.

/** An order's outcome, as the period's counts show it: a delivery that was no order (invalid) is left out. */
type CountedOutcome = Exclude<Outcome, "invalid">;

type Counts = Record<CountedOutcome | "verified" | "inProgress", number>;

interface SummaryData {
  period: number;
  counts: Counts;
  hijackRate: string | null;
  redirected: { currency: string; totalText: string; orders: number }[];
  attention: { id: string; orderId: string; orderName: string | null; outcome: string | null; createdAt: string }[];
  inReview: { count: number; orders: { id: string; orderId: string; orderName: string | null; createdAt: string }[] };
  creators: CreatorAttention;
  creatorNames: Record<string, string | undefined>;
}

/** What Tag Guard got back for the shop's creators in the period: the money first. */
export function Recovered({ data }: { data: SummaryData }) {
  const { hijacked, verified } = data.counts;
  return (
    <Card>
      <div id="recovered">
        <BlockStack gap="300">
          <Text as="h2" variant="headingMd">
            {t("dashboard.recoveredTitle", { days: data.period })}
          </Text>
          {data.redirected.length === 0 ? (
            <Text as="p" variant="headingLg">
              {hijacked === 0 ? t("dashboard.recoveredNothingHijacked") : t("dashboard.recoveredNone")}
            </Text>
          ) : (
            <InlineGrid columns={{ xs: 1, md: Math.min(data.redirected.length, 3) }} gap="400">
              {data.redirected.map((total) => (
                <BlockStack key={total.currency} gap="100">
                  <Text as="p" variant="heading2xl" id={`recovered-${total.currency}`}>
                    {total.totalText}
                  </Text>
                  <Text as="p" tone="subdued">
                    {t("dashboard.recoveredFrom", { count: total.orders })}
                  </Text>
                </BlockStack>
              ))}
            </InlineGrid>
          )}
          <Text as="p" id="hijacked-share">
            {verified === 0
              ? t("dashboard.nothingCheckedYet")
              : t("dashboard.hijackedShare", { count: hijacked, verified, rate: data.hijackRate ?? "0.0%" })}
          </Text>
        </BlockStack>
      </div>
    </Card>
  );
}

/** Orders the merchant can do something about, each with where to do it; folds to one line when none. */
export function Attention({ data, time }: { data: SummaryData; time: (iso: string) => string }) {
  const { failed, rejected, inProgress } = data.counts;
  const lines: ReactNode[] = [];
  if (data.creators.suspected.count > 0)
    lines.push(<SuspectedCreators key="suspected" creators={data.creators} names={data.creatorNames} />);
  if (data.inReview.count > 0)
    lines.push(
      <AttentionLine key="review" id="attention-review">
        {t("dashboard.attentionReview", { count: data.inReview.count })}
      </AttentionLine>,
      <ReviewByCreator key="review-by-creator" creators={data.creators} names={data.creatorNames} />,
    );
  if (rejected > 0)
    lines.push(
      <AttentionLine
        key="rejected"
        id="attention-rejected"
        action={t("dashboard.attentionRejectedAction")}
        to={localePath("/app/settings")}
      >
        {t("dashboard.attentionRejected", { count: rejected })}
      </AttentionLine>,
    );
  if (failed > 0)
    lines.push(
      <AttentionLine
        key="failed"
        id="attention-failed"
        action={t("dashboard.attentionFailedAction")}
        to={localePath("/app/settings")}
      >
        {t("dashboard.attentionFailed", { count: failed })}
      </AttentionLine>,
    );
  if (inProgress > 0)
    lines.push(
      <AttentionLine key="checking" id="attention-checking">
        {t("dashboard.attentionChecking", { count: inProgress })}
      </AttentionLine>,
    );
  return (
    <Card>
      <div id="attention">
        <BlockStack gap="300">
          <Text as="h2" variant="headingMd">
            {t("dashboard.attentionTitle")}
          </Text>
          {lines.length === 0 ? <Text as="p">{t("dashboard.attentionNone")}</Text> : lines}
          <OrderLinks
            orders={data.inReview.orders}
            time={time}
            badge={() => <CommissionStatusBadge status="review" />}
          />
          <OrderLinks orders={data.attention} time={time} badge={(order) => <OutcomeBadge outcome={order.outcome} />} />
        </BlockStack>
      </div>
    </Card>
  );
}

/** Orders to open, each with its badge and time; nothing when there are none. */
function OrderLinks<O extends { id: string; orderId: string; orderName: string | null; createdAt: string }>({
  orders,
  time,
  badge,
}: {
  orders: O[];
  time: (iso: string) => string;
  badge: (order: O) => ReactNode;
}) {
  if (orders.length === 0) return null;
  return (
    <BlockStack gap="100">
      {orders.map((order) => (
        <InlineStack key={order.id} gap="200" blockAlign="center">
          <RemixLink to={localePath(`/app/orders/${order.id}`)}>{order.orderName ?? `#${order.orderId}`}</RemixLink>
          {badge(order)}
          <Text as="span" tone="subdued">
            {time(order.createdAt)}
          </Text>
        </InlineStack>
      ))}
    </BlockStack>
  );
}

function AttentionLine({
  id,
  children,
  action,
  to,
}: {
  id: string;
  children: ReactNode;
  action?: string;
  to?: string;
}) {
  return (
    <InlineStack gap="200" blockAlign="center" wrap>
      <Text as="p" id={id}>
        {children}
      </Text>
      {action && to ? <RemixLink to={to}>{action}</RemixLink> : null}
    </InlineStack>
  );
}

/** Orders that came through a creator's link (matched + hijacked) first, then each outcome in the one list's order. */
const COUNT_KEYS = [
  "verified",
  ...OUTCOMES.filter((outcome): outcome is CountedOutcome => outcome !== "invalid"),
] as const;

/** The period's orders by outcome: the ones with orders shown, the empty ones folded into one line. */
export function OutcomeCounts({ counts }: { counts: Counts }) {
  const shown = COUNT_KEYS.filter((key) => counts[key] > 0);
  const folded = COUNT_KEYS.filter((key) => counts[key] === 0);
  return (
    <BlockStack gap="300">
      {shown.length === 0 ? (
        <Text as="p">{t("dashboard.countsNone")}</Text>
      ) : (
        <InlineGrid columns={{ xs: 2, md: 4 }} gap="300">
          {shown.map((key) => (
            <Box key={key} padding="200" background="bg-surface-secondary" borderRadius="200">
              <BlockStack gap="100">
                <Text as="span" tone="subdued">
                  {t(`dashboard.countLabel.${key}`)}
                </Text>
                <Text as="span" variant="headingLg" id={`count-${key}`}>
                  {counts[key]}
                </Text>
              </BlockStack>
            </Box>
          ))}
        </InlineGrid>
      )}
      {folded.length > 0 ? (
        <details id="counts-folded">
          <summary>
            <Text as="span" tone="subdued">
              {t("dashboard.countsFolded", { count: folded.length })}
            </Text>
          </summary>
          <Text as="p" tone="subdued">
            {folded.map((key) => (
              <span key={key} id={`count-${key}`} data-count="0">
                {t(`dashboard.countLabel.${key}`)}
                {key === folded[folded.length - 1] ? "" : ", "}
              </span>
            ))}
          </Text>
        </details>
      ) : null}
    </BlockStack>
  );
}
