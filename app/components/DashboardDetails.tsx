import { Link as RemixLink } from "@remix-run/react";
import { BlockStack, Box, Card, InlineGrid, Link, Text } from "@shopify/polaris";
import type { Dashboard } from "../dashboard/dashboard.server";
import { localePath, t } from "../i18n";
import { CreatorName } from "./CreatorName";
import { EmptyNote } from "./EmptyNote";
import { OutcomeBadge } from "./OutcomeBadge";
import { ResponsiveTable } from "./ResponsiveTable";
import { SectionCard } from "./SectionCard";
import { SplitRow } from "./SplitRow";

// The dashboard's cards after its summary: who hijacks and with which codes, what the landing
// record saved, where the period's clicks came from, the latest verifications, and the
// customers' data requests.

/** A time as the page shows it: the shop's zone, formatted by the loader. */
type Time = (iso: string | null | undefined) => string;

/** The tags that most often replaced the creator's, and the codes that rode on most hijacked orders. */
export function TopTagsAndCodes({ data }: { data: Pick<Dashboard, "topArrivedTags" | "topCodes" | "period"> }) {
  return (
    <InlineGrid columns={{ xs: 1, md: 2 }} gap="400">
      <SectionCard title={t("dashboard.topTags")}>
        {data.topArrivedTags.length === 0 ? (
          <EmptyNote>{t("dashboard.topTagsNone")}</EmptyNote>
        ) : (
          data.topArrivedTags.map((tag) => (
            <SplitRow key={tag.tag} note={tag.orders}>
              {tag.tag || t("dashboard.strippedTag")}
            </SplitRow>
          ))
        )}
      </SectionCard>
      <SectionCard title={t("dashboard.topCodes")}>
        {data.topCodes.length === 0 ? (
          <EmptyNote>{t("dashboard.topCodesNone")}</EmptyNote>
        ) : (
          data.topCodes.map((code) => (
            <SplitRow
              key={`${code.code} ${code.currency}`}
              note={t("dashboard.topCodeNote", { count: code.hijacked, discount: code.discountOnHijacked })}
            >
              {code.code}
            </SplitRow>
          ))
        )}
        <RemixLink to={localePath(`/app/codes?days=${data.period}`)}>{t("dashboard.topCodesLink")}</RemixLink>
      </SectionCard>
    </InlineGrid>
  );
}

/** Orders decided from the landing record after the service forgot their click, and tampered carts. */
export function LandingRecordCard({ landing }: { landing: Dashboard["landing"] }) {
  return (
    <SectionCard title={t("dashboard.landingTitle")}>
      <InlineGrid columns={{ xs: 1, md: 2 }} gap="300">
        <SplitRow variant="headingLg" note={t("dashboard.savedFromExpiryHelp")}>
          <span id="count-saved-from-expiry">{t("dashboard.savedFromExpiry", { count: landing.savedFromExpiry })}</span>
        </SplitRow>
        <SplitRow variant="headingLg" note={t("dashboard.tamperedHelp")}>
          <span id="count-tampered">{t("dashboard.tampered", { count: landing.tampered })}</span>
        </SplitRow>
      </InlineGrid>
    </SectionCard>
  );
}

/** The coverage card: each witness (decision 030), then the orders with none. */
const COVERAGE = [
  ["landing", "dashboard.coverageLanding"],
  ["pixel", "dashboard.coveragePixel"],
  ["cart_attributes", "dashboard.coverageCart"],
  ["landing_site", "dashboard.coverageLandingSite"],
  ["none", "dashboard.coverageNone"],
] as const;

