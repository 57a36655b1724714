import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Link as RemixLink, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import {
  Banner,
  BlockStack,
  Box,
  Card,
  EmptyState,
  InlineGrid,
  Layout,
  Link,
  Page,
  Select,
  SkeletonBodyText,
  Text,
} from "@shopify/polaris";
import { AdminPage } from "../components/AdminPage";
import { adminMeta } from "../components/documentTitle";
import { EmptyNote } from "../components/EmptyNote";
import { OutcomeBadge } from "../components/OutcomeBadge";
import { PageError } from "../components/PageError";
import { ResponsiveTable } from "../components/ResponsiveTable";
import { SectionCard } from "../components/SectionCard";
import { SplitRow } from "../components/SplitRow";
import { Attention, OutcomeCounts, Recovered } from "../components/DashboardSummary";
import { requestLocale, shownTime } from "../units/shop-format";
import { getDashboardFor } from "../dashboard/dashboard.server";
import { getSetupStatus } from "../dashboard/setup.server";
import { EmbedBanner, SetupGuide, useEmbedStatus } from "../components/SetupGuide";
import { parsePeriod, PERIODS } from "../units/periods";
import { CreatorName } from "../components/CreatorName";
import { ReconciliationCard } from "../components/ReconciliationCard";
import { t } from "../i18n";
import { authenticate } from "../shopify.server";

export const meta = adminMeta(t("dashboard.title"));

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session, admin } = await authenticate.admin(request);
  const period = parsePeriod(new URL(request.url).searchParams.get("days"));
  const [dashboard, setup] = await Promise.all([
    getDashboardFor(session.shop, period, requestLocale(request), admin.graphql),
    getSetupStatus(session.shop, admin.graphql),
  ]);
  return json({ ...dashboard, setup });
};

/** The coverage card: each witness (decision 030), then the orders with none. */
const COVERAGE = [
  ["landing", "dashboard.coverageLanding"],
  ["pixel", "dashboard.coveragePixel"],
  ["cart_attributes", "dashboard.coverageCart"],
  ["landing_site", "dashboard.coverageLandingSite"],
  ["none", "dashboard.coverageNone"],
] as const;

export default function DashboardPage() {
  const data = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const [searchParams, setSearchParams] = useSearchParams();
  const loading = navigation.state === "loading" && navigation.location?.pathname === "/app";
  const embed = useEmbedStatus();
  const guide = (
    <SetupGuide
      status={data.setup}
      embed={embed}
      themeEditorUrl={data.themeEditorUrl}
      captureNotSeen={data.banners.captureNotSeen}
    />
  );

  if (!data.configured) {
    return (
      <Page title={t("dashboard.title")}>
        <Layout>
          <Layout.Section>{guide}</Layout.Section>
          <Layout.Section>
            <Card>
              <EmptyState
                heading={t("dashboard.emptyHeading")}
                action={{ content: t("dashboard.emptyAction"), url: "/app/settings" }}
                image="data:image/gif;base64,R0lGODlhAQABAAAAACw="
              >
                <p>{t("dashboard.emptyBody")}</p>
              </EmptyState>
            </Card>
          </Layout.Section>
        </Layout>
      </Page>
    );
  }

  const periodSelect = (
    <Select
      label={t("period.label")}
      labelInline
      options={PERIODS.map((days) => ({ label: t("period.option", { days }), value: String(days) }))}
      value={String(data.period)}
      onChange={(value) => {
        const next = new URLSearchParams(searchParams);
        next.set("days", value);
        setSearchParams(next);
      }}
    />
  );

  const time = (iso: string | null | undefined) => shownTime(data.times, iso);
  const rows = data.recent.map((row) => [
    <Link key="order" url={row.adminOrderUrl} target="_top">
      {row.orderName ?? `#${row.orderId}`}
    </Link>,
    <OutcomeBadge key="outcome" outcome={row.outcome} />,
    row.expectedTag ?? t("common.none"),
    row.arrivedTag ?? t("common.none"),
    row.creatorId ? (
      <CreatorName key="creator" creatorId={row.creatorId} name={data.creatorNames[row.creatorId]} />
    ) : (
      t("common.none")
    ),
    time(row.createdAt),
    <RemixLink key="detail" to={`/app/orders/${row.id}`}>
      {t("dashboard.details")}
    </RemixLink>,
  ]);

  return (
    <AdminPage title={t("dashboard.title")} primaryAction={periodSelect}>
      {data.banners.credentialsRejectedAt ? (
        <Banner
          tone="critical"
          title={t("dashboard.bannerKeyTitle")}
          action={{ content: t("dashboard.bannerKeyAction"), url: "/app/settings" }}
        >
          <Text as="p">{t("dashboard.bannerKeyBody", { time: time(data.banners.credentialsRejectedAt) })}</Text>
        </Banner>
      ) : null}
      <EmbedBanner
        status={embed}
        captureNotSeen={data.banners.captureNotSeen}
        themeEditorUrl={data.themeEditorUrl}
        days={data.period}
      />

      {loading ? (
        <Card>
          <SkeletonBodyText lines={6} />
        </Card>
      ) : (
        <>
          <Recovered data={data} />
          <Attention data={data} time={time} />
          {guide}

          <SectionCard title={t("dashboard.counts", { days: data.period })} gap="300">
            <OutcomeCounts counts={data.counts} />
          </SectionCard>

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
              <RemixLink to={`/app/codes?days=${data.period}`}>{t("dashboard.topCodesLink")}</RemixLink>
            </SectionCard>
          </InlineGrid>

          <SectionCard title={t("dashboard.landingTitle")}>
            <InlineGrid columns={{ xs: 1, md: 2 }} gap="300">
              <SplitRow variant="headingLg" note={t("dashboard.savedFromExpiryHelp")}>
                <span id="count-saved-from-expiry">
                  {t("dashboard.savedFromExpiry", { count: data.landing.savedFromExpiry })}
                </span>
              </SplitRow>
              <SplitRow variant="headingLg" note={t("dashboard.tamperedHelp")}>
                <span id="count-tampered">{t("dashboard.tampered", { count: data.landing.tampered })}</span>
              </SplitRow>
            </InlineGrid>
          </SectionCard>

          <ReconciliationCard status={data.reconciliation} time={time} />

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
        </>
      )}

      <SectionCard title={t("dashboard.dataRequests")}>
        <Text as="p" tone="subdued">
          {t("dashboard.dataRequestsHelp")}
        </Text>
        {data.dataRequests.length === 0 ? (
          <Text as="p">{t("dashboard.dataRequestsEmpty")}</Text>
        ) : (
          data.dataRequests.map((request) => (
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
    </AdminPage>
  );
}

export function ErrorBoundary() {
  return <PageError />;
}