export function CoverageCard({
  data,
}: {
  data: Pick<Dashboard, "period" | "coverage" | "coverageByDay" | "timeZone">;
}) {
  return (
    <SectionCard title={t("dashboard.coverageTitle", { days: data.period })}>
      <Text as="p" tone="subdued">
        {t("dashboard.coverageHelp")}
      </Text>
      <InlineGrid columns={{ xs: 2, md: 5 }} gap="300">
        {COVERAGE.map(([key, label]) => (
          <Box key={key} padding="200" background="bg-surface-secondary" borderRadius="200">
            <BlockStack gap="100">
              <Text as="span" tone="subdued">
                {t(label)}
              </Text>
              <Text as="span" variant="headingLg" id={`coverage-${key}`}>
                {data.coverage[key]}
              </Text>
            </BlockStack>
          </Box>
        ))}
      </InlineGrid>
      {data.coverageByDay.length > 0 ? (
        <div id="coverage-by-day">
          <ResponsiveTable
            columnContentTypes={["text", "numeric", "numeric", "numeric", "numeric", "numeric"]}
            headings={[
              t("dashboard.coverageDay", { zone: data.timeZone.name }),
              ...COVERAGE.map(([, label]) => t(label)),
            ]}
            rows={data.coverageByDay.map((day) => [day.dayText, ...COVERAGE.map(([key]) => day[key])])}
          />
        </div>
      ) : null}
    </SectionCard>
  );
}

/** The latest verifications, each linking to the order in Shopify admin and to its order page. */
export function RecentVerificationsCard({
  recent,
  creatorNames,
  time,
}: {
  recent: Dashboard["recent"];
  creatorNames: Dashboard["creatorNames"];
  time: Time;
}) {
  const rows = recent.map((row) => [
    <Link key="order" url={row.adminOrderUrl} target="_top">
      {row.orderName ?? `#${row.orderId}`}
    </Link>,
    <OutcomeBadge key="outcome" outcome={row.outcome} />,
    row.expectedTag ?? t("common.none"),
    row.arrivedTag ?? t("common.none"),
    row.creatorId ? (
      <CreatorName key="creator" creatorId={row.creatorId} name={creatorNames[row.creatorId]} />
    ) : (
      t("common.none")
    ),
    time(row.createdAt),
    <RemixLink key="detail" to={localePath(`/app/orders/${row.id}`)}>
      {t("dashboard.details")}
    </RemixLink>,
  ]);
  return (
    <Card padding="0">
      <Box padding="400">
        <Text as="h2" variant="headingMd">
          {t("dashboard.recent")}
        </Text>
      </Box>
      {rows.length === 0 ? (
        <Box padding="400">
          <EmptyNote>{t("dashboard.recentEmpty")}</EmptyNote>
        </Box>
      ) : (
        <ResponsiveTable
          columnContentTypes={["text", "text", "text", "text", "text", "text", "text"]}
          headings={[
            t("dashboard.columnOrder"),
            t("dashboard.columnOutcome"),
            t("dashboard.columnExpected"),
            t("dashboard.columnArrived"),
            t("dashboard.columnCreator"),
            t("dashboard.columnTime"),
            t("dashboard.columnDetails"),
          ]}
          rows={rows}
        />
      )}
    </Card>
  );
}

/** Customer data requests (customers/data_request): the latest, with what the app holds for each. */
export function DataRequestsCard({ dataRequests, time }: { dataRequests: Dashboard["dataRequests"]; time: Time }) {
  return (
    <SectionCard title={t("dashboard.dataRequests")}>
      <Text as="p" tone="subdued">
        {t("dashboard.dataRequestsHelp")}
      </Text>
      {dataRequests.length === 0 ? (
        <Text as="p">{t("dashboard.dataRequestsEmpty")}</Text>
      ) : (
        dataRequests.map((request) => (
          <BlockStack gap="100" key={request.id}>
            <Text as="p">
              {t("dashboard.dataRequestRow", {
                customer: request.customerId ?? t("dashboard.unknownCustomer"),
                asked: request.ordersAsked,
                found: request.ordersFound,
                time: time(request.receivedAt),
              })}
            </Text>
            <details>
              <summary>{t("dashboard.dataRequestShow")}</summary>
              <pre style={{ whiteSpace: "pre-wrap", wordBreak: "break-all", maxHeight: 300, overflow: "auto" }}>
                {request.data}
              </pre>
            </details>
          </BlockStack>
        ))
      )}
    </SectionCard>
  );
}
